package io.rivulet.actors;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/** Bounded polling for conditions other threads make true; no sleeps. */
final class Await
{
    static final long DEFAULT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private Await()
    {
    }

    static void until(final String what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + DEFAULT_TIMEOUT_NS;
        final IdleStrategy idle = new BackoffIdleStrategy(10, 10, TimeUnit.MICROSECONDS.toNanos(10),
            TimeUnit.MILLISECONDS.toNanos(1));
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("timed out waiting until " + what);
            }
            idle.idle();
        }
    }
}
