package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.MessageTooLargeException;
import io.rivulet.RejectedException;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import org.agrona.concurrent.status.AtomicCounter;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * The sending half of a stream: subscribes to the application's producer and writes what it emits
 * to the wire. The producer is requested exactly the credits the peer grants, so it is paused while
 * the peer's subscriber is not asking for more; back-pressure crosses the wire end to end.
 *
 * <p>Thread-safety: producer signals arrive on the producer's thread (one at a time); credits and
 * cancellation come from the conductor; {@link Operators.DeferredSubscription} joins the two.
 */
final class OutboundFlow extends Operators.DeferredSubscription implements CoreSubscriber<Message>
{
    /** A field updater rather than an AtomicLong: one flow per request, so it would be allocated per request. */
    private static final AtomicLongFieldUpdater<OutboundFlow> UNUSED_CREDITS =
        AtomicLongFieldUpdater.newUpdater(OutboundFlow.class, "unusedCredits");

    private final ProtocolStream stream;
    private final StreamWriter writer;
    private final boolean single;
    private final int maxMessageLength;
    private final AtomicCounter creditStalls;
    private volatile long unusedCredits;
    private volatile boolean done;
    private volatile Throwable failure;

    /**
     * @param stream           the owning stream, signalled when this side ends.
     * @param writer           the stream's writer.
     * @param single           true for a request-response reply: one message with COMPLETE.
     * @param maxMessageLength longest message the peer accepts.
     * @param creditStalls     counts the times the producer used up the peer's credits.
     */
    OutboundFlow(
        final ProtocolStream stream,
        final StreamWriter writer,
        final boolean single,
        final int maxMessageLength,
        final AtomicCounter creditStalls)
    {
        this.stream = stream;
        this.writer = writer;
        this.single = single;
        this.maxMessageLength = maxMessageLength;
        this.creditStalls = creditStalls;
    }

    @Override
    public void onSubscribe(final Subscription s)
    {
        set(s);
    }

    @Override
    public void onNext(final Message message)
    {
        if (done)
        {
            Operators.onNextDropped(message, reactor.util.context.Context.empty());
            return;
        }
        if (message.dataLength() + (long)message.metadataLength() > maxMessageLength)
        {
            super.cancel();
            onError(new MessageTooLargeException("message of " + (message.dataLength() + message.metadataLength()) +
                " bytes exceeds the maximum of " + maxMessageLength));
            return;
        }
        if (stream.isRequesterChannel() && stream.holdFirst(message))
        {
            return;
        }
        if (single)
        {
            done = true;
            writer.sendMessage(FrameType.PAYLOAD, 0, (byte)(FrameFlags.NEXT | FrameFlags.COMPLETE), message);
            stream.signal();
            return;
        }
        if (UNUSED_CREDITS.decrementAndGet(this) == 0)
        {
            creditStalls.increment();
        }
        writer.sendMessage(FrameType.PAYLOAD, 0, FrameFlags.NEXT, message);
    }

    @Override
    public void onError(final Throwable error)
    {
        if (done)
        {
            Operators.onErrorDropped(error, reactor.util.context.Context.empty());
            return;
        }
        done = true;
        // An ERROR ends the stream in both directions: the conductor ends the inbound half too.
        failure = error;
        if (stream.isRequesterChannel() && stream.holdError(error))
        {
            stream.signal();
            return;
        }
        writer.sendError(error instanceof RejectedException ? ErrorCode.REJECTED : ErrorCode.APPLICATION_ERROR,
            String.valueOf(error.getMessage() != null ?
            error.getMessage() : error.getClass().getName()));
        stream.signal();
    }

    @Override
    public void onComplete()
    {
        if (done)
        {
            return;
        }
        done = true;
        if (stream.isRequesterChannel() && stream.holdComplete())
        {
            stream.signal();
            return;
        }
        writer.sendMessage(FrameType.PAYLOAD, 0, FrameFlags.COMPLETE, null);
        stream.signal();
    }

    /** Conductor: the peer granted credits. */
    void onCredits(final long n)
    {
        if (!done)
        {
            UNUSED_CREDITS.addAndGet(this, n);
            request(n);
        }
    }

    /** Conductor: the peer cancelled, or the stream ended; stops the producer. */
    void stop()
    {
        done = true;
        super.cancel();
    }

    /** @return the producer's error once it failed (an ERROR frame was or will be sent), else null. */
    Throwable failure()
    {
        return failure;
    }

    /** @return true once the producer finished or was stopped. */
    boolean isDone()
    {
        return done;
    }
}
