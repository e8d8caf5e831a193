package io.rivulet.protocol;

import org.agrona.BufferUtil;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The node's spare outbound rings, so that connections that come and go reuse ring memory instead of asking the C
 * allocator for it each time. Freeing a 256 KiB ring explicitly gives it back to malloc, but glibc keeps such
 * chunks in its heap once its mmap threshold has risen past them, so a connect/close churn still grew the process
 * (10,000 cycles: +93 MB RSS with every ring freed). A ring comes back here when its connection is freed
 * ({@link Outbound#free()}), zeroed on reuse; beyond {@code maxIdle} spares of a size it is freed for real, and
 * once no connection has taken a ring for a second ({@link #trim}) the spares are freed too: a node that stopped
 * churning holds no more than it needs.
 *
 * <p>Conductor only: rings are taken when a connection starts or accepts SETUP and given back when it is freed.
 */
public final class RingPool
{
    private final int maxIdle;
    private final ArrayDeque<ByteBuffer> small = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> full = new ArrayDeque<>();
    private final int fullLength;
    private final NanoClock clock;
    private long lastTakeNs;
    private static final long IDLE_NS = TimeUnit.SECONDS.toNanos(1);

    /**
     * @param fullLength capacity of a full ring, in bytes (without the trailer).
     * @param maxIdle    spare rings of each size kept.
     * @param clock      the conductor's clock, for {@link #trim}.
     */
    public RingPool(final int fullLength, final int maxIdle, final NanoClock clock)
    {
        this.fullLength = fullLength;
        this.maxIdle = maxIdle;
        this.clock = clock;
        this.lastTakeNs = clock.nanoTime();
    }

    /** @return a pool that keeps nothing: every ring is allocated and freed (tests). */
    public static RingPool none()
    {
        return new RingPool(0, 0, System::nanoTime);
    }

    /** @return a zeroed buffer of {@code bytes}, reused when one is spare. */
    ByteBuffer take(final int bytes)
    {
        lastTakeNs = clock.nanoTime();
        final ArrayDeque<ByteBuffer> spares = spares(bytes);
        final ByteBuffer spare = spares == null ? null : spares.poll();
        if (spare == null)
        {
            return ByteBuffer.allocateDirect(bytes);
        }
        new UnsafeBuffer(spare).setMemory(0, spare.capacity(), (byte)0); // positions and record headers at 0
        return spare;
    }

    /** The buffer's ring is done: kept for reuse, or freed. */
    void give(final ByteBuffer buffer)
    {
        final ArrayDeque<ByteBuffer> spares = spares(buffer.capacity());
        if (spares != null && spares.size() < maxIdle)
        {
            spares.add(buffer);
        }
        else
        {
            BufferUtil.free(buffer);
        }
    }

    /**
     * Frees the spares once no ring was taken for a second.
     *
     * @param nowNs the conductor's clock.
     */
    public void trim(final long nowNs)
    {
        if (nowNs - lastTakeNs > IDLE_NS && idle() > 0)
        {
            ByteBuffer spare;
            while ((spare = small.poll()) != null)
            {
                BufferUtil.free(spare);
            }
            while ((spare = full.poll()) != null)
            {
                BufferUtil.free(spare);
            }
        }
    }

    /** @return the conductor's clock now: the outbound side times claims that block its ring with it. */
    long nanoTime()
    {
        return clock.nanoTime();
    }

    /** @return spare rings kept now (tests). */
    int idle()
    {
        return small.size() + full.size();
    }

    private ArrayDeque<ByteBuffer> spares(final int bytes)
    {
        if (bytes == Outbound.PRE_SETUP_RING_LENGTH + RingBufferDescriptor.TRAILER_LENGTH)
        {
            return small;
        }
        return bytes == fullLength + RingBufferDescriptor.TRAILER_LENGTH ? full : null;
    }
}
