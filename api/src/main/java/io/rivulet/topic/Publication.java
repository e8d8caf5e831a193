package io.rivulet.topic;

import io.rivulet.Message;
import io.rivulet.MessageTooLargeException;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameWriter;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.UnsafeBuffer;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Operators;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The publishing side of one topic on this node: one publisher, any number of subscribers on any
 * connections to this node ({@code Connection.subscribe(pattern)} on the other side).
 *
 * <p><b>Encode once, send many.</b> Each message is written once, as a whole TOPIC_DATA frame, into the
 * publication's log: a ring of {@link TopicOptions#logCapacity()} bytes. Every subscriber connection has
 * its own position in the log, and the engine's sender thread hands the frames to each connection's link
 * from there; the engine keeps no per-subscriber copy.
 *
 * <pre>
 *   log record (unaligned, end to end: the TCP link's wire format, see LogRecords;
 *               positions grow forever, index = position &amp; (capacity - 1)):
 *    0               4
 *   +---------------+------------------------------------------+---------------+----
 *   | frame length  | TOPIC_DATA frame: header, topicId,       | frame length  | ...
 *   | (LE; negative:| sessionId, sequence, key, data length,   | of the next   |
 *   | bytes to skip)| data                                     | record        |
 *   +---------------+------------------------------------------+---------------+----
 *
 *   positions:   keeper/cursors (min) ........ published ........ limit = min + capacity
 *                |&lt;-------- buffered (&lt;= capacity) --------&gt;|
 * </pre>
 *
 * <p><b>Sequences</b> are per publication, from 1, in publishing order. {@link #sessionId()} identifies this
 * incarnation: a publication closed and created again (a restarted publisher) is a new session, and
 * subscribers see it as such.
 *
 * <p><b>Back-pressure is a result, not an exception:</b> {@link #offer} and {@link #tryClaim} return the
 * message's sequence, or {@link #BACK_PRESSURED} when the log has no room (under
 * {@link SlowConsumerPolicy#BLOCK}, because of the slowest subscriber; under the other policies only for the
 * moment it takes the engine to act on a subscriber a whole log behind), {@link #CLOSED}, or
 * {@link #KEY_LIMIT_EXCEEDED}. {@link #publish(Publisher)} waits out back-pressure by not requesting.
 *
 * <p>Thread-safety: a publication has a single writer, like Aeron's {@code ExclusivePublication}:
 * {@link #offer}, {@link #tryClaim} and {@link #publish} must not be used by two threads at once (hand the
 * messages to one thread, or merge the fluxes). The statistics and {@link #close()} may be called from any
 * thread. After back-pressure, {@code publish} resumes its source from the engine's sender thread: keep
 * heavy work in the source off it with {@code publishOn}.
 */
public final class Publication implements AutoCloseable
{
    /** The log has no room now; try again. */
    public static final long BACK_PRESSURED = -2;
    /** The publication is closed. */
    public static final long CLOSED = -4;
    /** The message's key is new and the topic already has {@link TopicOptions#maxKeys()} keys. */
    public static final long KEY_LIMIT_EXCEEDED = -6;

    private final TopicRegistry registry;
    private final int topicId;
    private final String topic;
    private final TopicPattern name;
    private final int sessionId;
    private final TopicOptions options;
    private final KeyExtractor keyOf;
    private final int maxMessageLength;
    private final int capacity;
    private final int mask;
    private final UnsafeBuffer log;
    private final FrameWriter frames = new FrameWriter();
    private final LongHashSet keys;
    private final PublicationEngine engine;
    private final AtomicReference<PublishSubscriber> parked = new AtomicReference<>();

    // The writer's state (single writer).
    private long tail;
    private long sequence;
    private boolean claimOutstanding;

    // Shared with the engine.
    private final AtomicLong published = new AtomicLong();
    private volatile long publishedSequence;
    private volatile long limit;
    private volatile boolean closed;
    private volatile long backPressureEvents;

    Publication(
        final TopicRegistry registry,
        final int topicId,
        final TopicPattern name,
        final int sessionId,
        final TopicOptions options,
        final TopicSettings settings)
    {
        this.registry = registry;
        this.topicId = topicId;
        this.name = name;
        this.topic = name.text();
        this.sessionId = sessionId;
        this.options = options;
        this.keyOf = options.keyOf();
        this.maxMessageLength = options.maxMessageLength();
        this.capacity = options.logCapacity();
        this.mask = capacity - 1;
        this.log = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
        this.keys = keyOf == null ? null : new LongHashSet(Math.max(8, options.maxKeys() * 2));
        this.limit = capacity;
        this.engine = new PublicationEngine(this, settings);
    }

    /** @return the topic's name. */
    public String topic()
    {
        return topic;
    }

    /** @return this incarnation's session id, carried by every frame of the topic. */
    public int sessionId()
    {
        return sessionId;
    }

    /** @return the concluded options. */
    public TopicOptions options()
    {
        return options;
    }

    /** @return the sequence of the last message published, 0 before the first. */
    public long sequence()
    {
        return publishedSequence;
    }

    /** @return the longest message accepted. */
    public int maxMessageLength()
    {
        return maxMessageLength;
    }

    /**
     * Publishes one message: its bytes are copied once, into the log. Does not allocate.
     *
     * @param buffer holding the data.
     * @param offset of the data.
     * @param length of the data, at most {@link #maxMessageLength()}.
     * @return the message's sequence (positive), or {@link #BACK_PRESSURED}, {@link #CLOSED} or
     * {@link #KEY_LIMIT_EXCEEDED}.
     * @throws IllegalArgumentException when the message is longer than {@link #maxMessageLength()}.
     */
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        checkLength(length);
        if (closed)
        {
            return CLOSED;
        }
        checkNoClaim();
        final long key = keyOf == null ? 0 : keyOf.key(buffer, offset, length);
        if (!admitKey(key))
        {
            return KEY_LIMIT_EXCEEDED;
        }
        final int recordLength = LogRecords.recordLength(length);
        final int index = reserve(recordLength);
        if (index < 0)
        {
            return BACK_PRESSURED;
        }
        final long next = sequence + 1;
        final int frameLength = frames.writeTopicData(log, index + LogRecords.HEADER_LENGTH, topicId,
            sessionId, next, key, buffer, offset, length);
        return commit(index, recordLength, frameLength, next, key);
    }

    /**
     * Claims room in the log for a message to be encoded in place (see {@link TopicClaim}).
     *
     * @param length of the message's data, at most {@link #maxMessageLength()}.
     * @param claim  the flyweight to point at the slot.
     * @return the sequence the message will have, or {@link #BACK_PRESSURED} or {@link #CLOSED}.
     */
    public long tryClaim(final int length, final TopicClaim claim)
    {
        checkLength(length);
        if (closed)
        {
            return CLOSED;
        }
        checkNoClaim();
        final int recordLength = LogRecords.recordLength(length);
        final int index = reserve(recordLength);
        if (index < 0)
        {
            return BACK_PRESSURED;
        }
        claimOutstanding = true;
        claim.wrap(this, index, recordLength, length);
        return sequence + 1;
    }

    /**
     * Publishes every message of a source, requesting one at a time and not requesting while the log is
     * full, so back-pressure reaches the source. Keyed topics take each message's key from its data.
     *
     * @param messages the source.
     * @return completes when the source completed and all of it is in the log; fails when the source
     * fails, the publication closes ({@link RivuletException}), a message is too large
     * ({@link MessageTooLargeException}) or a key exceeds the key limit. Cold: subscribes on subscription.
     */
    public Mono<Void> publish(final Publisher<Message> messages)
    {
        return Mono.create(sink ->
        {
            final PublishSubscriber subscriber = new PublishSubscriber(sink);
            sink.onCancel(subscriber::cancel);
            messages.subscribe(subscriber);
        });
    }

    /** @return bytes in the log that some subscriber (or the last-value keeper) has yet to read: at most the capacity. */
    public long bufferedBytes()
    {
        return engine.bufferedBytes();
    }

    /** @return the most bytes ever buffered, as measured by the engine each duty cycle. */
    public long maxBufferedBytes()
    {
        return engine.maxBufferedBytes();
    }

    /** @return bytes of the last-value table of a keyed topic (bounded by maxKeys x maxMessageLength). */
    public long retainedBytes()
    {
        return engine.retainedBytes();
    }

    /** @return subscriber connections currently attached. */
    public int subscriberCount()
    {
        return engine.subscriberCount();
    }

    /** @return subscribers cut off ({@link SlowConsumerPolicy#DROP_SLOW}) or conflated ({@link SlowConsumerPolicy#CONFLATE}) so far. */
    public long slowConsumerEvents()
    {
        return engine.slowConsumerEvents();
    }

    /** @return offers and claims that found the log full. */
    public long backPressureEvents()
    {
        return backPressureEvents;
    }

    /** @return the log's capacity: the bound on {@link #bufferedBytes()}. */
    public int capacity()
    {
        return capacity;
    }

    public boolean isClosed()
    {
        return closed;
    }

    /**
     * Stops publishing. Subscribers receive what was published, then an END item; a subscriber that takes
     * nothing for a topic heartbeat timeout is not waited for (its END follows a GAP with reason ENDED). The
     * name may be published again, as a new session. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            registry.onClosed(this);
        }
    }

    @Override
    public String toString()
    {
        return "Publication{" + topic + ", session=" + sessionId + ", sequence=" + publishedSequence + ", " +
            options.policy() + "}";
    }

    // --------------------------------------------------------------------------------------- the writer

    private void checkLength(final int length)
    {
        if (length < 0 || length > maxMessageLength)
        {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the topic's maximum of " +
                maxMessageLength + " (TopicOptions.maxMessageLength)");
        }
    }

    private void checkNoClaim()
    {
        if (claimOutstanding)
        {
            throw new IllegalStateException("a TopicClaim of " + topic + " is neither committed nor aborted");
        }
    }

    private boolean admitKey(final long key)
    {
        return keys == null || keys.contains(key) || keys.size() < options.maxKeys();
    }

    /**
     * Makes room for a record at the tail, after a skip when it would not fit before the end of
     * the ring. Nothing becomes visible to readers until {@link #publish(long, long)}.
     *
     * @return the record's index in the log, or -1 when the limit does not allow it.
     */
    private int reserve(final int recordLength)
    {
        final long limit = this.limit;
        final int index = (int)(tail & mask);
        final int toEnd = capacity - index;
        if (recordLength > toEnd)
        {
            if (tail + toEnd + recordLength > limit)
            {
                backPressureEvents++;
                return -1;
            }
            LogRecords.putSkip(log, index, toEnd);
            tail += toEnd;
            return 0;
        }
        if (tail + recordLength > limit)
        {
            backPressureEvents++;
            return -1;
        }
        return index;
    }

    private long commit(final int index, final int recordLength, final int frameLength, final long next, final long key)
    {
        LogRecords.putFrameLength(log, index, frameLength);
        if (keys != null)
        {
            keys.add(key);
        }
        sequence = next;
        publish(tail + recordLength, next);
        return next;
    }

    /** Makes everything before {@code position} visible to the engine (a release store). */
    private void publish(final long position, final long lastSequence)
    {
        tail = position;
        publishedSequence = lastSequence;
        published.setRelease(position);
        registry.afterHandOff();
    }

    long commitClaim(final int index, final int recordLength, final int length)
    {
        claimOutstanding = false;
        final int dataOffset = dataOffset(index);
        final long key = keyOf == null ? 0 : keyOf.key(log, dataOffset, length);
        if (!admitKey(key))
        {
            abortClaim(index, recordLength);
            return KEY_LIMIT_EXCEEDED;
        }
        final long next = sequence + 1;
        final int frameLength = frames.writeTopicDataHeader(log, index + LogRecords.HEADER_LENGTH, topicId,
            sessionId, next, key, length);
        return commit(index, recordLength, frameLength, next, key);
    }

    void abortClaim(final int index, final int recordLength)
    {
        claimOutstanding = false;
        LogRecords.putSkip(log, index, recordLength); // readers skip it
        publish(tail + recordLength, sequence);
    }

    long offerMessage(final Message message)
    {
        if (message.dataLength() > maxMessageLength)
        {
            throw new MessageTooLargeException("message of " + message.dataLength() + " bytes exceeds the maximum of " +
                maxMessageLength + " of topic " + topic);
        }
        return offer(message.data(), 0, message.dataLength());
    }

    static int dataOffset(final int recordIndex)
    {
        return recordIndex + LogRecords.HEADER_LENGTH + FrameWriter.TOPIC_DATA_HEADER_LENGTH;
    }

    // ---------------------------------------------------------------------------------- for the engine

    int topicId()
    {
        return topicId;
    }

    TopicPattern name()
    {
        return name;
    }

    MutableDirectBuffer logBuffer()
    {
        return log;
    }

    int mask()
    {
        return mask;
    }

    /** @return the position up to which records are complete (an acquire load). */
    long published()
    {
        return published.getAcquire();
    }

    /** @return how far the writer may go: positions below {@code limit - capacity} may have been overwritten. */
    long limit()
    {
        return limit;
    }

    /** Sender thread: how far the writer may go. */
    void limit(final long limit)
    {
        this.limit = limit;
    }

    PublicationEngine engine()
    {
        return engine;
    }

    /** Sender thread: resumes a {@link #publish} that found the log full, once the limit moved. */
    int retryParked()
    {
        final PublishSubscriber subscriber = parked.getAndSet(null);
        return subscriber == null ? 0 : subscriber.retry();
    }

    /** Writes one message of {@link #publish}, requesting the next, or parks it for the sender thread to retry. */
    private final class PublishSubscriber implements CoreSubscriber<Message>
    {
        private final MonoSink<Void> sink;
        private volatile Subscription subscription;
        private volatile Message held;
        private volatile boolean sourceDone;
        private volatile Throwable sourceError;
        private volatile boolean cancelled;

        PublishSubscriber(final MonoSink<Void> sink)
        {
            this.sink = sink;
        }

        @Override
        public void onSubscribe(final Subscription s)
        {
            if (Operators.validate(subscription, s))
            {
                subscription = s;
                s.request(1);
            }
        }

        @Override
        public void onNext(final Message message)
        {
            if (!cancelled)
            {
                write(message);
            }
        }

        @Override
        public void onError(final Throwable error)
        {
            sourceError = error;
            sourceDone = true;
            if (held == null)
            {
                sink.error(error);
            }
        }

        @Override
        public void onComplete()
        {
            sourceDone = true;
            if (held == null)
            {
                sink.success();
            }
        }

        void cancel()
        {
            cancelled = true;
            held = null;
            final Subscription s = subscription;
            if (s != null)
            {
                s.cancel();
            }
        }

        /** @return work done: 1 when the held message went out (or failed), 0 when still back-pressured. */
        int retry()
        {
            final Message message = held;
            if (message == null || cancelled)
            {
                return 0;
            }
            write(message); // clears 'held' only once written, so a racing onComplete waits for it
            return held == null ? 1 : 0;
        }

        private void write(final Message message)
        {
            final long result;
            try
            {
                result = offerMessage(message);
            }
            catch (final RuntimeException ex)
            {
                fail(ex);
                return;
            }
            if (result > 0)
            {
                held = null;
                if (sourceDone)
                {
                    finish();
                }
                else
                {
                    subscription.request(1);
                }
            }
            else if (result == BACK_PRESSURED)
            {
                held = message;
                parked.set(this); // the sender thread retries once the log has room
            }
            else if (result == CLOSED)
            {
                fail(new RivuletException("publication " + topic + " is closed"));
            }
            else
            {
                fail(new RivuletException("topic " + topic + " already has its maximum of " + options.maxKeys() +
                    " keys (TopicOptions.maxKeys)"));
            }
        }

        private void fail(final Throwable error)
        {
            cancel(); // also clears 'held'
            sink.error(error);
        }

        private void finish()
        {
            final Throwable error = sourceError;
            if (error != null)
            {
                sink.error(error);
            }
            else
            {
                sink.success();
            }
        }
    }
}
