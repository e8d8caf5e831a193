package io.rivulet.bench.harness;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Deadlines for spinning waits, so a lost message fails the workload instead of hanging it. */
public final class Waits
{
    /** Longest a single reply may take before the workload fails. */
    public static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private Waits()
    {
    }

    /** @return a deadline {@link #TIMEOUT_NS} from now. */
    public static long deadline()
    {
        return System.nanoTime() + TIMEOUT_NS;
    }

    /**
     * Call every few thousand spins.
     *
     * @throws TimeoutException when the deadline has passed.
     */
    public static void check(final long deadlineNs, final String what) throws TimeoutException
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            throw new TimeoutException("no " + what + " within " + TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS) + " s");
        }
    }
}
