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

    /** @param ratePerSecond messages per second; 0 or less means no pacing. */
    public Pacer(final long ratePerSecond)
    {
        this.startNs = System.nanoTime();
        this.intervalNs = ratePerSecond > 0 ? 1e9 / ratePerSecond : 0;
    }

    /** Waits until message {@code index} (from 0) is due. */
    public void awaitSlot(final long index)
    {
        if (intervalNs == 0)
        {
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
