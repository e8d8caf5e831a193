package io.rivulet.topic;

import io.rivulet.codec.FrameWriter;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

import java.nio.ByteOrder;
import java.util.ArrayList;

/**
 * The engine's side of one {@link Publication}, run by the {@link TopicSender} on the sender thread:
 *
 * <ol>
 *   <li>the <b>keeper</b> reads each newly published record once and, for a keyed topic, records it as its
 *       key's last value ({@link LastValueTable}); cursors never read past the keeper, so a snapshot taken
 *       from the table at the keeper's sequence S joins the live stream exactly at S + 1;</li>
 *   <li>each subscriber connection's {@link TopicCursor} sends frames from its own position;</li>
 *   <li>the publisher's <b>limit</b> becomes the lowest of the keeper's and the cursors' positions plus the
 *       log's capacity: the writer can never overwrite a record some reader still needs, so what the
 *       publisher buffers is bounded by the capacity under every policy. Under DROP_SLOW and CONFLATE a
 *       cursor that falls {@link #lagThreshold()} behind is cut off or skipped ahead at once, so it holds
 *       the publisher for at most one duty cycle.</li>
 * </ol>
 *
 * <p>Not thread-safe: owned by the sender thread. {@link #addCursor} (conductor), {@link #unlisted()} and
 * the statistics are the exceptions.
 */
final class PublicationEngine
{
    private final Publication publication;
    private final TopicSettings settings;
    private final SlowConsumerPolicy policy;
    private final LastValueTable table;
    private final MutableDirectBuffer log;
    private final int mask;
    private final int capacity;
    private final long lagThreshold;
    private final ManyToOneConcurrentLinkedQueue<TopicCursor> newCursors = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayList<TopicCursor> cursors = new ArrayList<>();
    /** The publication's stream to its multicast group, or null when its subscribers are all served per path. */
    private PublicationMulticast multicast;

    // Sender thread.
    private long keeperPosition;
    private long keeperSequence;
    private long published;
    private long closedSinceNs = -1;

    private volatile boolean unlisted;
    private volatile long bufferedBytes;
    private volatile long maxBufferedBytes;
    private volatile long retainedBytes;
    private volatile int subscriberCount;
    private volatile long slowConsumerEvents;

    PublicationEngine(final Publication publication, final TopicSettings settings)
    {
        this.publication = publication;
        this.settings = settings;
        final TopicOptions options = publication.options();
        this.policy = options.policy();
        this.table = options.keyOf() == null ? null : new LastValueTable(options.maxKeys());
        this.log = publication.logBuffer();
        this.mask = publication.mask();
        this.capacity = publication.capacity();
        // A writer blocked at the limit may need room for one record plus the skip before it.
        this.lagThreshold = capacity - 2L * LogRecords.recordLength(options.maxMessageLength());
    }

    /** Before the engine is handed to the sender thread: the publication's topic goes to a multicast group. */
    void multicast(final PublicationMulticast multicast)
    {
        this.multicast = multicast;
    }

    /** @return the publication's multicast side, or null. */
    PublicationMulticast multicast()
    {
        return multicast;
    }

    /** Sender thread, once finished: the multicast stream stops. */
    void onFinished()
    {
        if (multicast != null)
        {
            multicast.close();
        }
    }

    /** Conductor: a subscriber connection attached; the sender thread starts it at the keeper's position. */
    void addCursor(final TopicCursor cursor)
    {
        newCursors.offer(cursor);
    }

    /** Conductor: the publication left the registry; no cursor will be added any more. */
    void unlisted()
    {
        unlisted = true;
    }

    /**
     * Sender thread: one duty cycle.
     *
     * @param nowNs  the cycle's clock.
     * @param sender frames and scratch space for encoding control frames.
     * @return work done.
     */
    int doWork(final long nowNs, final TopicSender sender)
    {
        published = publication.published();
        int work = keep();
        if (multicast != null)
        {
            // Before the cursors: they read what their receivers consumed of what the stream sent.
            work += multicast.doWork(nowNs, keeperPosition, keeperSequence);
        }
        TopicCursor added;
        while ((added = newCursors.poll()) != null)
        {
            added.start(keeperPosition, keeperSequence, nowNs);
            cursors.add(added);
            work++;
        }
        if (publication.isClosed() && closedSinceNs < 0)
        {
            closedSinceNs = nowNs;
        }
        int live = 0;
        for (int i = 0, size = cursors.size(); i < size; i++)
        {
            final TopicCursor cursor = cursors.get(i);
            work += cursor.send(nowNs, this, sender);
            if (!cursor.isReleased())
            {
                cursors.set(live++, cursor);
            }
        }
        for (int i = cursors.size() - 1; i >= live; i--)
        {
            cursors.remove(i);
        }
        updateLimit();
        work += publication.retryParked();
        subscriberCount = live;
        return work;
    }

