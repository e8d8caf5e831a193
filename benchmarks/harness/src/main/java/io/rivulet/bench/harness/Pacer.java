package io.rivulet.bench.harness;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Spaces a publisher's messages at a fixed rate, for latency measured below saturation: message {@code i} is
 * sent no earlier than {@code start + i / rate}. Long waits park (a 2-core machine has no core to spin on);
 * the last stretch yields. A late message is sent at once, never skipped.
 *
 * <p>Not thread-safe: one per publishing thread and run.
 */
public final class Pacer
{
    private static final long PARK_MARGIN_NS = TimeUnit.MICROSECONDS.toNanos(80);

    private final long startNs;
    private final double intervalNs;
    private final long perTick;

    /** @param ratePerSecond messages per second; 0 or less means no pacing. */
    public Pacer(final long ratePerSecond)
    {
        this(ratePerSecond, 1);
    }

    private Pacer(final long ratePerSecond, final long perTick)
    {
        this.startNs = System.nanoTime();
        this.intervalNs = ratePerSecond > 0 ? 1e9 / ratePerSecond : 0;
        this.perTick = perTick;
    }

    /**
     * A pacer for measuring a publisher's CPU per message below saturation: messages are due in bursts, one every
     * {@code tickNs}, and the wait for a burst only parks. A per-message pacer at tens of thousands of messages a
     * second yields between messages, and that spinning would be most of the CPU measured.
     *
     * @param ratePerSecond messages per second on average; 0 or less means no pacing.
     */
    public static Pacer inTicks(final long ratePerSecond, final long tickNs)
    {
        return new Pacer(ratePerSecond, Math.max(1, ratePerSecond * tickNs / 1_000_000_000L));
    }

    /** Waits until message {@code index} (from 0) is due. */
    public void awaitSlot(final long index)
    {
        if (intervalNs == 0)
        {
            return;
        }
        if (perTick > 1)
        {
            final long dueNs = startNs + (long)((index - index % perTick) * intervalNs);
            long leftNs;
            while ((leftNs = dueNs - System.nanoTime()) > 0)
            {
                LockSupport.parkNanos(leftNs);
            }
            return;
        }
        final long dueNs = startNs + (long)(index * intervalNs);
        long leftNs;
        while ((leftNs = dueNs - System.nanoTime()) > 0)
        {
            if (leftNs > 2 * PARK_MARGIN_NS)
            {
                LockSupport.parkNanos(leftNs - PARK_MARGIN_NS);
            }
            else
            {
                Thread.yield();
            }
        }
    }
}
