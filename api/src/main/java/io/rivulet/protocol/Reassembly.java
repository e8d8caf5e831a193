package io.rivulet.protocol;

import io.rivulet.Message;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Collects the fragments of one message. Memory grows with the bytes that actually arrive, never with a length the
 * peer claims, stops at the maximum message length, and is taken from the connection's {@link ConnectionMemory}
 * before it is allocated: a peer that opens many streams and never finishes their messages runs out of budget, not
 * the node out of heap. {@link #release()} gives it back; every path that drops a reassembly must call it.
 *
 * <p>Conductor only.
 */
final class Reassembly
{
    /** What {@link #append} did. */
    enum Result
    {
        APPENDED, MESSAGE_TOO_LONG, OVER_BUDGET
    }

    private static final int INITIAL_CAPACITY = 256;
    private static final byte[] EMPTY = new byte[0];

    private final int maxMessageLength;
    private final ConnectionMemory memory;
    private final UnsafeBuffer metadata = new UnsafeBuffer(EMPTY);
    private final UnsafeBuffer data = new UnsafeBuffer(EMPTY);
    private int metadataLength;
    private int dataLength;
    /** Bytes taken from the budget: the capacity of both buffers. */
    private long reserved;
    /** Why the last append was refused for memory. */
    private String refusal;

    Reassembly(final int maxMessageLength, final ConnectionMemory memory)
    {
        this.maxMessageLength = maxMessageLength;
        this.memory = memory;
    }

    /**
     * @return {@link Result#APPENDED}, or why not; after {@link Result#OVER_BUDGET}, {@link #refusal()} says why.
     */
    Result append(
        final DirectBuffer buffer,
        final int metadataOffset,
        final int metadataChunk,
        final int dataOffset,
        final int dataChunk)
    {
        if ((long)metadataLength + dataLength + metadataChunk + dataChunk > maxMessageLength)
        {
            return Result.MESSAGE_TOO_LONG;
        }
        if (!ensureCapacity(metadata, metadataLength + metadataChunk) ||
            !ensureCapacity(data, dataLength + dataChunk))
        {
            return Result.OVER_BUDGET;
        }
        if (metadataChunk > 0)
        {
            metadata.putBytes(metadataLength, buffer, metadataOffset, metadataChunk);
            metadataLength += metadataChunk;
        }
        if (dataChunk > 0)
        {
            data.putBytes(dataLength, buffer, dataOffset, dataChunk);
            dataLength += dataChunk;
        }
        return Result.APPENDED;
    }

    /** @return why the last append was refused for memory. */
    String refusal()
    {
        return refusal;
    }

    /** Gives the buffers' bytes back to the budget; the reassembly must not be used afterwards. */
    void release()
    {
        if (reserved > 0)
        {
            memory.release(reserved);
            reserved = 0;
        }
        metadata.wrap(EMPTY);
        data.wrap(EMPTY);
    }

    /** Doubles (at least to the need, at most to the message limit), reserving the growth first. */
    private boolean ensureCapacity(final UnsafeBuffer buffer, final int required)
    {
        final int capacity = buffer.capacity();
        if (required <= capacity)
        {
            return true;
        }
        final int grown = (int)Math.min(maxMessageLength,
            Math.max(required, Math.max(INITIAL_CAPACITY, 2L * capacity)));
        final String refused = memory.reserve(grown - capacity);
        if (refused != null)
        {
            refusal = refused;
            return false;
        }
        reserved += grown - capacity;
        final byte[] bytes = new byte[grown];
        buffer.getBytes(0, bytes, 0, buffer == metadata ? metadataLength : dataLength);
        buffer.wrap(bytes);
        return true;
    }

    /** @return an owned message holding exact copies of the collected bytes. */
    Message toMessage()
    {
        final byte[] d = new byte[dataLength];
        data.getBytes(0, d);
        final Message message = Message.of(d);
        if (metadataLength == 0)
        {
            return message;
        }
        final byte[] m = new byte[metadataLength];
        metadata.getBytes(0, m);
        return message.metadata(m);
    }

    DirectBuffer metadataBuffer()
    {
        return metadata;
    }

    DirectBuffer dataBuffer()
    {
        return data;
    }

    int metadataLength()
    {
        return metadataLength;
    }

    int dataLength()
    {
        return dataLength;
    }
}
