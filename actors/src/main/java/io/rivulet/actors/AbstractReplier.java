package io.rivulet.actors;

import org.reactivestreams.Publisher;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Replier} that answers at most once; answers after the first, and any answer to a tell, are dead
 * letters.
 *
 * <p>Thread-safe.
 */
abstract class AbstractReplier implements Replier
{
    private final ActorCounters counters;
    private final AtomicBoolean answered;

    /**
     * @param counters  where dead letters are counted.
     * @param expecting false for a tell, whose replies all go to dead letters.
     */
    AbstractReplier(final ActorCounters counters, final boolean expecting)
    {
        this.counters = counters;
        this.answered = new AtomicBoolean(!expecting);
    }

    @Override
    public final boolean expectsReply()
    {
        return !answered.get();
    }

    @Override
    public final void reply(final Object value)
    {
        Objects.requireNonNull(value, "a reply must not be null");
        if (answered.compareAndSet(false, true))
        {
            onReply(value);
        }
        else
        {
            counters.deadLetters.increment();
        }
    }

    @Override
    public final void replyStream(final Publisher<?> replies)
    {
        Objects.requireNonNull(replies, "replies");
        if (answered.compareAndSet(false, true))
        {
            onReplyStream(replies);
        }
        else
        {
            counters.deadLetters.increment();
        }
    }

    @Override
    public final void fail(final Throwable error)
    {
        Objects.requireNonNull(error, "error");
        if (answered.compareAndSet(false, true))
        {
            onFail(error);
        }
    }

    /** Marks the replier answered without answering: the asker went away. */
    final void cancel()
    {
        answered.set(true);
    }

    abstract void onReply(Object value);

    abstract void onReplyStream(Publisher<?> replies);

    abstract void onFail(Throwable error);

    /** The replier of a tell: nobody to answer. */
    static final class None extends AbstractReplier
    {
        None(final ActorCounters counters)
        {
            super(counters, false);
        }

        @Override
        void onReply(final Object value)
        {
        }

        @Override
        void onReplyStream(final Publisher<?> replies)
        {
        }

        @Override
        void onFail(final Throwable error)
        {
        }
    }

    /** A stream answer in flight to a local asker. */
    record StreamReply(Publisher<?> replies)
    {
    }
}
