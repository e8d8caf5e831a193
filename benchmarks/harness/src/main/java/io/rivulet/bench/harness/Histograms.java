package io.rivulet.bench.harness;

import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;

/**
 * Latency histograms in nanoseconds and their text form on the line protocol (HdrHistogram's compressed
 * encoding in Base64), so the coordinator gets every recorded value, not just a few percentiles.
 */
public final class Histograms
{
    /** Longest latency tracked; longer ones are clamped so an outlier never throws. */
    public static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(60);

    private Histograms()
    {
    }

    public static Histogram newHistogram()
    {
        return new Histogram(HIGHEST_TRACKABLE_NS, 3);
    }

    public static void record(final Histogram histogram, final long nanos)
    {
        histogram.recordValue(Math.min(Math.max(nanos, 1), HIGHEST_TRACKABLE_NS));
    }

    public static String encode(final Histogram histogram)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        final int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        final byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    public static Histogram decode(final String text)
    {
        try
        {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(text)), 0);
        }
        catch (final DataFormatException ex)
        {
            throw new IllegalArgumentException("bad histogram: " + ex.getMessage(), ex);
        }
    }
}
