package io.rivulet.bench.harness;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Warms a workload up until its rate is steady, so that the measured run that follows does not catch the JIT,
 * the allocator or the transport still settling. A fixed count does not do: request-response through Reactor,
 * for one, ran several times faster after a long warm-up than after 20,000 exchanges.
 *
 * <p>The workload runs in chunks of {@code chunk} operations; chunks are grouped into windows of at least
 * {@code windowNs}, and each window's rate (operations per second) is kept. The warm-up ends when at least
 * {@code minOperations} have run for at least {@code minNs}, and the last {@code steadyWindows} windows' rates lie
 * within {@code tolerance} of each other ((fastest − slowest) ÷ fastest) and no lower than {@link #BEST_FRACTION}
 * of the fastest window so far, or when {@code maxNs} have passed: then
 * it is reported as not steady, and the report marks the row. The shortest time is there because a rate can rest
 * on a plateau and rise again (later JIT compilations, most likely): Rivulet's request-response through a Reactor
 * {@code flatMap} held about 300,000/s for a second and a half, then rose to 400,000-700,000/s, 2.5 to 5 s into
 * its warm-up on a 2-core machine. The fastest window is there because a rate can also collapse and stay down:
 * on a machine busy with other work, a row with spinning threads fell from 120,000/s to a steady 8,000/s (a
 * hand-off per scheduler time slice), which is steady but not warm. The rule is the same for every system; how
 * many operations it takes differs with the system's rate.
 *
 * <p>Not thread-safe: one per warm-up, on the measuring thread; the clock is injected for tests.
 */
public final class WarmUp
{
    /** Runs a number of the workload's operations. */
    @FunctionalInterface
    public interface Workload
    {
        /**
         * @param operations how many to run now.
         * @throws Exception when the workload fails.
         */
        void run(long operations) throws Exception;
    }

    /**
     * How a warm-up went.
     *
     * @param operations  operations run.
     * @param elapsedNs   time it took.
     * @param steady      whether the last windows agreed within the tolerance before the time bound.
     * @param windowRates every window's operations per second, in order.
     */
    public record Outcome(long operations, long elapsedNs, boolean steady, double[] windowRates)
    {
        /** @return the window rates as whole numbers, comma-separated, for a log line. */
        public String ratesText()
        {
            final StringBuilder text = new StringBuilder();
            for (final double rate : windowRates)
            {
                text.append(text.length() == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.0f", rate));
            }
            return text.toString();
        }
    }

    /** The agreeing windows must also reach this fraction of the fastest window so far: a collapse is not steady. */
    public static final double BEST_FRACTION = 0.8;

    private final long minOperations;
    private final long minNs;
    private final long chunk;
    private final long windowNs;
    private final int steadyWindows;
    private final double tolerance;
    private final long maxNs;
    private final LongSupplier clock;

    /**
     * @param minOperations operations to run at least, steady or not.
     * @param minNs         shortest warm-up, steady or not (0: none).
     * @param chunk         operations per call of the workload (the clock is read between calls).
     * @param windowNs      shortest window whose rate is compared.
     * @param steadyWindows how many consecutive windows must agree (at least 2).
     * @param tolerance     how far they may differ, as a fraction of the fastest (0.05: 5%).
     * @param maxNs         longest warm-up.
     * @param clock         nanosecond clock ({@code System::nanoTime}).
     */
    public WarmUp(
        final long minOperations,
        final long minNs,
        final long chunk,
        final long windowNs,
        final int steadyWindows,
        final double tolerance,
        final long maxNs,
        final LongSupplier clock)
    {
        if (chunk < 1 || steadyWindows < 2 || tolerance < 0 || windowNs < 1)
        {
            throw new IllegalArgumentException("chunk " + chunk + ", steady windows " + steadyWindows +
                ", tolerance " + tolerance + ", window " + windowNs + " ns");
        }
        this.minOperations = minOperations;
        this.minNs = minNs;
        this.chunk = chunk;
        this.windowNs = windowNs;
        this.steadyWindows = steadyWindows;
        this.tolerance = tolerance;
        this.maxNs = maxNs;
        this.clock = clock;
    }

    /**
     * Runs the workload until it is steady or the time is up.
     *
     * @param workload what to warm up.
     * @param progress where the operations run so far go.
     * @return how it went.
     * @throws Exception when the workload fails.
     */
    public Outcome run(final Workload workload, final Progress progress) throws Exception
    {
        double[] rates = new double[16];
        int windows = 0;
        long operations = 0;
        final long startNs = clock.getAsLong();
        long windowStartNs = startNs;
        long windowOperations = 0;
        while (true)
        {
            workload.run(chunk);
            operations += chunk;
            windowOperations += chunk;
            progress.update(operations);
            final long nowNs = clock.getAsLong();
            if (nowNs - windowStartNs >= windowNs)
            {
                if (windows == rates.length)
                {
                    rates = Arrays.copyOf(rates, windows * 2);
                }
                rates[windows++] = windowOperations * 1e9 / (nowNs - windowStartNs);
                windowStartNs = nowNs;
                windowOperations = 0;
                if (operations >= minOperations && nowNs - startNs >= minNs && steady(rates, windows))
                {
                    return new Outcome(operations, nowNs - startNs, true, Arrays.copyOf(rates, windows));
                }
            }
            if (nowNs - startNs >= maxNs && operations >= minOperations)
            {
                return new Outcome(operations, nowNs - startNs, false, Arrays.copyOf(rates, windows));
            }
        }
    }

    private boolean steady(final double[] rates, final int windows)
    {
        if (windows < steadyWindows)
        {
            return false;
        }
        double slowest = Double.MAX_VALUE;
        double fastest = 0;
        for (int i = windows - steadyWindows; i < windows; i++)
        {
            slowest = Math.min(slowest, rates[i]);
            fastest = Math.max(fastest, rates[i]);
        }
        double best = 0;
        for (int i = 0; i < windows; i++)
        {
            best = Math.max(best, rates[i]);
        }
        return fastest > 0 && (fastest - slowest) / fastest <= tolerance && slowest >= BEST_FRACTION * best;
    }
}
