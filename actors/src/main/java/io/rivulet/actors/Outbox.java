package io.rivulet.actors;

import io.rivulet.Message;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A bounded queue of encoded envelopes published as one direction of an actor channel: the outbound side of
 * a requester's channel (tells and asks to one remote actor) or the reply side of a responder's channel.
 *
 * <p>Envelopes leave as the subscriber's demand allows, which for a Rivulet channel is the peer's credits,
 * so a receiver that stops granting makes the queue fill and its senders wait or fail per their policy.
 * Whatever is queued when demand arrives leaves together: up to {@code maxBatchBytes} of envelopes are
 * packed into one message, each behind its int32 length, and use one credit:
 *
 * <pre>
 *  +----------------+----------------------+----------------+----------------------+---
 *  | length (int32) | envelope (SBE, 7702) | length (int32) | envelope (SBE, 7702) | ...
 *  +----------------+----------------------+----------------+----------------------+---
 * </pre>
 *
 * <p>Memory: at most the queue's capacity of envelopes, plus the batch being built.
 *
 * <p>Thread-safe: {@link #offer} from any thread; emission is serialized by a work-in-progress counter and
 * runs on whichever thread offers, requests or cancels (a sender, or the engine when credits arrive).
 */
final class Outbox implements Publisher<Message>, Subscription
{
    static final int ACCEPTED = 0;
    static final int FULL = 1;
    static final int CLOSED = 2;

    private final ManyToOneConcurrentArrayQueue<byte[]> queue;
    private final int maxBatchBytes;
    private final int maxBatchEntries;
    private final Message first;
    private final Consumer<byte[]> dropped;
    private final Runnable onCancel;
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicLong requested = new AtomicLong();
    private final AtomicInteger highWaterMark = new AtomicInteger();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private volatile CoreSubscriber<? super Message> actual;
    private volatile boolean cancelled;
    private volatile boolean completing;
    private volatile boolean invalidRequest;

    // Owned by the thread that holds the work-in-progress counter.
    private ExpandableArrayBuffer batch = new ExpandableArrayBuffer(1024);
    private boolean firstSent;
    private boolean terminalSent;

    /**
     * @param capacity        most envelopes queued (rounded up to a power of two).
     * @param maxBatchBytes   most bytes packed into one message (a single larger envelope still goes alone).
     * @param maxBatchEntries most envelopes packed into one message.
     * @param first           a message sent before any envelope (the channel's opening route), or null.
     * @param dropped         told of each envelope dropped because the outbox closed.
     * @param onCancel        run when the subscriber cancels, or null.
     */
    Outbox(final int capacity, final int maxBatchBytes, final int maxBatchEntries, final Message first,
        final Consumer<byte[]> dropped, final Runnable onCancel)
    {
        this.onCancel = onCancel;
        this.queue = new ManyToOneConcurrentArrayQueue<>(capacity);
        this.maxBatchBytes = maxBatchBytes;
        this.maxBatchEntries = maxBatchEntries;
        this.first = first;
        this.dropped = dropped;
    }

    /**
     * @param entry an encoded envelope.
     * @return {@link #ACCEPTED}, {@link #FULL} or {@link #CLOSED}.
     */
    int offer(final byte[] entry)
    {
        if (cancelled || completing)
        {
            return CLOSED;
        }
        if (!queue.offer(entry))
        {
            return cancelled || completing ? CLOSED : FULL;
        }
        final int size = queue.size();
        if (size > highWaterMark.get())
        {
            highWaterMark.accumulateAndGet(size, Math::max);
        }
        drain();
        return ACCEPTED;
    }

    /** Drops what is queued and refuses more; the subscriber, if any, gets no further signal. */
    void abort()
    {
        cancelled = true;
        drain();
    }

    /** Sends what is queued, then completes; refuses more. */
    void complete()
    {
        completing = true;
        drain();
    }

    boolean isClosed()
    {
        return cancelled || completing;
    }

    int size()
    {
        return queue.size();
    }

    int capacity()
    {
        return queue.capacity();
    }

    int highWaterMark()
    {
        return highWaterMark.get();
    }

    /** @return messages (batches) emitted. */
    long sent()
    {
        return sent.get();
    }

    @Override
    public void subscribe(final Subscriber<? super Message> s)
    {
        if (!subscribed.compareAndSet(false, true))
        {
            Operators.error(s, new IllegalStateException("an actor outbox allows one subscriber"));
            return;
        }
        final CoreSubscriber<? super Message> subscriber = Operators.toCoreSubscriber(s);
        actual = subscriber;
        subscriber.onSubscribe(this);
        drain();
    }

    @Override
    public void request(final long n)
    {
        if (n <= 0)
        {
            invalidRequest = true; // Reactive Streams 3.9: signalled as onError by the drain
            drain();
        }
        else
        {
            long current;
            do
            {
                current = requested.get();
            }
            while (!requested.compareAndSet(current, Operators.addCap(current, n)));
            drain();
        }
    }

    @Override
    public void cancel()
    {
        cancelled = true;
        drain();
        if (onCancel != null)
        {
            onCancel.run();
        }
    }

    private void drain()
    {
        if (wip.getAndIncrement() != 0)
        {
            return;
        }
        int missed = 1;
        for (;;)
        {
            final CoreSubscriber<? super Message> subscriber = actual;
            if (cancelled || terminalSent)
            {
                dropAll();
            }
            else if (subscriber != null && invalidRequest)
            {
                terminalSent = true;
                dropAll();
                subscriber.onError(new IllegalArgumentException("Reactive Streams rule 3.9: request must be positive"));
            }
            else if (subscriber != null)
            {
                emit(subscriber);
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0)
            {
                break;
            }
        }
    }

    private void emit(final CoreSubscriber<? super Message> subscriber)
    {
        final long r = requested.get();
        long e = 0;
        if (first != null && !firstSent && r > 0)
        {
            firstSent = true;
            subscriber.onNext(first);
            e++;
        }
        if (first == null || firstSent)
        {
            while (e != r && !cancelled)
            {
                final Message message = nextBatch();
                if (message == null)
                {
                    break;
                }
                subscriber.onNext(message);
                e++;
            }
        }
        if (e != 0)
        {
            sent.addAndGet(e);
            if (r != Long.MAX_VALUE)
            {
                requested.addAndGet(-e);
            }
        }
        if (completing && !cancelled && queue.isEmpty() && (first == null || firstSent))
        {
            terminalSent = true;
            subscriber.onComplete();
        }
    }

    private Message nextBatch()
    {
        final byte[] entry = queue.poll();
        if (entry == null)
        {
            return null;
        }
        int length = append(0, entry);
        int entries = 1;
        byte[] next;
        while (entries < maxBatchEntries && (next = queue.peek()) != null &&
            length + Envelopes.ENTRY_PREFIX + next.length <= maxBatchBytes)
        {
            length = append(length, queue.poll());
            entries++;
        }
        final byte[] bytes = new byte[length];
        batch.getBytes(0, bytes);
        if (batch.capacity() > 4 * maxBatchBytes)
        {
            batch = new ExpandableArrayBuffer(1024); // one huge envelope must not pin its memory
        }
        return Message.of(bytes);
    }

    private int append(final int offset, final byte[] entry)
    {
        batch.putInt(offset, entry.length, ByteOrder.LITTLE_ENDIAN);
        batch.putBytes(offset + Envelopes.ENTRY_PREFIX, entry);
        return offset + Envelopes.ENTRY_PREFIX + entry.length;
    }

    private void dropAll()
    {
        byte[] entry;
        while ((entry = queue.poll()) != null)
        {
            dropped.accept(entry);
        }
    }
}
