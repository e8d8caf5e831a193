package io.rivulet.transport.tcp.soak;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Round-trip times of one phase, kept exactly up to {@link #CAPACITY} samples (a 10-minute soak at the good client's
 * pace records about 300,000), then as a uniform reservoir sample of that many: percentiles stay unbiased and memory
 * stays bounded however long the run.
 *
 * <p>{@link #record(long, long)} corrects for coordinated omission, as HdrHistogram's
 * {@code recordValueWithExpectedInterval} does: a client that sends one request at a time every interval cannot send
 * while a reply is late, so a round trip of n intervals also records the n - 1 requests that would have waited
 * behind it (each an interval less). Without it a server that stalls for a second costs one slow sample instead of
 * the five hundred it delayed; {@link #record(long)} keeps the round trips as measured.
 *
 * <p>Thread-safe: the good client records while the test reads.
 */
final class LatencyRecorder
{
    static final int CAPACITY = 2_000_000;

    private long[] samples = new long[4096];
    private int size;
    private long count;
    private long maxNs;

    /**
     * @param nanos            one round trip.
     * @param expectedInterval the client's pace: the requests it could not send meanwhile are recorded too.
     */
    synchronized void record(final long nanos, final long expectedInterval)
    {
        add(nanos);
        // At most a minute's worth of corrections per round trip: the bound on the work one sample may cost.
        for (long missed = nanos - expectedInterval, i = 0; missed >= expectedInterval && i < 30_000;
            missed -= expectedInterval, i++)
        {
            add(missed);
        }
    }

    /** @param nanos one round trip, as measured. */
    synchronized void record(final long nanos)
    {
        add(nanos);
    }

    private void add(final long nanos)
    {
        count++;
        maxNs = Math.max(maxNs, nanos);
        if (size < CAPACITY)
        {
            if (size == samples.length)
            {
                samples = Arrays.copyOf(samples, Math.min(CAPACITY, samples.length * 2));
            }
            samples[size++] = nanos;
            return;
        }
        final long slot = ThreadLocalRandom.current().nextLong(count); // reservoir sampling (Vitter's R)
        if (slot < CAPACITY)
        {
            samples[(int)slot] = nanos;
        }
    }

    /** @return round trips recorded. */
    synchronized long count()
    {
        return count;
    }

    /** @return the longest round trip, in nanoseconds. */
    synchronized long maxNs()
    {
        return maxNs;
    }

    /**
     * @param percentile 0 to 100.
     * @return that percentile in nanoseconds (nearest rank), or 0 with no samples.
     */
    synchronized long percentileNs(final double percentile)
    {
        if (size == 0)
        {
            return 0;
        }
        final long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        final int rank = (int)Math.ceil(percentile / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))];
    }
}
