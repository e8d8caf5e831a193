package io.rivulet.topic;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.Exceptions;

/**
 * A {@link TopicHandler} as the one subscriber of a {@link TopicSubscription}, with unbounded demand: signals and
 * items that are messages come through {@link #onNext}; DATA comes in place through {@link #deliver}, from the
 * conductor without a message ({@code TopicSubscriberSide.onData}). A handler that throws cancels the subscription
 * and gets the exception in {@link TopicHandler#onError}, as a Reactor lambda subscriber does.
 *
 * <p>Threads: every signal on the conductor; {@link #dispose} from any thread.
 */
final class TopicHandlerSubscriber implements CoreSubscriber<TopicMessage>, Disposable
{
    private final TopicHandler handler;
    /** The view handed to the handler for items that are messages (conductor). */
    private final TopicItem messageItem = new TopicItem();
    private volatile Subscription subscription;
    private volatile boolean disposed;
    /** The handler threw or the subscription ended: nothing more reaches it (conductor). */
    private boolean ended;

    TopicHandlerSubscriber(final TopicHandler handler)
    {
        this.handler = handler;
    }

    @Override
    public void onSubscribe(final Subscription s)
    {
        subscription = s;
        if (disposed)
        {
            s.cancel();
        }
        else
        {
            s.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(final TopicMessage message)
    {
        deliver(messageItem.wrap(message));
    }

    /** Conductor: one item to the handler. */
    void deliver(final TopicItem item)
    {
        if (ended)
        {
            return;
        }
        try
        {
            handler.onItem(item);
        }
        catch (final Throwable error)
        {
            Exceptions.throwIfJvmFatal(error);
            ended = true;
            subscription.cancel();
            handler.onError(error);
        }
    }

    @Override
    public void onError(final Throwable error)
    {
        if (!ended)
        {
            ended = true;
            handler.onError(error);
        }
    }

    @Override
    public void onComplete()
    {
        ended = true; // a topic subscription does not complete on its own; nothing to tell
    }

    @Override
    public void dispose()
    {
        disposed = true;
        final Subscription s = subscription;
        if (s != null)
        {
            s.cancel();
        }
    }

    @Override
    public boolean isDisposed()
    {
        return disposed;
    }
}