    /** @return true once the publication is closed, unlisted and every cursor has detached. */
    boolean isFinished()
    {
        return unlisted && publication.isClosed() && cursors.isEmpty() && newCursors.isEmpty();
    }

    /** Reads newly published records into the last-value table; advances the keeper. */
    private int keep()
    {
        int work = 0;
        while (keeperPosition < published)
        {
            final int index = (int)(keeperPosition & mask);
            final int frameLength = LogRecords.frameLengthAt(log, index, capacity);
            if (frameLength < 0)
            {
                keeperPosition -= frameLength;
            }
            else
            {
                final int frame = index + LogRecords.HEADER_LENGTH;
                final long sequence = log.getLong(frame + FrameWriter.TOPIC_DATA_SEQUENCE_OFFSET, ByteOrder.LITTLE_ENDIAN);
                if (table != null)
                {
                    final long key = log.getLong(frame + FrameWriter.TOPIC_DATA_KEY_OFFSET, ByteOrder.LITTLE_ENDIAN);
                    table.put(key, sequence, log, frame + FrameWriter.TOPIC_DATA_HEADER_LENGTH,
                        frameLength - FrameWriter.TOPIC_DATA_HEADER_LENGTH);
                }
                keeperSequence = sequence;
                keeperPosition += LogRecords.HEADER_LENGTH + frameLength;
            }
            work++;
        }
        if (work > 0 && table != null)
        {
            retainedBytes = table.retainedBytes();
        }
        return work;
    }

    private void updateLimit()
    {
        long min = keeperPosition;
        for (int i = 0, size = cursors.size(); i < size; i++)
        {
            min = Math.min(min, cursors.get(i).position());
        }
        publication.limit(min + capacity);
        final long buffered = published - min;
        bufferedBytes = buffered;
        if (buffered > maxBufferedBytes)
        {
            maxBufferedBytes = buffered;
        }
    }

    // ------------------------------------------------------------------------------- for the cursors

    Publication publication()
    {
        return publication;
    }

    TopicSettings settings()
    {
        return settings;
    }

    SlowConsumerPolicy policy()
    {
        return policy;
    }

    MutableDirectBuffer log()
    {
        return log;
    }

    int mask()
    {
        return mask;
    }

    /** @return the position up to which the keeper has read: cursors send below it. */
    long keeperPosition()
    {
        return keeperPosition;
    }

    /** @return the sequence of the last record the keeper read: what a snapshot taken now reflects. */
    long keeperSequence()
    {
        return keeperSequence;
    }

    /** @return the writer's published position as of this cycle. */
    long published()
    {
        return published;
    }

    /** @return how far behind the published position a cursor may fall before DROP_SLOW or CONFLATE act. */
    long lagThreshold()
    {
        return lagThreshold;
    }

    /** @return the time the closed publication was first noticed, -1 while open. */
    long closedSinceNs()
    {
        return closedSinceNs;
    }

    /**
     * @param afterSequence 0 for every key.
     * @return the last value of each key published after the sequence; empty for an unkeyed topic.
     */
    LastValueTable.Entry[] snapshot(final long afterSequence)
    {
        return table == null ? new LastValueTable.Entry[0] : table.snapshot(afterSequence);
    }

    void onSlowConsumer()
    {
        slowConsumerEvents = slowConsumerEvents + 1; // single writer
    }

    // ------------------------------------------------------------------------------ statistics (any thread)

    long bufferedBytes()
    {
        return bufferedBytes;
    }

    long maxBufferedBytes()
    {
        return maxBufferedBytes;
    }

    long retainedBytes()
    {
        return retainedBytes;
    }

    int subscriberCount()
    {
        return subscriberCount;
    }

    long slowConsumerEvents()
    {
        return slowConsumerEvents;
    }
}
