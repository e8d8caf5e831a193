package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramSettings;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The publisher's message store: each message is written once, into a fixed slot that leaves room for
 * a DATA header in front, and stays until every path has it acknowledged. Positions count messages from 0 and
 * never wrap. Not thread-safe.
 *
 * <p>Two ways to send from it. Copying endpoints: a path rewrites the header in place and the endpoint copies
 * header and payload (single thread, so the rewrite is safe). Endpoints with a send region
 * ({@link #DatagramRing(int, int, UnsafeBuffer)} over {@code DatagramEndpoint.allocateSendRegion}): the device
 * reads the payload from the slot itself, for every path, with each path's header gathered from elsewhere — the
 * message is stored once for all peers. The device reads after the post returns, so a slot is then released only
 * when every send that read it has completed ({@link #posted}, {@link #release(long, long)}).
 */
public final class DatagramRing
{
    /** {@link #append} result: every slot still waits for some path's acknowledgement. */
    public static final long BACK_PRESSURED = -1;

    private final UnsafeBuffer buffer;
    /** Sent in place: per slot, the endpoint's number of the last send that reads it (0 = none pending). */
    private final long[] lastSend;
    private final int slotLength;
    private final int capacity;
    private final int mask;
    private final int maxPayload;
    private long position;
    private long releasedPosition;

    /**
     * @param capacity   messages, a power of two.
     * @param maxPayload longest message.
     */
    public DatagramRing(final int capacity, final int maxPayload)
    {
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxPayload = maxPayload;
        this.slotLength = DatagramSettings.slotLength(maxPayload);
        this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity * slotLength, 64));
        this.lastSend = null;
    }

    /**
     * A ring in memory the endpoint sends from in place (its send region).
     *
     * @param capacity   messages, a power of two.
     * @param maxPayload longest message.
     * @param memory     at least {@link #bytesFor(int, int)} bytes.
     */
    public DatagramRing(final int capacity, final int maxPayload, final UnsafeBuffer memory)
    {
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxPayload = maxPayload;
        this.slotLength = DatagramSettings.slotLength(maxPayload);
        if (memory.capacity() < bytesFor(capacity, maxPayload))
        {
            throw new IllegalArgumentException("ring memory of " + memory.capacity() + " bytes, needs " +
                bytesFor(capacity, maxPayload));
        }
        this.buffer = memory;
        this.lastSend = new long[capacity];
    }

    /** @return the bytes a ring of this shape needs. */
    public static int bytesFor(final int capacity, final int maxPayload)
    {
        return capacity * DatagramSettings.slotLength(maxPayload);
    }

    /** @return true when the endpoint sends payloads from this ring's memory (no copy per send). */
    public boolean isSentInPlace()
    {
        return lastSend != null;
    }

    /** Sent in place: the endpoint's send number {@code send} reads the message at {@code position}. */
    public void posted(final long position, final long send)
    {
        lastSend[(int)(position & mask)] = send;
    }

    /**
     * Copies a message into the next slot.
     *
     * @return its position, or {@link #BACK_PRESSURED} when the ring is full.
     * @throws IllegalArgumentException when longer than the slot's payload.
     */
    public long append(final DirectBuffer source, final int offset, final int length)
    {
        if (length < 0 || length > maxPayload)
        {
            throw new IllegalArgumentException("message length " + length + " outside [0, " + maxPayload + "]");
        }
        if (position - releasedPosition >= capacity)
        {
            return BACK_PRESSURED;
        }
        final int slot = slotOffset(position);
        buffer.putBytes(slot + DatagramHeader.DATA_HEADER_LENGTH, source, offset, length);
        buffer.putInt(slot + DatagramHeader.PAYLOAD_LENGTH_OFFSET, length, DatagramHeader.ORDER);
        return position++;
    }

    /**
     * Where the next message's payload goes when it is written in place, a piece at a time, instead of
     * copied by {@link #append}; {@link #commit} then publishes it. Check {@link #remaining()} first.
     *
     * @return the offset in {@link #buffer()} of the next slot's payload.
     */
    public int nextPayloadOffset()
    {
        return slotOffset(position) + DatagramHeader.DATA_HEADER_LENGTH;
    }

    /**
     * Publishes the message written in place at {@link #nextPayloadOffset()}.
     *
     * @param length of the payload written.
     * @return its position.
     * @throws IllegalStateException when the ring is full (the caller did not check {@link #remaining()}).
     */
    public long commit(final int length)
    {
        if (length < 0 || length > maxPayload)
        {
            throw new IllegalArgumentException("message length " + length + " outside [0, " + maxPayload + "]");
        }
        if (position - releasedPosition >= capacity)
        {
            throw new IllegalStateException("ring full: " + capacity + " messages wait for acknowledgement");
        }
        buffer.putInt(slotOffset(position) + DatagramHeader.PAYLOAD_LENGTH_OFFSET, length, DatagramHeader.ORDER);
        return position++;
    }

    /** @return the longest payload a slot holds. */
    public int maxPayload()
    {
        return maxPayload;
    }

    /** Frees every slot below {@code upTo} (what all paths acknowledged); for rings not sent in place. */
    public void release(final long upTo)
    {
        if (lastSend != null)
        {
            throw new IllegalStateException("a ring sent in place is released with the endpoint's completed sends");
        }
        if (upTo > releasedPosition)
        {
            releasedPosition = Math.min(upTo, position);
        }
    }

    /**
     * Frees the slots below {@code upTo} (what all paths acknowledged) whose sends have all completed: an
     * acknowledged message may still be read by a retransmission in flight.
     *
     * @param completedSends the endpoint's {@code sendsCompleted()}.
     */
    public void release(final long upTo, final long completedSends)
    {
        if (lastSend == null)
        {
            release(upTo);
            return;
        }
        final long limit = Math.min(upTo, position);
        while (releasedPosition < limit && lastSend[(int)(releasedPosition & mask)] <= completedSends)
        {
            lastSend[(int)(releasedPosition & mask)] = 0;
            releasedPosition++;
        }
    }

    /** @return the position the next message gets. */
    public long position()
    {
        return position;
    }

    /** @return the lowest position still held. */
    public long releasedPosition()
    {
        return releasedPosition;
    }

    /** @return free slots. */
    public int remaining()
    {
        return capacity - (int)(position - releasedPosition);
    }

    public int capacity()
    {
        return capacity;
    }

    /** @return the slot holding a position: DATA header space, then the payload. */
    public int slotOffset(final long position)
    {
        return (int)(position & mask) * slotLength;
    }

    /** @return the payload length of the message at a held position. */
    public int payloadLength(final long position)
    {
        return buffer.getInt(slotOffset(position) + DatagramHeader.PAYLOAD_LENGTH_OFFSET, DatagramHeader.ORDER);
    }

    /** @return the ring's memory (header rewrites in place by one path at a time, same thread). */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }
}
