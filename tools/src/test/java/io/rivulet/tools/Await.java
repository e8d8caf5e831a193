package io.rivulet.tools;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits, with a generous bound for loaded machines, for a condition other threads make true. */
final class Await
{
    private static final long TIMEOUT_MS = 30_000;

    private Await()
    {
    }

    static void until(final String what, final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("timed out after " + TIMEOUT_MS + " ms waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }
}
