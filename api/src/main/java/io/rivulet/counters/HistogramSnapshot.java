package io.rivulet.counters;

import org.agrona.DirectBuffer;

/**
 * The counts of a {@link LatencyHistogram} at one moment, read from a node file (possibly another process's) and
 * kept: the count, the maximum and percentiles. A percentile is the upper bound of the bucket it falls in (capped by
 * the maximum), so it is approximate: at most 12.5% above the true value, see {@link LatencyHistogram}.
 *
 * <p>Immutable, thread-safe.
 */
public final class HistogramSnapshot
{
    private final long[] buckets;
    private final long count;
    private final long maxNs;

    /**
     * @param buckets counts by bucket, {@link LatencyHistogram#BUCKET_COUNT} of them (copied).
     * @param maxNs   the largest value recorded.
     */
    public HistogramSnapshot(final long[] buckets, final long maxNs)
    {
        if (buckets.length != LatencyHistogram.BUCKET_COUNT)
        {
            throw new IllegalArgumentException(buckets.length + " buckets, expected " + LatencyHistogram.BUCKET_COUNT);
        }
        this.buckets = buckets.clone();
        long sum = 0;
        for (final long bucket : buckets)
        {
            sum += Math.max(0, bucket);
        }
        this.count = sum;
        this.maxNs = maxNs;
    }

    /**
     * Reads a histogram's slot with volatile loads: a value recorded while this runs may or may not be in it, and the
     * maximum may run ahead of the buckets by that value.
     *
     * @param buffer the histogram region.
     * @param offset of the histogram's slot.
     * @return the snapshot.
     */
    static HistogramSnapshot read(final DirectBuffer buffer, final int offset)
    {
        final org.agrona.concurrent.AtomicBuffer atomic = (org.agrona.concurrent.AtomicBuffer)buffer;
        final long[] buckets = new long[LatencyHistogram.BUCKET_COUNT];
        for (int i = 0; i < buckets.length; i++)
        {
            buckets[i] = atomic.getLongVolatile(offset + LatencyHistogram.BUCKETS_OFFSET + i * Long.BYTES);
        }
        return new HistogramSnapshot(buckets, atomic.getLongVolatile(offset + LatencyHistogram.MAX_OFFSET));
    }

    /** @return values recorded. */
    public long count()
    {
        return count;
    }

    /** @return the largest value recorded, in nanoseconds (exact); 0 when none was. */
    public long maxNs()
    {
        return count == 0 ? 0 : maxNs;
    }

    /** @return the count of one bucket. */
    public long bucketCount(final int bucket)
    {
        return buckets[bucket];
    }

    /**
     * @param percentile from 0 (exclusive) to 100.
     * @return an upper bound, in nanoseconds, of the value below which this percentage of the values lie: the upper
     * bound of the bucket holding the value of that rank, or the maximum when smaller; 0 when nothing was recorded.
     */
    public long percentileNs(final double percentile)
    {
        if (count == 0)
        {
            return 0;
        }
        // The rank of the value: ceil(p% of count), less a hair so that 99.9% of 1,000 is 999 and not 1,000.
        final long rank = Math.max(1, (long)Math.ceil(percentile * count / 100.0 - 1e-9));
        long seen = 0;
        for (int i = 0; i < buckets.length; i++)
        {
            seen += Math.max(0, buckets[i]);
            if (seen >= rank)
            {
                return Math.min(LatencyHistogram.upperBoundNs(i), Math.max(maxNs, LatencyHistogram.lowerBoundNs(i)));
            }
        }
        return maxNs;
    }
}
