package io.rivulet.protocol;

import org.agrona.concurrent.NanoClock;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The node's spare reassembly buffers, so that a message collected from fragments grows into arrays that earlier
 * messages gave back instead of allocating one at each doubling: under a fragment flood those doublings were most
 * of what the node allocated, and drove its GC pauses. Buffers come in power-of-two size classes from
 * {@value #MIN_LENGTH} bytes up to the maximum message length (itself the last class when it is not a power of two);
 * a {@link Reassembly} takes the next class as it grows and gives back the one it outgrew, and both when it is
 * released.
 *
 * <p>Spares are bounded: beyond {@code maxIdleBytes} an array given back is left to GC, and once no buffer has been
 * taken for a second ({@link #trim}) the spares are dropped too, like the {@link RingPool}'s. Spares are not charged
 * to any connection: a reassembly's bytes are reserved in its {@link ConnectionMemory} while it holds them, as before.
 *
 * <p>A spare is all zeroes: what the previous holder wrote is cleared when it is given back, so no message's bytes
 * are ever readable through the array of another, not even past the length it exposes.
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
    private final ArrayDeque<byte[]>[] spares;
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

    /** @return a zeroed array of {@code length} bytes, a spare when its class has one. */
    byte[] take(final int length)
    {
        lastTakeNs = clock.nanoTime();
        final int sizeClass = sizeClass(length);
        final byte[] spare = sizeClass < 0 ? null : spares[sizeClass].pollLast();
        if (spare == null)
        {
            return new byte[length];
        }
        idleBytes -= length;
        return spare;
    }

    /**
     * The array is no longer used: kept as a spare, zeroed, while there is room, else left to GC.
     *
     * @param array given back; an empty one is ignored.
     * @param used  the bytes written to it, from 0: the rest is still zero.
     */
    void give(final byte[] array, final int used)
    {
        final int length = array.length;
        final int sizeClass = sizeClass(length);
        if (sizeClass < 0 || idleBytes + length > maxIdleBytes)
        {
            return;
        }
        Arrays.fill(array, 0, used, (byte)0);
        spares[sizeClass].addLast(array);
        idleBytes += length;
    }

    /**
     * Drops the spares once no buffer was taken for a second.
     *
     * @param nowNs the conductor's clock.
     */
    public void trim(final long nowNs)
    {
        if (nowNs - lastTakeNs > IDLE_NS && idleBytes > 0)
        {
            for (final ArrayDeque<byte[]> sizeClass : spares)
            {
                sizeClass.clear();
            }
            idleBytes = 0;
        }
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
        for (final ArrayDeque<byte[]> sizeClass : spares)
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
