package io.rivulet.samples;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Formats round-trip times recorded in nanoseconds as the percentile lines the samples print.
 *
 * <p>Stateless and thread-safe.
 */
final class LatencyReport
{
    /** Highest round trip a histogram tracks; longer ones are clamped to it. */
    static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(10);

    private LatencyReport()
    {
    }

    /** @return a histogram for round trips in nanoseconds, 3 significant digits. */
    static Histogram newHistogram()
    {
        return new Histogram(HIGHEST_TRACKABLE_NS, 3);
    }

    /**
     * Records one round trip, clamped so an outlier (a GC pause, a stalled peer) never throws.
     *
     * @param histogram to record into.
     * @param nanos     the round trip.
     */
    static void record(final Histogram histogram, final long nanos)
    {
        histogram.recordValue(Math.min(Math.max(nanos, 0), HIGHEST_TRACKABLE_NS));
    }

    /**
     * Prints count, percentiles in microseconds and throughput.
     *
     * @param out       where to print.
     * @param indent    prefix of every line.
     * @param histogram round trips in nanoseconds.
     * @param elapsedNs wall time of the measured loop.
     */
    static void print(final PrintStream out, final String indent, final Histogram histogram, final long elapsedNs)
    {
        final long count = histogram.getTotalCount();
        out.printf(Locale.ROOT, "%sround trips   %,d in %.2f s%n", indent, count, elapsedNs / 1e9);
        out.printf(Locale.ROOT, "%slatency (us)  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n", indent,
            micros(histogram.getValueAtPercentile(50)), micros(histogram.getValueAtPercentile(90)),
            micros(histogram.getValueAtPercentile(99)), micros(histogram.getValueAtPercentile(99.9)),
            micros(histogram.getMaxValue()));
        out.printf(Locale.ROOT, "%smean          %s us%n", indent, micros((long)histogram.getMean()));
        out.printf(Locale.ROOT, "%sthroughput    %,.0f round trips/s (one in flight)%n", indent,
            elapsedNs > 0 ? count * 1e9 / elapsedNs : 0.0);
    }

    /** @return nanoseconds shown as microseconds with one decimal. */
    static String micros(final long nanos)
    {
        return String.format(Locale.ROOT, "%.1f", nanos / 1000.0);
    }
}
