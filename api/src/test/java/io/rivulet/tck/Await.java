package io.rivulet.tck;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/**
 * Bounded polling, with a back-off idle strategy, for a condition other threads make true: for end-to-end
 * tests whose engines run on their own threads (protocol behaviour is stepped with an injected clock instead).
 */
public final class Await
{
    /** Generous: the suites must pass on a loaded 2-core machine; scaled by {@link TestTime}. */
    public static final long DEFAULT_TIMEOUT_NS = TestTime.nanos(30, TimeUnit.SECONDS);

    private Await()
    {
    }

    /**
     * @param what      what is awaited, for the failure message (its toString is taken only on failure).
     * @param condition polled until true, at most {@link #DEFAULT_TIMEOUT_NS}.
     */
    public static void until(final Object what, final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + DEFAULT_TIMEOUT_NS;
        final IdleStrategy idle = new BackoffIdleStrategy(10, 10, TimeUnit.MICROSECONDS.toNanos(10),
            TimeUnit.MILLISECONDS.toNanos(1));
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("timed out after " + TimeUnit.NANOSECONDS.toMillis(DEFAULT_TIMEOUT_NS) + " ms waiting until " + what);
            }
            idle.idle();
        }
    }
}
