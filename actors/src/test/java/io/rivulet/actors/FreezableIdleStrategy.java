package io.rivulet.actors;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The default back-off idle strategy, plus a switch that holds the engine thread inside {@code idle} — the
 * node goes silent without closing anything, like a hung or partitioned host, so only keepalive can tell.
 */
final class FreezableIdleStrategy implements IdleStrategy
{
    private final IdleStrategy delegate = new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1),
        TimeUnit.MILLISECONDS.toNanos(1));
    private volatile boolean frozen;

    void freeze()
    {
        frozen = true;
    }

    void thaw()
    {
        frozen = false;
    }

    @Override
    public void idle(final int workCount)
    {
        delegate.idle(workCount);
        holdWhileFrozen();
    }

    @Override
    public void idle()
    {
        delegate.idle();
        holdWhileFrozen();
    }

    @Override
    public void reset()
    {
        delegate.reset();
    }

    private void holdWhileFrozen()
    {
        while (frozen)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
