package io.rivulet.protocol;

import io.rivulet.Message;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * The receiving half of a stream, published to one subscriber. The subscriber's demand crosses the
 * wire as credits: the conductor keeps at most {@code min(demand, window)} credits granted, so the
 * peer can never send more than was asked for and this side never buffers beyond one message (the
 * free first message of a channel). A message arriving beyond the credits is a protocol violation.
 *
 * <p>Thread-safety: {@code subscribe}, {@code request} and {@code cancel} may come from any thread
 * and only record their effect, then signal the stream; every subscriber signal and all credit state
 * belong to the conductor.
 */
final class InboundFlow implements org.reactivestreams.Publisher<Message>, Subscription
{
    // Field updaters rather than atomic objects: one flow per request, so they would be allocated per request.
    private static final AtomicIntegerFieldUpdater<InboundFlow> SUBSCRIBED =
        AtomicIntegerFieldUpdater.newUpdater(InboundFlow.class, "subscribed");
    private static final AtomicLongFieldUpdater<InboundFlow> DEMAND =
        AtomicLongFieldUpdater.newUpdater(InboundFlow.class, "demand");

    private final ProtocolStream stream;
    private final int window;
    private volatile int subscribed;
    private volatile long demand;
    private volatile CoreSubscriber<? super Message> subscriber;
    private volatile boolean cancelled;
    private volatile boolean invalidRequest;
    private volatile boolean abandoned;

    // Conductor state.
    private long outstanding;
    private Message buffered;
    private boolean remoteDone;
    private Throwable remoteError;
    private boolean terminated;

    /**
     * @param stream  the owning stream, signalled on subscriber activity.
     * @param window  most credits granted at once; 0 for request-response, where one reply is implied.
     */
    InboundFlow(final ProtocolStream stream, final int window)
    {
        this.stream = stream;
        this.window = window;
    }

    @Override
    public void subscribe(final Subscriber<? super Message> s)
    {
        if (!SUBSCRIBED.compareAndSet(this, 0, 1))
        {
            Operators.error(s, new IllegalStateException(abandoned ?
                "the channel's inbound was cancelled: the handler's reply ended before anyone subscribed to it" :
                "this stream allows one subscriber; it has one already"));
            return;
        }
        final CoreSubscriber<? super Message> actual = Operators.toCoreSubscriber(s);
        subscriber = actual;
        actual.onSubscribe(this);
        stream.onInboundSubscribed();
    }

    @Override
    public void request(final long n)
    {
        if (n <= 0)
        {
            invalidRequest = true;
        }
        else
        {
            long current;
            do
            {
                current = demand;
            }
            while (!DEMAND.compareAndSet(this, current, Operators.addCap(current, n)));
        }
        stream.signal();
    }

    @Override
    public void cancel()
    {
        cancelled = true;
        stream.signal();
    }

    /**
     * Conductor: if nobody ever subscribed, nobody will read: cancel, so the peer stops producing.
     *
     * @return true when the flow was abandoned by this call.
     */
    boolean abandonIfUnsubscribed()
    {
        if (SUBSCRIBED.compareAndSet(this, 0, 1))
        {
            abandoned = true;
            cancelled = true;
            return true;
        }
        return false;
    }

    /** @return the subscriber's unmet demand (requested minus delivered). */
    long demand()
    {
        return demand;
    }

    /** @return true once the subscriber cancelled. */
    boolean isCancelled()
    {
        return cancelled;
    }

    /** @return true when nothing more will arrive from the peer and nothing is left to deliver to the subscriber. */
    boolean isDone()
    {
        // A message still buffered is owed to the subscriber: a request-response's reply can arrive before the
        // subscriber asks for it (concatMap subscribes its inner first and requests after), and a stream dropped
        // from the table then would ignore the request that comes for it.
        return terminated || cancelled || (remoteDone && buffered == null);
    }

    /**
     * Conductor: credits to grant now, and records them as granted.
     *
     * @return credits for a REQUEST_N (0 for none).
     */
    int takeCreditsToGrant()
    {
        if (window == 0 || remoteDone || terminated || cancelled)
        {
            return 0;
        }
        final long unmet = demand - (buffered == null ? 0 : 1);
        final long target = Math.min(unmet, window);
        final long grant = target - outstanding;
        // Batch replenishment: grant when empty-handed or when half of what the subscriber wants outstanding can be
        // granted. Half of the target, not of the window: a subscriber that keeps less than a window asked for (an
        // actor channel keeps 64, topping up by 32) would otherwise get nothing until the peer had used every credit,
        // and the peer's producer would stop and wait a whole round trip once per target.
        if (grant <= 0 || (outstanding > 0 && grant < Math.max(1, target / 2)))
        {
            return 0;
        }
        outstanding += grant;
        return (int)Math.min(grant, Integer.MAX_VALUE);
    }

    /**
     * Conductor: a message arrived from the peer.
     *
     * @param message the message.
     * @param free    true for the message that opened a channel, which needs no credit.
     * @return false when it exceeded the granted credits (a protocol violation).
     */
    boolean onMessage(final Message message, final boolean free)
    {
        if (!free)
        {
            if (window == 0)
            {
                if (outstanding != 0)
                {
                    return false;
                }
                outstanding = -1; // the single reply of a request-response has arrived
            }
            else
            {
                if (outstanding <= 0)
                {
                    return false;
                }
                outstanding--;
            }
        }
        if (terminated || cancelled)
        {
            return true;
        }
        if (buffered != null)
        {
            return false;
        }
        buffered = message;
        drain();
        return true;
    }

    /** Conductor: the peer completed its side. */
    void onRemoteComplete()
    {
        remoteDone = true;
        drain();
    }

    /** Conductor: the stream failed (peer ERROR, connection closed or lost). */
    void onRemoteError(final Throwable error)
    {
        if (remoteError == null)
        {
            remoteError = error;
        }
        remoteDone = true;
        // The error overtakes a message still waiting for demand (an error needs none): once the connection is
        // gone the stream is out of the table, and a request made later would never reach it.
        buffered = null;
        drain();
    }

    /**
     * Conductor: delivers what demand allows, then a terminal signal once nothing is buffered.
     *
     * @return true if this call delivered a signal.
     */
    boolean drain()
    {
        final CoreSubscriber<? super Message> s = subscriber;
        if (terminated || s == null)
        {
            return false;
        }
        if (invalidRequest)
        {
            terminated = true;
            buffered = null;
            s.onError(new IllegalArgumentException("Reactive Streams rule 3.9: request must be positive"));
            return true;
        }
        if (cancelled)
        {
            terminated = true;
            buffered = null;
            return false;
        }
        boolean signalled = false;
        if (buffered != null && demand > 0)
        {
            final Message message = buffered;
            buffered = null;
            DEMAND.decrementAndGet(this);
            s.onNext(message);
            signalled = true;
        }
        if (remoteDone && buffered == null && !terminated)
        {
            terminated = true;
            if (remoteError != null)
            {
                s.onError(remoteError);
            }
            else
            {
                s.onComplete();
            }
            signalled = true;
        }
        return signalled;
    }

    /** @return true after the subscriber saw a terminal signal or cancelled. */
    boolean isTerminated()
    {
        return terminated;
    }

    /** @return true when this flow got a request(n &lt;= 0) or a cancel the peer must hear of. */
    boolean needsRemoteCancel()
    {
        return (cancelled || invalidRequest) && !remoteDone;
    }
}
