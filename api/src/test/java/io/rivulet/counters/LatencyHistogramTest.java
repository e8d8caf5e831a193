package io.rivulet.counters;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The latency histogram: its bucket math, percentiles from known samples, and a reader in another mapping. */
class LatencyHistogramTest
{
    @TempDir
    Path directory;

    @Test
    void bucketsAreLinearUpToEightUnitsThenEighthsOfEachPowerOfTwo()
    {
        assertThat(LatencyHistogram.bucket(-5)).isZero();
        assertThat(LatencyHistogram.bucket(0)).isZero();
        assertThat(LatencyHistogram.bucket(1_023)).isZero();
        assertThat(LatencyHistogram.bucket(1_024)).isEqualTo(1);
        assertThat(LatencyHistogram.bucket(8 * 1_024 - 1)).isEqualTo(7);
        assertThat(LatencyHistogram.bucket(8 * 1_024)).isEqualTo(8);
        assertThat(LatencyHistogram.bucket(9 * 1_024 - 1)).isEqualTo(8);
        assertThat(LatencyHistogram.bucket(9 * 1_024)).isEqualTo(9);
        assertThat(LatencyHistogram.bucket(16 * 1_024 - 1)).isEqualTo(15);
        assertThat(LatencyHistogram.bucket(16 * 1_024)).isEqualTo(16);
        assertThat(LatencyHistogram.bucket(18 * 1_024 - 1)).isEqualTo(16);
        assertThat(LatencyHistogram.bucket(18 * 1_024)).isEqualTo(17);
        assertThat(LatencyHistogram.bucket(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.OVERFLOW_BUCKET);
        assertThat(LatencyHistogram.bucket((1L << 26) << LatencyHistogram.UNIT_SHIFT))
            .isEqualTo(LatencyHistogram.OVERFLOW_BUCKET);
        assertThat(LatencyHistogram.bucket(((1L << 26) << LatencyHistogram.UNIT_SHIFT) - 1))
            .isEqualTo(LatencyHistogram.OVERFLOW_BUCKET - 1);
        assertThat(LatencyHistogram.upperBoundNs(LatencyHistogram.OVERFLOW_BUCKET - 1))
            .as("the last bucket before overflow reaches past a minute").isGreaterThan(TimeUnit.SECONDS.toNanos(60));
        assertThat(LatencyHistogram.upperBoundNs(LatencyHistogram.OVERFLOW_BUCKET)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void everyBucketStartsWhereThePreviousEndsAndIsAtMostAnEighthOfItsLowerBoundWide()
    {
        for (int b = 0; b < LatencyHistogram.OVERFLOW_BUCKET; b++)
        {
            final long lower = LatencyHistogram.lowerBoundNs(b);
            final long upper = LatencyHistogram.upperBoundNs(b);
            assertThat(LatencyHistogram.bucket(lower)).as("lower bound of %d", b).isEqualTo(b);
            assertThat(LatencyHistogram.bucket(upper - 1)).as("last value of %d", b).isEqualTo(b);
            assertThat(LatencyHistogram.bucket(upper)).as("upper bound of %d", b).isEqualTo(b + 1);
            if (b >= LatencyHistogram.SUB_BUCKETS)
            {
                assertThat(upper - lower).as("width of %d", b).isLessThanOrEqualTo(lower / 8);
            }
        }
    }

    @Test
    void percentilesAreTheUpperBoundsOfTheBucketsOfTheirRanksCappedByTheMaximum()
    {
        final LatencyHistogram histogram = LatencyHistogram.detached();
        assertThat(histogram.snapshot().count()).isZero();
        assertThat(histogram.snapshot().percentileNs(50)).isZero();
        for (int i = 0; i < 900; i++)
        {
            histogram.record(10_000); // 9 units: bucket 9, [9216, 10240) ns
        }
        for (int i = 0; i < 99; i++)
        {
            histogram.record(1_000_000); // 976 units: [960, 1024) units, i.e. [983040, 1048576) ns
        }
        histogram.record(3_000_000_000L);

        final HistogramSnapshot snapshot = histogram.snapshot();
        assertThat(snapshot.count()).isEqualTo(1_000);
        assertThat(snapshot.maxNs()).isEqualTo(3_000_000_000L);
        assertThat(snapshot.percentileNs(50)).isEqualTo(10_240);
        assertThat(snapshot.percentileNs(90)).as("rank 900 is the last 10 us value").isEqualTo(10_240);
        assertThat(snapshot.percentileNs(99)).isEqualTo(1_048_576);
        assertThat(snapshot.percentileNs(99.9)).as("rank 999 is the last 1 ms value").isEqualTo(1_048_576);
        assertThat(snapshot.percentileNs(100)).as("the top bucket, capped by the exact maximum")
            .isEqualTo(3_000_000_000L);
        assertThat(snapshot.bucketCount(9)).isEqualTo(900);
    }

    @Test
    void aSeparateMappingReadsTheLiveHistogramOfANodeFile() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "timed");
        try (NodeCounters counters = new NodeCounters(NodeFileWriter.create(file, "timed", 64, 4096, true));
             NodeFile reader = NodeFile.open(file))
        {
            assertThat(reader.version()).isEqualTo(NodeFileLayout.VERSION);
            assertThat(reader.histogram(NodeFileLayout.HISTOGRAM_REQUEST_RESPONSE).count()).isZero();
            assertThat(reader.histogram(NodeFileLayout.HISTOGRAM_COUNT)).as("no such histogram").isNull();

            final ConnectionCounters connection = counters.connectionCounters(7, "10.0.0.1:1");
            connection.onRequestResponseReply(50_000);
            connection.onRequestResponseReply(70_000);
            final HistogramSnapshot first = reader.histogram(NodeFileLayout.HISTOGRAM_REQUEST_RESPONSE);
            assertThat(first.count()).isEqualTo(2);
            assertThat(first.maxNs()).isEqualTo(70_000);

            counters.requestLatency.record(2_000_000);
            final HistogramSnapshot second = reader.histogram(NodeFileLayout.HISTOGRAM_REQUEST_RESPONSE);
            assertThat(second.count()).as("the reader sees values recorded after it opened").isEqualTo(3);
            assertThat(second.maxNs()).isEqualTo(2_000_000);
            assertThat(first.count()).as("a snapshot is a copy").isEqualTo(2);
        }
    }

    @Test
    void aVersionOneFileReadsWithoutHistogramsAndUnknownVersionsAndBucketsAreRefused() throws IOException
    {
        final Path file = NodeDirectory.fileFor(directory, "old");
        try (NodeFileWriter writer = NodeFileWriter.create(file, "old", 64, 4096, false))
        {
            writer.heartbeat(1);
        }
        writeInt(file, NodeFileLayout.VERSION_OFFSET, 1);
        try (NodeFile node = NodeFile.open(file))
        {
            assertThat(node.version()).isEqualTo(1);
            assertThat(node.nodeName()).isEqualTo("old");
            assertThat(node.histogram(NodeFileLayout.HISTOGRAM_REQUEST_RESPONSE)).isNull();
        }

        writeInt(file, NodeFileLayout.VERSION_OFFSET, NodeFileLayout.VERSION + 1);
        assertThatThrownBy(() -> NodeFile.open(file)).isInstanceOf(IOException.class)
            .hasMessageContaining("layout version " + (NodeFileLayout.VERSION + 1))
            .hasMessageContaining("written by a newer Rivulet");

        writeInt(file, NodeFileLayout.VERSION_OFFSET, NodeFileLayout.VERSION);
        final int histogramsOffset;
        try (NodeFile node = NodeFile.open(file))
        {
            assertThat(node.histogram(NodeFileLayout.HISTOGRAM_REQUEST_RESPONSE)).isNotNull();
        }
        try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "r"))
        {
            raw.seek(NodeFileLayout.HISTOGRAMS_OFFSET_OFFSET);
            histogramsOffset = Integer.reverseBytes(raw.readInt());
        }
        writeInt(file, histogramsOffset + NodeFileLayout.HISTOGRAM_BUCKETS_OFFSET, 7);
        assertThatThrownBy(() -> NodeFile.open(file)).isInstanceOf(IOException.class)
            .hasMessageContaining("histograms of 7 buckets");

        writeInt(file, histogramsOffset + NodeFileLayout.HISTOGRAM_BUCKETS_OFFSET, LatencyHistogram.BUCKET_COUNT);
        writeInt(file, histogramsOffset + NodeFileLayout.HISTOGRAM_COUNT_OFFSET, 1_000);
        assertThatThrownBy(() -> NodeFile.open(file)).isInstanceOf(IOException.class)
            .hasMessageContaining("histogram count out of range: 1000");

        writeInt(file, NodeFileLayout.HISTOGRAMS_LENGTH_OFFSET, Integer.MAX_VALUE);
        assertThatThrownBy(() -> NodeFile.open(file)).isInstanceOf(IOException.class)
            .hasMessageContaining("histogram region out of bounds");
    }

    /** Writes a little-endian int, as the node file holds them. */
    private static void writeInt(final Path file, final long position, final int value) throws IOException
    {
        try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw"))
        {
            raw.seek(position);
            raw.writeInt(Integer.reverseBytes(value));
        }
    }
}
