package io.rivulet.protocol;

import org.agrona.BufferUtil;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The node's reassembly buffers: direct memory, outside the heap, and the spares among them, so that a message
 * collected from fragments grows into buffers that earlier messages gave back instead of allocating one at each
 * doubling. Buffers come in power-of-two size classes from {@value #MIN_LENGTH} bytes up to the maximum message
 * length (itself the last class when it is not a power of two); a {@link Reassembly} takes the next class as it grows
 * and gives back the one it outgrew, and both when it is released.
 *
 * <p>Why outside the heap: what a reassembly holds is the peer's, up to the node's memory budget, and lives as long
 * as the peer keeps its message unfinished. On the heap, a fragment flood (the soak's attack (a), 16 MiB/s) kept up
 * to a quarter of it full of such arrays: 85% of the node's allocation, young pauses copying the arrays that
 * survived, and concurrent cycles for the ones that did not, 3-10 ms each, over two hundred in two minutes, which were
 * the good client's p99. Off the heap the attacker's bytes never meet the collector.
 *
 * <p>Spares are bounded: beyond {@code maxIdleBytes} a buffer given back is freed at once ({@link BufferUtil#free}),
 * and once no buffer has been taken for a second ({@link #trim}) the spares are freed too, like the
 * {@link RingPool}'s. Spares are not charged to any connection: a reassembly's bytes are reserved in its
 * {@link ConnectionMemory} while it holds them. A buffer that some path forgot to give back is still freed, late, when
 * the collector finds it unreachable (a direct buffer's cleaner).
 *
 * <p>A spare is all zeroes: what the previous holder wrote is cleared when it is given back, so no message's bytes
 * are ever readable through the buffer of another, not even past the length it exposes.
 *
 * <p>Conductor only: reassemblies grow and are released while frames are read.
 */
public final class ReassemblyPool
{
    /** The smallest buffer: what a reassembly starts with. */
    static final int MIN_LENGTH = 256;
    /** The most a node keeps spare, whatever its memory budget. */
    static final long MAX_IDLE_BYTES = 4L * 1024 * 1024;
    /** The share of the node's memory budget it keeps spare, when that is less. */
    private static final int NODE_MEMORY_SHARE = 64;
    private static final long IDLE_NS = TimeUnit.SECONDS.toNanos(1);
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_LENGTH);

    private final int maxLength;
    private final long maxIdleBytes;
    private final ArrayDeque<ByteBuffer>[] spares;
    private final NanoClock clock;
    private long idleBytes;
    private long lastTakeNs;

    /**
     * @param maxLength    the longest message reassembled: the largest buffer.
     * @param maxIdleBytes bytes of spare buffers kept at most.
     * @param clock        the conductor's clock, for {@link #trim}.
     */
    @SuppressWarnings("unchecked")
    public ReassemblyPool(final int maxLength, final long maxIdleBytes, final NanoClock clock)
    {
        if (maxLength <= 0)
        {
            throw new IllegalArgumentException("maxLength must be positive: " + maxLength);
        }
        this.maxLength = maxLength;
        this.maxIdleBytes = maxIdleBytes;
        this.clock = clock;
        this.lastTakeNs = clock.nanoTime();
        int classes = 1;
        for (long length = MIN_LENGTH; length < maxLength; length <<= 1)
        {
            classes++;
        }
        spares = new ArrayDeque[classes];
        for (int i = 0; i < classes; i++)
        {
            spares[i] = new ArrayDeque<>();
        }
    }

    /**
     * @param maxLength     the longest message reassembled.
     * @param maxNodeMemory the node's memory budget.
     * @param clock         the conductor's clock.
     * @return the node's pool: it keeps a small share of the node's budget spare, at most {@link #MAX_IDLE_BYTES}.
     */
    public static ReassemblyPool forNode(final int maxLength, final long maxNodeMemory, final NanoClock clock)
    {
        return new ReassemblyPool(maxLength, Math.min(MAX_IDLE_BYTES, maxNodeMemory / NODE_MEMORY_SHARE), clock);
    }

    /**
     * @param required bytes a buffer must hold, at most the maximum length.
     * @return the smallest size class that holds them; {@code required} itself beyond the maximum length (a buffer
     *         the pool does not keep).
     */
    int capacityFor(final int required)
    {
        if (required >= maxLength)
        {
            return required;
        }
        if (required <= MIN_LENGTH)
        {
            return Math.min(MIN_LENGTH, maxLength);
        }
        final long powerOfTwo = 1L << (Long.SIZE - Long.numberOfLeadingZeros(required - 1L));
        return (int)Math.min(powerOfTwo, maxLength);
    }

    /**
     * @return a zeroed direct buffer of {@code length} bytes, a spare when its class has one; null when the JVM's
     *         direct memory ({@code -XX:MaxDirectMemorySize}) has no room for it.
     */
    ByteBuffer take(final int length)
    {
        lastTakeNs = clock.nanoTime();
        final int sizeClass = sizeClass(length);
        final ByteBuffer spare = sizeClass < 0 ? null : spares[sizeClass].pollLast();
        if (spare != null)
        {
            idleBytes -= length;
            return spare;
        }
        try
        {
            return ByteBuffer.allocateDirect(length); // zeroed by the JDK
        }
        catch (final OutOfMemoryError ex)
        {
            // "Cannot reserve ... direct buffer memory": the JDK's limit, not the heap, reached after the JDK itself
            // collected and retried (up to about half a second). Refused, like a growth over the budget.
            return null;
        }
    }

    /**
     * The buffer is no longer used: kept as a spare, zeroed, while there is room, else freed.
     *
     * @param buffer given back; one the pool never handed out (of no class) is freed all the same.
     * @param used   the bytes written to it, from 0: the rest is still zero.
     */
    void give(final ByteBuffer buffer, final int used)
    {
        final int length = buffer.capacity();
        final int sizeClass = sizeClass(length);
        if (sizeClass < 0 || idleBytes + length > maxIdleBytes)
        {
            BufferUtil.free(buffer);
            return;
        }
        if (used > 0)
        {
            new UnsafeBuffer(buffer).setMemory(0, used, (byte)0);
        }
        spares[sizeClass].addLast(buffer);
        idleBytes += length;
    }

    /**
     * Frees the spares once no buffer was taken for a second.
     *
     * @param nowNs the conductor's clock.
     */
    public void trim(final long nowNs)
    {
        if (nowNs - lastTakeNs > IDLE_NS && idleBytes > 0)
        {
            freeSpares();
        }
    }

    /** Frees the spares now: the node is closing. */
    public void freeSpares()
    {
        for (final ArrayDeque<ByteBuffer> sizeClass : spares)
        {
            ByteBuffer spare;
            while ((spare = sizeClass.pollLast()) != null)
            {
                BufferUtil.free(spare);
            }
        }
        idleBytes = 0;
    }

    /** @return bytes of spare buffers kept now (tests). */
    long idleBytes()
    {
        return idleBytes;
    }

    /** @return spare buffers kept now (tests). */
    int idle()
    {
        int idle = 0;
        for (final ArrayDeque<ByteBuffer> sizeClass : spares)
        {
            idle += sizeClass.size();
        }
        return idle;
    }

    /** @return the index of the class of buffers of {@code length} bytes, or -1 when no class has that length. */
    private int sizeClass(final int length)
    {
        if (length == maxLength)
        {
            return spares.length - 1;
        }
        if (length < MIN_LENGTH || length > maxLength || Integer.bitCount(length) != 1)
        {
            return -1;
        }
        return Integer.numberOfTrailingZeros(length) - MIN_SHIFT;
    }
}
