package io.rivulet.topic;

import io.rivulet.protocol.datagram.multicast.MulticastReceiverState;
import io.rivulet.protocol.datagram.multicast.MulticastSender;
import io.rivulet.protocol.datagram.multicast.MulticastSenders;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;

/**
 * The multicast side of one publication (sender thread): its stream to its group ({@link MulticastSender}), which
 * sends the log's bytes up to the keeper once for every subscriber connection whose cursor handed over to it, and the
 * log's record boundaries a cursor can stand on.
 *
 * <p><b>Checkpoints.</b> A receiver reports the position it consumed; that is a record boundary if it is honest, but
 * it comes from the network. A cursor holds the log, and goes back to sending on its connection, only from a position
 * it knows is a boundary: the keeper's position at the end of a cycle, recorded here every {@code capacity / 256}
 * bytes or more (a ring of 1024, four laps of the log) with the sequence of the record before it. A cursor stands on
 * the last checkpoint at or below what its receiver consumed, so the log it holds is at most a checkpoint's spacing
 * longer than needed, and what it sends again after a fall-back is skipped by the subscriber's sequences.
 *
 * <p>Not thread-safe: the sender thread.
 */
final class PublicationMulticast implements MulticastSender.Source
{
    private static final Logger LOG = LoggerFactory.getLogger(PublicationMulticast.class);
    private static final int CHECKPOINTS = 1024;

    private final Publication publication;
    private final String group;
    private final byte[] groupBytes;
    private final MulticastSenders plane;
    private final DirectBuffer log;
    private final int capacity;
    private final long spacing;
    private final long[] checkpointPositions = new long[CHECKPOINTS];
    private final long[] checkpointSequences = new long[CHECKPOINTS];
    private int checkpointHead;
    private int checkpointCount;
    private MulticastSender stream;
    private byte[] sourceBytes;
    private long available;
    private String failure;

    PublicationMulticast(final Publication publication, final String group, final MulticastSenders plane)
    {
        this.publication = publication;
        this.group = group;
        this.groupBytes = group.getBytes(StandardCharsets.UTF_8);
        this.plane = plane;
        this.log = publication.logBuffer();
        this.capacity = publication.capacity();
        this.spacing = Math.max(64, capacity / 256);
    }

    /**
     * One cycle, after the keeper: records a checkpoint, opens the stream on first use, sends.
     *
     * @return work done.
     */
    int doWork(final long nowNs, final long keeperPosition, final long keeperSequence)
    {
        available = keeperPosition;
        checkpoint(keeperPosition, keeperSequence);
        if (failure != null)
        {
            return 0;
        }
        if (stream == null)
        {
            try
            {
                stream = plane.open(group, this, keeperPosition);
                sourceBytes = plane.localAddress().getBytes(StandardCharsets.UTF_8);
            }
            catch (final IllegalArgumentException ex)
            {
                fail("the datagram network refuses the group: " + ex.getMessage());
                return 0;
            }
        }
        final int work = stream.doWork(nowNs);
        if (stream.failure() != null)
        {
            fail(stream.failure());
        }
        return work;
    }

    private void fail(final String reason)
    {
        failure = reason;
        // Once per publication: its subscribers stay on their connections (per-path datagrams where both ends have them).
        LOG.warn("topic {}: multicast to group {} unavailable, its subscribers are served per path: {}",
            publication.topic(), group, reason);
    }

    /** @return true when cursors may hand their subscribers over to the group. */
    boolean isReady()
    {
        return failure == null && stream != null && stream.isJoined();
    }

    /** @return true once the group failed: cursors that handed over take their subscribers back. */
    boolean isFailed()
    {
        return failure != null;
    }

    MulticastSender stream()
    {
        return stream;
    }

    /** Adds a receiver for a cursor's connection, its stream starting at the cursor's position. */
    MulticastReceiverState addReceiver(final int peer, final long tag, final long position, final long nowNs)
    {
        return stream.addReceiver(peer, tag, position, nowNs);
    }

    void removeReceiver(final MulticastReceiverState receiver)
    {
        if (stream != null)
        {
            stream.removeReceiver(receiver);
        }
    }

    /** @return the receiver's handle for an address a subscriber node offered. */
    int resolve(final String address, final String remoteHost)
    {
        return plane.resolve(address, remoteHost);
    }

    byte[] groupBytes()
    {
        return groupBytes;
    }

    byte[] sourceBytes()
    {
        return sourceBytes;
    }

    String group()
    {
        return group;
    }

    /** The publication ended and no cursor needs the stream: it stops and leaves the group if it was the last. */
    void close()
    {
        if (stream != null)
        {
            plane.close(stream);
            stream = null;
        }
    }

    // ------------------------------------------------------------------------------------------- checkpoints

    private void checkpoint(final long position, final long sequence)
    {
        if (checkpointCount > 0)
        {
            final int newest = (checkpointHead + checkpointCount - 1) % CHECKPOINTS;
            if (position - checkpointPositions[newest] < spacing)
            {
                return;
            }
        }
        final int slot;
        if (checkpointCount < CHECKPOINTS)
        {
            slot = (checkpointHead + checkpointCount) % CHECKPOINTS;
            checkpointCount++;
        }
        else
        {
            slot = checkpointHead;
            checkpointHead = (checkpointHead + 1) % CHECKPOINTS;
        }
        checkpointPositions[slot] = position;
        checkpointSequences[slot] = sequence;
    }

    /**
     * @param position a position a receiver reported.
     * @return the index of the last checkpoint at or below it, or -1 when there is none.
     */
    int checkpointAtOrBelow(final long position)
    {
        int low = 0;
        int high = checkpointCount - 1;
        int found = -1;
        while (low <= high)
        {
            final int middle = (low + high) >>> 1;
            if (checkpointPositions[(checkpointHead + middle) % CHECKPOINTS] <= position)
            {
                found = middle;
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }
        return found < 0 ? -1 : (checkpointHead + found) % CHECKPOINTS;
    }

    long checkpointPosition(final int index)
    {
        return checkpointPositions[index];
    }

    /** @return the sequence of the last record before the checkpoint. */
    long checkpointSequence(final int index)
    {
        return checkpointSequences[index];
    }

    // ------------------------------------------------------------------------------------------- Source

    @Override
    public DirectBuffer buffer()
    {
        return log;
    }

    @Override
    public int capacity()
    {
        return capacity;
    }

    @Override
    public long available()
    {
        return available;
    }

    /** The writer stays below the limit the sender thread set: everything at or above {@code limit - capacity} holds. */
    @Override
    public long retained()
    {
        return publication.limit() - capacity;
    }
}
