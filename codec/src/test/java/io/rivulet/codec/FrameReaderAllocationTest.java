package io.rivulet.codec;

import io.rivulet.codec.TestFrames.Sample;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FrameReaderAllocationTest
{
    private static final int WARM_UP_WRAPS = 200_000;
    private static final int MEASURED_WRAPS = 1_000_000;
    private static final long ALLOCATION_BOUND = 16 * 1024;

    private com.sun.management.ThreadMXBean threads;

    @BeforeEach
    void enableAllocationCounting()
    {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean,
            "com.sun.management.ThreadMXBean not available");
        threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting not supported");
        if (!threads.isThreadAllocatedMemoryEnabled())
        {
            threads.setThreadAllocatedMemoryEnabled(true);
        }
    }

    @Test
    void shouldNotAllocateWhenWrappingValidFrames()
    {
        final List<Sample> samples = TestFrames.variety();
        final UnsafeBuffer[] buffers = new UnsafeBuffer[samples.size()];
        final int[] lengths = new int[samples.size()];
        for (int i = 0; i < buffers.length; i++)
        {
            buffers[i] = new UnsafeBuffer(samples.get(i).bytes());
            lengths[i] = samples.get(i).length();
        }
        final FrameReader reader = new FrameReader();

        final long warmUp = wrapAll(reader, buffers, lengths, WARM_UP_WRAPS);
        assertThat(warmUp).isEqualTo(WARM_UP_WRAPS);

        final long before = threads.getCurrentThreadAllocatedBytes();
        final long valid = wrapAll(reader, buffers, lengths, MEASURED_WRAPS);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(valid).isEqualTo(MEASURED_WRAPS);
        assertThat(allocated).as("bytes allocated by %d wraps", MEASURED_WRAPS).isLessThan(ALLOCATION_BOUND);
    }

    @Test
    void shouldNotAllocateWhenRejectingFrames()
    {
        final List<Sample> samples = TestFrames.oneOfEachType();
        final UnsafeBuffer[] buffers = new UnsafeBuffer[samples.size() * 3];
        final int[] lengths = new int[buffers.length];
        for (int i = 0; i < samples.size(); i++)
        {
            final byte[] frame = samples.get(i).bytes();
            buffers[3 * i] = new UnsafeBuffer(Arrays.copyOf(frame, frame.length - 1));
            lengths[3 * i] = frame.length - 1;
            final byte[] badSchema = frame.clone();
            TestFrames.putShort(badSchema, 4, 1);
            buffers[3 * i + 1] = new UnsafeBuffer(badSchema);
            lengths[3 * i + 1] = badSchema.length;
            final byte[] trailing = Arrays.copyOf(frame, frame.length + 2);
            buffers[3 * i + 2] = new UnsafeBuffer(trailing);
            lengths[3 * i + 2] = trailing.length;
        }
        final FrameReader reader = new FrameReader();

        assertThat(wrapAll(reader, buffers, lengths, WARM_UP_WRAPS)).isZero();

        final long before = threads.getCurrentThreadAllocatedBytes();
        final long valid = wrapAll(reader, buffers, lengths, MEASURED_WRAPS);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(valid).isZero();
        assertThat(allocated).as("bytes allocated by %d rejected wraps", MEASURED_WRAPS).isLessThan(ALLOCATION_BOUND);
    }

    @Test
    void shouldNotAllocateWhenWrappingOrRejectingDatagramOffers()
    {
        final List<Sample> valid = DatagramOfferCodecTest.samples();
        final List<byte[]> frames = new ArrayList<>();
        for (final Sample sample : valid)
        {
            frames.add(sample.bytes());
        }
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[512]);
        final byte[] address = "h:1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // One frame per rule, each rejected with its own reason.
        frames.add(Arrays.copyOf(scratch.byteArray(), writer.writeDatagramOffer(scratch, 0, 0, 1, 1024, 16, address)));
        frames.add(Arrays.copyOf(scratch.byteArray(), writer.writeDatagramOffer(scratch, 0, 7, 1, 63, 16, address)));
        frames.add(Arrays.copyOf(scratch.byteArray(), writer.writeDatagramOffer(scratch, 0, 7, 1, 1024, 3, address)));
        frames.add(Arrays.copyOf(scratch.byteArray(), writer.writeDatagramOffer(scratch, 0, 7, 1, 1024, 16, new byte[0])));
        frames.add(Arrays.copyOf(valid.get(0).bytes(), valid.get(0).length() - 1));
        final UnsafeBuffer[] buffers = new UnsafeBuffer[frames.size()];
        final int[] lengths = new int[frames.size()];
        for (int i = 0; i < buffers.length; i++)
        {
            buffers[i] = new UnsafeBuffer(frames.get(i));
            lengths[i] = frames.get(i).length;
        }
        final FrameReader reader = new FrameReader();
        final long expectedValid = (long)MEASURED_WRAPS / buffers.length * valid.size();

        wrapAll(reader, buffers, lengths, WARM_UP_WRAPS);

        final long before = threads.getCurrentThreadAllocatedBytes();
        final long accepted = wrapAll(reader, buffers, lengths, MEASURED_WRAPS);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(accepted).as("only the valid offers are accepted").isBetween(expectedValid, expectedValid + valid.size());
        assertThat(allocated).as("bytes allocated by %d offer wraps", MEASURED_WRAPS).isLessThan(ALLOCATION_BOUND);
    }

    private static long wrapAll(final FrameReader reader, final UnsafeBuffer[] buffers, final int[] lengths, final int count)
    {
        long valid = 0;
        int index = 0;
        for (int i = 0; i < count; i++)
        {
            if (reader.wrap(buffers[index], 0, lengths[index]))
            {
                valid++;
            }
            if (++index == buffers.length)
            {
                index = 0;
            }
        }
        return valid;
    }
}
