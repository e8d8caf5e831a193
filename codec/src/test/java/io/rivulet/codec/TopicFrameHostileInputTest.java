package io.rivulet.codec;

import io.rivulet.codec.TestFrames.Sample;
import io.rivulet.codec.wire.DetachReason;
import io.rivulet.codec.wire.GapReason;
import io.rivulet.codec.wire.SubscribeDecoder;
import io.rivulet.codec.wire.TopicAttachDecoder;
import io.rivulet.codec.wire.TopicDataDecoder;
import io.rivulet.codec.wire.TopicDetachDecoder;
import io.rivulet.codec.wire.TopicGapDecoder;
import io.rivulet.codec.wire.TopicHeartbeatDecoder;
import io.rivulet.codec.wire.TopicPolicy;
import io.rivulet.codec.wire.TopicSnapshotDecoder;
import io.rivulet.codec.wire.TopicStatusDecoder;
import io.rivulet.codec.wire.UnsubscribeDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static io.rivulet.codec.TestFrames.HEADER;
import static io.rivulet.codec.TestFrames.putShort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The topic frames are network input like every other frame: the same hostile-input discipline as
 * {@link FrameReaderHostileInputTest} (truncation, block and var-data lengths, trailing bytes, mutation
 * fuzzing, no allocation), plus the range checks of their own fields.
 */
class TopicFrameHostileInputTest
{
    private static final long SEED = 0x70_91C_F4AL;
    private static final int MUTATIONS = 100_000;

    private final FrameReader reader = new FrameReader();

