package io.rivulet.protocol;

import io.rivulet.Message;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Collects the fragments of one message. Memory grows with the bytes that actually arrive, never with a length the
 * peer claims, stops at the maximum message length, and is taken from the connection's {@link ConnectionMemory}
 * before it is allocated: a peer that opens many streams and never finishes their messages runs out of budget, not
 * the node out of heap. {@link #release()} gives it back; every path that drops a reassembly must call it.
 *
 * <p>Each of metadata and data is one direct buffer, outside the heap (the zero-copy handler reads them in place;
 * {@link #toMessage()} copies them out), grown a size class at a time from the node's {@link ReassemblyPool}: the
 * outgrown buffer goes back to the pool, and both go back on release, so a node reassembling message after message
 * reuses the same buffers instead of allocating at every doubling.
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

    private static final byte[] EMPTY = new byte[0];

    private final int maxMessageLength;
    private final ConnectionMemory memory;
    private final ReassemblyPool pool;
    private final UnsafeBuffer metadata = new UnsafeBuffer(EMPTY);
    private final UnsafeBuffer data = new UnsafeBuffer(EMPTY);
    private int metadataLength;
    private int dataLength;
    /** Bytes taken from the budget: the capacity of both buffers. */
    private long reserved;
    /** Why the last append was refused for memory. */
    private String refusal;

    Reassembly(final int maxMessageLength, final ConnectionMemory memory, final ReassemblyPool pool)
    {
        this.maxMessageLength = maxMessageLength;
        this.memory = memory;
        this.pool = pool;
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
        if (!ensureCapacity(metadata, metadataLength, metadataLength + metadataChunk) ||
            !ensureCapacity(data, dataLength, dataLength + dataChunk))
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

    /**
     * Gives the buffers back to the pool and their bytes back to the budget; the reassembly must not be used
     * afterwards (a second call does nothing).
     */
    void release()
    {
        if (reserved > 0)
        {
            memory.release(reserved);
            reserved = 0;
        }
        giveBack(metadata, metadataLength);
        giveBack(data, dataLength);
        metadataLength = 0;
        dataLength = 0;
    }

    /** Gives the pool's buffer behind the view back, if it has one, and leaves the view empty. */
    private void giveBack(final UnsafeBuffer view, final int used)
    {
        final ByteBuffer memory = view.byteBuffer(); // null while the view wraps the empty array
        view.wrap(EMPTY);
        if (memory != null)
        {
            pool.give(memory, used);
        }
    }

    /**
     * Grows to the pool's next size class that holds {@code required} (at most the message limit), reserving the
     * growth first; the {@code length} bytes collected so far move to the new buffer and the old one goes back.
     *
     * @return false when refused ({@link #refusal()} says why).
     */
    private boolean ensureCapacity(final UnsafeBuffer view, final int length, final int required)
    {
        final int capacity = view.capacity();
        if (required <= capacity)
        {
            return true;
        }
        final int grown = Math.min(maxMessageLength, pool.capacityFor(required));
        final String refused = memory.reserve(grown - capacity);
        if (refused != null)
        {
            refusal = refused;
            return false;
        }
        final ByteBuffer bytes = pool.take(grown);
        if (bytes == null)
        {
            memory.release(grown - capacity);
            refusal = "the JVM's direct memory (-XX:MaxDirectMemorySize) has no room for " + grown + " bytes";
            return false;
        }
        reserved += grown - capacity;
        if (length > 0)
        {
            bytes.put(0, view.byteBuffer(), 0, length);
        }
        giveBack(view, length);
        view.wrap(bytes);
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
