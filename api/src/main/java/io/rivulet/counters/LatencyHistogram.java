package io.rivulet.counters;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A fixed log-linear latency histogram kept in the node file's histogram region, so that another process reads it
 * without locks: powers of two of ~1 µs units ({@value #UNIT_SHIFT}-bit shift of nanoseconds, 1.024 µs), each split
 * into {@value #SUB_BUCKETS} linear sub-buckets, from 1 µs to ~69 s, then one overflow bucket. A bucket's width is at
 * most 1/8 of its lower bound: a percentile read from the buckets is within 12.5% above the true value.
 *
 * <pre>
 *  bucket b &lt; 8:          [b, b + 1) units                       (1.024 µs wide, up to 8.2 µs)
 *  bucket b &lt; 192:        e = b / 8 + 2, s = b % 8:  [(8 + s) &lt;&lt; (e - 3), (9 + s) &lt;&lt; (e - 3)) units
 *  bucket 192:            2^26 units (68.7 s) and above
 * </pre>
 *
 * <p>Each histogram's slot in the region (see {@link NodeFileLayout}): a long maximum in nanoseconds at
 * {@link #MAX_OFFSET}, then {@link #BUCKET_COUNT} long bucket counts from {@link #BUCKETS_OFFSET}.
 *
 * <p>Single writer: {@link #record(long)} must be called by one thread at a time (the node's conductor, which
 * completes every request-response); it does not allocate, increments one bucket with a plain read and a release
 * store, and stores the maximum when it grows. Readers ({@link HistogramSnapshot#read}) read with volatile loads.
 */
public final class LatencyHistogram
{
    /** Nanoseconds are shifted right by this much into units of 1.024 µs. */
    public static final int UNIT_SHIFT = 10;
    /** Sub-buckets per power of two, as a number of bits. */
    public static final int SUB_BUCKET_BITS = 3;
    /** Sub-buckets per power of two. */
    public static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    /** The highest power of two with buckets of its own: [2^25, 2^26) units, 34.4 s to 68.7 s. */
    public static final int MAX_EXPONENT = 25;
    /** The last bucket: everything from 2^(MAX_EXPONENT + 1) units up. */
    public static final int OVERFLOW_BUCKET = (MAX_EXPONENT - SUB_BUCKET_BITS + 2) * SUB_BUCKETS;
    /** Buckets per histogram, the overflow bucket included. */
    public static final int BUCKET_COUNT = OVERFLOW_BUCKET + 1;
    /** Offset in a histogram's slot of the largest value recorded, in nanoseconds. */
    public static final int MAX_OFFSET = 0;
    /** Offset in a histogram's slot of the first bucket count; counts are longs, in bucket order. */
    public static final int BUCKETS_OFFSET = 64;
    /** Bytes of one histogram's slot: its header and buckets, rounded up to a cache line. */
    public static final int LENGTH = align64(BUCKETS_OFFSET + BUCKET_COUNT * Long.BYTES);

    private final AtomicBuffer buffer;
    private final int offset;
    private long maxNs;

    /**
     * @param buffer the histogram region.
     * @param offset of this histogram's slot in it.
     */
    LatencyHistogram(final AtomicBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.maxNs = buffer.getLongVolatile(offset + MAX_OFFSET);
    }

    /** A histogram in a private buffer, for code that runs without a node file (unit tests). */
    public static LatencyHistogram detached()
    {
        return new LatencyHistogram(new org.agrona.concurrent.UnsafeBuffer(new byte[LENGTH]), 0);
    }

    /**
     * Records one value. Single writer; allocation-free.
     *
     * @param valueNs nanoseconds; a negative value counts as 0.
     */
    public void record(final long valueNs)
    {
        final int index = offset + BUCKETS_OFFSET + bucket(valueNs) * Long.BYTES;
        buffer.putLongRelease(index, buffer.getLong(index) + 1);
        if (valueNs > maxNs)
        {
            maxNs = valueNs;
            buffer.putLongRelease(offset + MAX_OFFSET, valueNs);
        }
    }

    /** @return a copy of the counts now, as a reader in another process would see them. */
    public HistogramSnapshot snapshot()
    {
        return HistogramSnapshot.read(buffer, offset);
    }

    /**
     * @param valueNs nanoseconds.
     * @return the bucket that counts the value.
     */
    public static int bucket(final long valueNs)
    {
        final long units = Math.max(0, valueNs) >>> UNIT_SHIFT;
        if (units < SUB_BUCKETS)
        {
            return (int)units;
        }
        final int exponent = 63 - Long.numberOfLeadingZeros(units);
        if (exponent > MAX_EXPONENT)
        {
            return OVERFLOW_BUCKET;
        }
        final int subBucket = (int)(units >>> (exponent - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1);
        return (exponent - SUB_BUCKET_BITS + 1) * SUB_BUCKETS + subBucket;
    }

    /**
     * @param bucket a bucket index.
     * @return the smallest value, in nanoseconds, the bucket counts.
     */
    public static long lowerBoundNs(final int bucket)
    {
        if (bucket < SUB_BUCKETS)
        {
            return (long)bucket << UNIT_SHIFT;
        }
        final int exponent = bucket / SUB_BUCKETS + SUB_BUCKET_BITS - 1;
        final long units = (long)(SUB_BUCKETS + bucket % SUB_BUCKETS) << (exponent - SUB_BUCKET_BITS);
        return units << UNIT_SHIFT;
    }

    /**
     * @param bucket a bucket index.
     * @return the value, in nanoseconds, just above the bucket (its exclusive upper bound); {@link Long#MAX_VALUE}
     * for the overflow bucket.
     */
    public static long upperBoundNs(final int bucket)
    {
        return bucket >= OVERFLOW_BUCKET ? Long.MAX_VALUE : lowerBoundNs(bucket + 1);
    }

    private static int align64(final int length)
    {
        return (length + 63) & ~63;
    }
}
