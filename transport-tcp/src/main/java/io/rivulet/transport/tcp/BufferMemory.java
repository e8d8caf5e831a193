package io.rivulet.transport.tcp;

import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The direct memory of one driver's links and TLS sessions: allocates it, frees it explicitly (a dropped
 * direct buffer would otherwise wait for a GC, and thousands of short connections outrun the GC), counts it,
 * and shares out a budget for growth beyond what one frame needs.
 *
 * <p>Every buffer may grow to its <em>floor</em>, the length that holds one frame or record of the maximum
 * length, since nothing works with less. Growth past the floor only batches (more bytes per system call),
 * and draws on a driver-wide budget of {@link #maxGrowthBytes()}: once that is spent, buffers stay at their
 * floor and the links keep working, a little slower.
 *
 * <p>Thread-safe: the sender grows send buffers while the conductor grows receive buffers.
 */
final class BufferMemory
{
    private final long maxGrowthBytes;
    private final AtomicLong allocatedBytes = new AtomicLong();
    private final AtomicLong growthBytes = new AtomicLong();
    private final AtomicLong growthsRefused = new AtomicLong();

    /**
     * @param maxGrowthBytes how many bytes all buffers together may hold beyond their floors.
     */
    BufferMemory(final long maxGrowthBytes)
    {
        this.maxGrowthBytes = maxGrowthBytes;
    }

    /**
     * @param length of the buffer, at least 1.
     * @return a new direct buffer, counted until {@link #free}d.
     */
    ByteBuffer allocate(final int length)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(length);
        allocatedBytes.addAndGet(length);
        return buffer;
    }

    /**
     * Frees a buffer from {@link #allocate} at once. The caller guarantees that nothing uses it any more.
     *
     * @param buffer to free, or null.
     */
    void free(final ByteBuffer buffer)
    {
        if (null != buffer)
        {
            allocatedBytes.addAndGet(-buffer.capacity());
            BufferUtil.free(buffer);
        }
    }

    /**
     * Forgets a buffer that cannot be freed safely now (another thread may still be inside it): the GC frees
     * it once it is unreachable.
     *
     * @param buffer to forget, or null.
     */
    void abandon(final ByteBuffer buffer)
    {
        if (null != buffer)
        {
            allocatedBytes.addAndGet(-buffer.capacity());
        }
    }

    /**
     * Takes bytes beyond a floor from the budget.
     *
     * @param bytes to take.
     * @return false, counted, when the budget does not have them.
     */
    boolean reserveGrowth(final long bytes)
    {
        while (true)
        {
            final long current = growthBytes.get();
            if (current + bytes > maxGrowthBytes)
            {
                growthsRefused.incrementAndGet();
                return false;
            }
            if (growthBytes.compareAndSet(current, current + bytes))
            {
                return true;
            }
        }
    }

    /**
     * @param bytes given back to the budget.
     */
    void releaseGrowth(final long bytes)
    {
        growthBytes.addAndGet(-bytes);
    }

    /** @return direct bytes held now by the driver's links, TLS sessions and handshakes. */
    long allocatedBytes()
    {
        return allocatedBytes.get();
    }

    /** @return bytes held beyond the buffers' floors, at most {@link #maxGrowthBytes()}. */
    long growthBytes()
    {
        return growthBytes.get();
    }

    /** @return the budget for growth beyond the floors. */
    long maxGrowthBytes()
    {
        return maxGrowthBytes;
    }

    /** @return buffers that stayed within their floor because the budget was spent (each counted once). */
    long growthsRefused()
    {
        return growthsRefused.get();
    }
}
