package io.rivulet.protocol.datagram.multicast;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A log in the topic log's format for the multicast tests: records {@code [frame length i32 LE | frame]}, a negative
 * length for bytes to skip (a record that did not fit before the end of the ring, or an aborted claim), fewer than 4
 * bytes at the end skipped with no length. A frame is {@code [sequence i64 LE | bytes]} where byte {@code k} is
 * {@code (sequence + k) & 0xFF}, so a receiver can check every byte. The writer never passes
 * {@code hold + capacity}, as the topic layer's limit works.
 */
final class TestLog implements MulticastSender.Source
{
    static final int HEADER = 4;

    private final UnsafeBuffer buffer;
    private final int capacity;
    private final int mask;
    private long tail;
    private long hold;
    private long nextSequence = 1;
    private long skips;

    TestLog(final int capacity)
    {
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
    }

    /** The lowest position some reader still needs: the writer stays within a capacity of it. */
    void hold(final long hold)
    {
        this.hold = hold;
    }

    /** @return the frame length of a sequence: mostly small, now and then longer than several datagrams. */
    static int frameLength(final long sequence)
    {
        return sequence % 500 == 0 ? 3000 : 8 + (int)(sequence * 7919 % 120);
    }

    /**
     * Writes the next sequence's record (and, every 997th sequence, an aborted claim before it).
     *
     * @return false when the hold does not leave room: nothing was written.
     */
    boolean write()
    {
        final long sequence = nextSequence;
        final int frameLength = frameLength(sequence);
        final boolean abort = sequence % 997 == 0;
        final int abortLength = abort ? HEADER + 40 : 0;
        long position = tail;
        final long needed = skipFor(position, abortLength) + abortLength;
        final long afterAbort = position + needed;
        final long total = needed + skipFor(afterAbort, HEADER + frameLength) + HEADER + frameLength;
        if (position + total > hold + capacity)
        {
            return false;
        }
        if (abort)
        {
            position = padToFit(position, abortLength);
            buffer.putInt((int)(position & mask), -abortLength, ByteOrder.LITTLE_ENDIAN);
            position += abortLength;
            skips++;
        }
        position = padToFit(position, HEADER + frameLength);
        final int index = (int)(position & mask);
        buffer.putInt(index, frameLength, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(index + HEADER, sequence, ByteOrder.LITTLE_ENDIAN);
        for (int k = 8; k < frameLength; k++)
        {
            buffer.putByte(index + HEADER + k, (byte)(sequence + k));
        }
        tail = position + HEADER + frameLength;
        nextSequence++;
        return true;
    }

    private long skipFor(final long position, final int recordLength)
    {
        if (recordLength == 0)
        {
            return 0;
        }
        final int toEnd = capacity - (int)(position & mask);
        return toEnd < recordLength ? toEnd : 0;
    }

    private long padToFit(final long position, final int recordLength)
    {
        final int toEnd = capacity - (int)(position & mask);
        if (toEnd >= recordLength)
        {
            return position;
        }
        if (toEnd >= HEADER)
        {
            buffer.putInt((int)(position & mask), -toEnd, ByteOrder.LITTLE_ENDIAN);
        }
        skips++;
        return position + toEnd;
    }

    /** Writes a record header that breaks the format (a hostile publisher), followed by {@code bytes} zeros. */
    void writeBroken(final int lengthField, final int bytes)
    {
        final int index = (int)(tail & mask);
        buffer.putInt(index, lengthField, ByteOrder.LITTLE_ENDIAN);
        buffer.setMemory(index + HEADER, bytes, (byte)0);
        tail += HEADER + bytes;
    }

    /** Checks a delivered frame. @return the sequence it holds. */
    static long check(final DirectBuffer frame, final int offset, final int length)
    {
        final long sequence = frame.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        if (length != frameLength(sequence))
        {
            throw new AssertionError("sequence " + sequence + " came with " + length + " bytes, not " +
                frameLength(sequence));
        }
        for (int k = 8; k < length; k++)
        {
            if (frame.getByte(offset + k) != (byte)(sequence + k))
            {
                throw new AssertionError("sequence " + sequence + ": byte " + k + " is wrong");
            }
        }
        return sequence;
    }

    /** @return the next sequence to write (one more than the last written). */
    long nextSequence()
    {
        return nextSequence;
    }

    long skips()
    {
        return skips;
    }

    @Override
    public DirectBuffer buffer()
    {
        return buffer;
    }

    @Override
    public int capacity()
    {
        return capacity;
    }

    @Override
    public long available()
    {
        return tail;
    }

    @Override
    public long retained()
    {
        return hold;
    }
}