    /** One valid frame of each topic type, var data non-empty. */
    static List<Sample> samples()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);
        final List<Sample> samples = new ArrayList<>();
        final byte[] data = TestFrames.pattern(11, 5);
        final UnsafeBuffer dataBuffer = new UnsafeBuffer(data);
        final byte[] topic = "md.quotes.EURUSD".getBytes(StandardCharsets.UTF_8);

        samples.add(sample("TOPIC_DATA", FrameType.TOPIC_DATA, scratch,
            writer.writeTopicData(scratch, 0, 1, 2, 3L, 4L, dataBuffer, 0, data.length)));
        samples.add(sample("SUBSCRIBE", FrameType.SUBSCRIBE, scratch,
            writer.writeSubscribe(scratch, 0, 1, 256, "md.>".getBytes(StandardCharsets.UTF_8))));
        samples.add(sample("UNSUBSCRIBE", FrameType.UNSUBSCRIBE, scratch, writer.writeUnsubscribe(scratch, 0, 1)));
        samples.add(sample("TOPIC_STATUS", FrameType.TOPIC_STATUS, scratch, writer.writeTopicStatus(scratch, 0, 1, 2, 64)));
        samples.add(sample("TOPIC_ATTACH", FrameType.TOPIC_ATTACH, scratch,
            writer.writeTopicAttach(scratch, 0, 1, 2, 3, TopicPolicy.DROP_SLOW.value(), 10L, 5, topic)));
        samples.add(sample("TOPIC_SNAPSHOT", FrameType.TOPIC_SNAPSHOT, scratch,
            writer.writeTopicSnapshot(scratch, 0, 1, 2, 3, 4L, 5L, dataBuffer, 0, data.length)));
        samples.add(sample("TOPIC_GAP", FrameType.TOPIC_GAP, scratch,
            writer.writeTopicGap(scratch, 0, 1, 2, 3L, 9L, GapReason.CONFLATED.value(), 2)));
        samples.add(sample("TOPIC_HEARTBEAT", FrameType.TOPIC_HEARTBEAT, scratch,
            writer.writeTopicHeartbeat(scratch, 0, 1, 2, 3L)));
        samples.add(sample("TOPIC_DETACH", FrameType.TOPIC_DETACH, scratch,
            writer.writeTopicDetach(scratch, 0, 1, 2, 3L, DetachReason.CLOSED.value(), "closed".getBytes(StandardCharsets.UTF_8))));
        return samples;
    }

    static List<Sample> varDataSamples()
    {
        final List<Sample> samples = new ArrayList<>();
        for (final Sample sample : samples())
        {
            if (varFieldOffset(sample) > 0)
            {
                samples.add(sample);
            }
        }
        return samples;
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectEveryTruncation(final Sample sample)
    {
        for (int length = 0; length < sample.length(); length++)
        {
            assertRejected(Arrays.copyOf(sample.bytes(), length), "truncated to " + length, null);
        }
        assertAccepted(sample.bytes());
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectShortAndOverlongBlockLengths(final Sample sample)
    {
        final int required = TestFrames.blockLength(sample.bytes());
        for (int blockLength = 0; blockLength < required; blockLength++)
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, blockLength);
            assertRejected(frame, "block length " + blockLength, "block length shorter than the frame type requires");
        }
        for (final int blockLength : new int[] { sample.length() - HEADER + 1, 0xFFFF })
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, blockLength);
            assertRejected(frame, "block length " + blockLength, "block length beyond the end of the frame");
        }
    }

    @ParameterizedTest
    @MethodSource("varDataSamples")
    void shouldRejectHostileVarDataLengths(final Sample sample)
    {
        final int field = varFieldOffset(sample);
        for (final int length : new int[] { 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, sample.length(), sample.length() - field - 3 })
        {
            final byte[] frame = sample.copy();
            TestFrames.putInt(frame, field, length);
            assertRejected(frame, "var length 0x" + Integer.toHexString(length), "var-data length beyond the end of the frame");
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectTrailingBytes(final Sample sample)
    {
        for (final int extra : new int[] { 1, 4, 64 })
        {
            assertRejected(Arrays.copyOf(sample.bytes(), sample.length() + extra), extra + " trailing bytes",
                "frame length does not match its contents");
        }
    }

    @Test
    void shouldRejectTopicNamesThatAreEmptyOrTooLong()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[2048]);
        for (final int length : new int[] { 0, FrameReader.MAX_TOPIC_LENGTH + 1, 1000 })
        {
            final byte[] name = new byte[length];
            Arrays.fill(name, (byte)'a');
            int frame = writer.writeSubscribe(scratch, 0, 1, 1, name);
            assertRejected(Arrays.copyOf(scratch.byteArray(), frame), "pattern of " + length, "topic name or pattern");
            frame = writer.writeTopicAttach(scratch, 0, 1, 1, 1, 0, 0L, 0, name);
            assertRejected(Arrays.copyOf(scratch.byteArray(), frame), "topic of " + length, "topic name or pattern");
        }
        final byte[] longest = new byte[FrameReader.MAX_TOPIC_LENGTH];
        Arrays.fill(longest, (byte)'a');
        final int frame = writer.writeSubscribe(scratch, 0, 1, 1, longest);
        assertAccepted(Arrays.copyOf(scratch.byteArray(), frame));
    }

    @Test
    void shouldRejectOutOfRangeFields()
    {
        // TOPIC_DATA: topic id and sequence positive.
        rejectPatched(FrameType.TOPIC_DATA, TopicDataDecoder.topicIdEncodingOffset(), 0);
        rejectPatched(FrameType.TOPIC_DATA, TopicDataDecoder.topicIdEncodingOffset(), -1);
        rejectPatchedLong(FrameType.TOPIC_DATA, TopicDataDecoder.sequenceEncodingOffset(), 0L);
        rejectPatchedLong(FrameType.TOPIC_DATA, TopicDataDecoder.sequenceEncodingOffset(), Long.MIN_VALUE);
        // SUBSCRIBE / UNSUBSCRIBE: subscription id positive, credits not negative.
        rejectPatched(FrameType.SUBSCRIBE, SubscribeDecoder.subscriptionIdEncodingOffset(), 0);
        rejectPatched(FrameType.SUBSCRIBE, SubscribeDecoder.initialCreditsEncodingOffset(), -1);
        rejectPatched(FrameType.UNSUBSCRIBE, UnsubscribeDecoder.subscriptionIdEncodingOffset(), -7);
        // TOPIC_STATUS.
        rejectPatched(FrameType.TOPIC_STATUS, TopicStatusDecoder.topicIdEncodingOffset(), 0);
        rejectPatched(FrameType.TOPIC_STATUS, TopicStatusDecoder.creditsEncodingOffset(), Integer.MIN_VALUE);
        // TOPIC_ATTACH: ids, policy, snapshot sequence and count.
        rejectPatched(FrameType.TOPIC_ATTACH, TopicAttachDecoder.subscriptionIdEncodingOffset(), 0);
        rejectPatched(FrameType.TOPIC_ATTACH, TopicAttachDecoder.topicIdEncodingOffset(), -1);
        rejectPatchedByte(FrameType.TOPIC_ATTACH, TopicAttachDecoder.policyEncodingOffset(), 3);
        rejectPatchedByte(FrameType.TOPIC_ATTACH, TopicAttachDecoder.policyEncodingOffset(), 255);
        rejectPatchedLong(FrameType.TOPIC_ATTACH, TopicAttachDecoder.snapshotSequenceEncodingOffset(), -1L);
        rejectPatched(FrameType.TOPIC_ATTACH, TopicAttachDecoder.snapshotCountEncodingOffset(), -1);
        // TOPIC_SNAPSHOT.
        rejectPatched(FrameType.TOPIC_SNAPSHOT, TopicSnapshotDecoder.subscriptionIdEncodingOffset(), -1);
        rejectPatchedLong(FrameType.TOPIC_SNAPSHOT, TopicSnapshotDecoder.sequenceEncodingOffset(), 0L);
        // TOPIC_GAP: 0 < from <= to, a known reason, entries not negative.
        rejectPatchedLong(FrameType.TOPIC_GAP, TopicGapDecoder.fromSequenceEncodingOffset(), 0L);
        rejectPatchedLong(FrameType.TOPIC_GAP, TopicGapDecoder.toSequenceEncodingOffset(), 2L);
        rejectPatchedByte(FrameType.TOPIC_GAP, TopicGapDecoder.reasonEncodingOffset(), 0);
        rejectPatchedByte(FrameType.TOPIC_GAP, TopicGapDecoder.reasonEncodingOffset(), 3);
        rejectPatched(FrameType.TOPIC_GAP, TopicGapDecoder.entriesEncodingOffset(), -1);
        // TOPIC_HEARTBEAT and TOPIC_DETACH.
        rejectPatchedLong(FrameType.TOPIC_HEARTBEAT, TopicHeartbeatDecoder.sequenceEncodingOffset(), -1L);
        rejectPatchedByte(FrameType.TOPIC_DETACH, TopicDetachDecoder.reasonEncodingOffset(), 0);
        rejectPatchedByte(FrameType.TOPIC_DETACH, TopicDetachDecoder.reasonEncodingOffset(), 6);
        rejectPatchedLong(FrameType.TOPIC_DETACH, TopicDetachDecoder.lastSequenceEncodingOffset(), -2L);
    }

    @Test
    void shouldNeverThrowNorEscapeTheFrameWhenMutated()
    {
        final List<Sample> samples = samples();
        final SplittableRandom random = new SplittableRandom(SEED);
        int accepted = 0;
        for (int i = 0; i < MUTATIONS; i++)
        {
            final Sample sample = samples.get(random.nextInt(samples.size()));
            final byte[] frame = mutate(sample.bytes(), random);
            final int offset = random.nextInt(4) == 0 ? 1 + random.nextInt(9) : 0;
            final byte[] bytes = new byte[offset + frame.length];
            System.arraycopy(frame, 0, bytes, offset, frame.length);
            final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
            final boolean ok;
            try
            {
                ok = reader.wrap(buffer, offset, frame.length);
            }
            catch (final Throwable ex)
            {
                throw new AssertionError("wrap threw on mutation " + i + " of " + sample, ex);
            }
            if (!ok)
            {
                assertThat(reader.error()).isNotNull();
                continue;
            }
            accepted++;
            final long dataEnd = (long)reader.dataOffset() + reader.dataLength();
            if (reader.dataOffset() < offset || dataEnd > offset + frame.length || reader.dataLength() < 0)
            {
                fail("accepted frame's data escapes it on mutation %d of %s", i, sample);
            }
            if (FrameType.isTopic(reader.frameType()) && reader.frameType() != FrameType.SUBSCRIBE &&
                reader.frameType() != FrameType.UNSUBSCRIBE && reader.topicId() <= 0)
            {
                fail("accepted a topic id of %d on mutation %d", reader.topicId(), i);
            }
            if (reader.dataLength() > 0)
            {
                buffer.getByte((int)dataEnd - 1);
            }
        }
        assertThat(accepted).as("some mutations stay valid").isPositive().isLessThan(MUTATIONS);
    }

    @Test
    void shouldNotAllocateWhenWrappingTopicFrames()
    {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads) ||
            !threads.isThreadAllocatedMemorySupported())
        {
            return;
        }
        threads.setThreadAllocatedMemoryEnabled(true);
        final List<Sample> samples = samples();
        final UnsafeBuffer[] buffers = samples.stream().map(s -> new UnsafeBuffer(s.bytes())).toArray(UnsafeBuffer[]::new);
        int valid = 0;
        for (int i = 0; i < 200_000; i++)
        {
            valid += reader.wrap(buffers[i % buffers.length], 0, buffers[i % buffers.length].capacity()) ? 1 : 0;
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++)
        {
            valid += reader.wrap(buffers[i % buffers.length], 0, buffers[i % buffers.length].capacity()) ? 1 : 0;
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(valid).isEqualTo(1_200_000);
        assertThat(allocated).isLessThan(16 * 1024);
    }

    private void rejectPatched(final int frameType, final int fieldOffset, final int value)
    {
        final byte[] frame = sampleOf(frameType).copy();
        TestFrames.putInt(frame, HEADER + fieldOffset, value);
        assertRejected(frame, FrameType.name(frameType) + " field at " + fieldOffset + " = " + value, null);
    }

    private void rejectPatchedLong(final int frameType, final int fieldOffset, final long value)
    {
        final byte[] frame = sampleOf(frameType).copy();
        new UnsafeBuffer(frame).putLong(HEADER + fieldOffset, value, ByteOrder.LITTLE_ENDIAN);
        assertRejected(frame, FrameType.name(frameType) + " field at " + fieldOffset + " = " + value, null);
    }

    private void rejectPatchedByte(final int frameType, final int fieldOffset, final int value)
    {
        final byte[] frame = sampleOf(frameType).copy();
        frame[HEADER + fieldOffset] = (byte)value;
        assertRejected(frame, FrameType.name(frameType) + " byte at " + fieldOffset + " = " + value, null);
    }

    private void assertAccepted(final byte[] frame)
    {
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, frame.length)).as("%s", reader.error()).isTrue();
    }

    private void assertRejected(final byte[] frame, final String what, final String reason)
    {
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, frame.length)).as("accepted %s", what).isFalse();
        assertThat(reader.error()).as(what).isNotNull();
        if (reason != null)
        {
            assertThat(reader.error()).as(what).contains(reason);
        }
    }

    private static Sample sampleOf(final int frameType)
    {
        return samples().stream().filter(s -> s.frameType() == frameType).findFirst().orElseThrow();
    }

    /** @return offset of the var-data length field, or 0 for frames without var data. */
    private static int varFieldOffset(final Sample sample)
    {
        switch (sample.frameType())
        {
            case 12: case 13: case 16: case 17: case 20:
                return HEADER + TestFrames.blockLength(sample.bytes());
            default:
                return 0;
        }
    }

    private static Sample sample(final String name, final int type, final UnsafeBuffer scratch, final int length)
    {
        return new Sample(name, type, Arrays.copyOf(scratch.byteArray(), length));
    }

    private static byte[] mutate(final byte[] original, final SplittableRandom random)
    {
        byte[] frame = original.clone();
        final int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++)
        {
            switch (random.nextInt(5))
            {
                case 0:
                    frame[random.nextInt(frame.length)] ^= (byte)(1 << random.nextInt(8));
                    break;
                case 1:
                    frame[random.nextInt(frame.length)] = (byte)random.nextInt(256);
                    break;
                case 2:
                    frame = Arrays.copyOf(frame, random.nextInt(frame.length + 1));
                    if (frame.length == 0)
                    {
                        return frame;
                    }
                    break;
                case 3:
                    frame = Arrays.copyOf(frame, frame.length + 1 + random.nextInt(8));
                    break;
                default:
                    if (frame.length >= HEADER + 4)
                    {
                        final int at = HEADER + random.nextInt(frame.length - HEADER - 3);
                        TestFrames.putInt(frame, at, random.nextInt());
                    }
            }
        }
        return frame;
    }
}
