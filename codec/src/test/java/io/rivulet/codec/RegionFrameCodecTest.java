package io.rivulet.codec;

import io.rivulet.codec.TestFrames.Sample;
import io.rivulet.codec.wire.RegionErrorDecoder;
import io.rivulet.codec.wire.RegionInfoDecoder;
import io.rivulet.codec.wire.RegionLookupDecoder;
import io.rivulet.codec.wire.RegionOpDecoder;
import io.rivulet.codec.wire.RegionOpResultDecoder;
import io.rivulet.codec.wire.RegionRevokedDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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
 * The one-sided remote memory frames (21..26): every field survives a round trip, and as network input they get
 * the same hostile-input discipline as the other frames (truncation, block and var-data lengths, trailing bytes,
 * range checks of their own fields, the shape of each operation, mutation fuzzing).
 */
class RegionFrameCodecTest
{
    private static final long SEED = 0x5E_610AL;
    private static final int MUTATIONS = 100_000;

    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[4096]);

    static List<Sample> samples()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);
        final UnsafeBuffer data = new UnsafeBuffer(TestFrames.pattern(24, 3));
        final List<Sample> samples = new ArrayList<>();
        samples.add(sample("REGION_LOOKUP", FrameType.REGION_LOOKUP, scratch,
            writer.writeRegionLookup(scratch, 0, 7L, utf8("kv.table"))));
        samples.add(sample("REGION_INFO", FrameType.REGION_INFO, scratch,
            writer.writeRegionInfo(scratch, 0, 7L, 3, 0x1234, 0x7f00_0000_1000L, 65536L, 5, utf8("127.0.0.1:4000"))));
        samples.add(sample("REGION_ERROR", FrameType.REGION_ERROR, scratch,
            writer.writeRegionError(scratch, 0, 7L, 1, utf8("no region 'x'"))));
        samples.add(sample("REGION_REVOKED", FrameType.REGION_REVOKED, scratch, writer.writeRegionRevoked(scratch, 0, 3)));
        samples.add(sample("REGION_OP write", FrameType.REGION_OP, scratch,
            writer.writeRegionOp(scratch, 0, 8L, 3, 0x1234, FrameReader.REGION_OP_WRITE, 64L, 24, 0L, 0L, data, 0, 24)));
        samples.add(sample("REGION_OP_RESULT", FrameType.REGION_OP_RESULT, scratch,
            writer.writeRegionOpResult(scratch, 0, 8L, 42L, data, 0, 24)));
        return samples;
    }

    @Test
    void shouldRoundTripEveryRegionFrame()
    {
        int length = writer.writeRegionLookup(scratch, 0, 11L, utf8("book"));
        assertThat(length).isEqualTo(FrameWriter.regionLookupLength(4));
        wrap(length);
        assertThat(reader.frameType()).isEqualTo(FrameType.REGION_LOOKUP);
        assertThat(reader.requestId()).isEqualTo(11L);
        assertThat(reader.text()).isEqualTo("book");
        assertThat(reader.streamId()).isZero();

        length = writer.writeRegionInfo(scratch, 0, 12L, 9, -5, Long.MAX_VALUE - 7, Integer.MAX_VALUE, 7, utf8("h:1"));
        assertThat(length).isEqualTo(FrameWriter.regionInfoLength(3));
        wrap(length);
        assertThat(reader.frameType()).isEqualTo(FrameType.REGION_INFO);
        assertThat(reader.requestId()).isEqualTo(12L);
        assertThat(reader.regionId()).isEqualTo(9);
        assertThat(reader.rkey()).isEqualTo(-5);
        assertThat(reader.address()).isEqualTo(Long.MAX_VALUE - 7);
        assertThat(reader.regionLength()).isEqualTo(Integer.MAX_VALUE);
        assertThat(reader.access()).isEqualTo(7);
        assertThat(reader.text()).isEqualTo("h:1");

        length = writer.writeRegionInfo(scratch, 0, 12L, 9, 1, 0L, 8L, 1, new byte[0]);
        wrap(length);
        assertThat(reader.dataLength()).as("TCP gives no endpoint").isZero();

        length = writer.writeRegionError(scratch, 0, 13L, FrameReader.MAX_REGION_ERROR, utf8("nope"));
        assertThat(length).isEqualTo(FrameWriter.regionErrorLength(4));
        wrap(length);
        assertThat(reader.errorCode()).isEqualTo(FrameReader.MAX_REGION_ERROR);
        assertThat(reader.text()).isEqualTo("nope");

        length = writer.writeRegionRevoked(scratch, 0, 44);
        assertThat(length).isEqualTo(FrameWriter.regionRevokedLength());
        wrap(length);
        assertThat(reader.regionId()).isEqualTo(44);

        length = writer.writeRegionOp(scratch, 0, 14L, 2, 77, FrameReader.REGION_OP_COMPARE_AND_SWAP, 4088L, 8,
            -1L, Long.MIN_VALUE, null, 0, 0);
        assertThat(length).isEqualTo(FrameWriter.regionOpLength(0));
        wrap(length);
        assertThat(reader.requestId()).isEqualTo(14L);
        assertThat(reader.regionId()).isEqualTo(2);
        assertThat(reader.rkey()).isEqualTo(77);
        assertThat(reader.op()).isEqualTo(FrameReader.REGION_OP_COMPARE_AND_SWAP);
        assertThat(reader.regionOffset()).isEqualTo(4088L);
        assertThat(reader.opLength()).isEqualTo(8);
        assertThat(reader.compareAdd()).isEqualTo(-1L);
        assertThat(reader.swap()).isEqualTo(Long.MIN_VALUE);

        final byte[] bytes = TestFrames.pattern(100, 9);
        length = writer.writeRegionOpResult(scratch, 0, 15L, -3L, new UnsafeBuffer(bytes), 0, bytes.length);
        assertThat(length).isEqualTo(FrameWriter.regionOpResultLength(100));
        wrap(length);
        assertThat(reader.value()).isEqualTo(-3L);
        final byte[] read = new byte[reader.dataLength()];
        reader.buffer().getBytes(reader.dataOffset(), read);
        assertThat(read).isEqualTo(bytes);

        for (int type = 20; type <= 27; type++)
        {
            assertThat(FrameType.isRegion(type)).as(FrameType.name(type)).isEqualTo(type >= 21 && type <= 26);
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectEveryTruncationAndTrailingBytes(final Sample sample)
    {
        for (int length = 0; length < sample.length(); length++)
        {
            assertRejected(Arrays.copyOf(sample.bytes(), length), "truncated to " + length, null);
        }
        for (final int extra : new int[] { 1, 8 })
        {
            assertRejected(Arrays.copyOf(sample.bytes(), sample.length() + extra), extra + " trailing bytes",
                "frame length does not match its contents");
        }
        assertAccepted(sample.bytes());
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectShortAndOverlongBlockLengthsAndHostileVarLengths(final Sample sample)
    {
        final int required = TestFrames.blockLength(sample.bytes());
        for (int blockLength = 0; blockLength < required; blockLength++)
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, blockLength);
            assertRejected(frame, "block length " + blockLength, "block length shorter than the frame type requires");
        }
        final byte[] overlong = sample.copy();
        putShort(overlong, 0, 0xFFFF);
        assertRejected(overlong, "block length 0xFFFF", "block length beyond the end of the frame");
        if (sample.frameType() != FrameType.REGION_REVOKED)
        {
            for (final int length : new int[] { 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, sample.length() })
            {
                final byte[] frame = sample.copy();
                TestFrames.putInt(frame, HEADER + required, length);
                assertRejected(frame, "var length 0x" + Integer.toHexString(length), "var-data length beyond the end");
            }
        }
    }

    @Test
    void shouldRejectOutOfRangeFields()
    {
        rejectLong(FrameType.REGION_LOOKUP, RegionLookupDecoder.requestIdEncodingOffset(), 0L);
        rejectLong(FrameType.REGION_LOOKUP, RegionLookupDecoder.requestIdEncodingOffset(), -1L);
        rejectLong(FrameType.REGION_INFO, RegionInfoDecoder.requestIdEncodingOffset(), 0L);
        rejectInt(FrameType.REGION_INFO, RegionInfoDecoder.regionIdEncodingOffset(), 0);
        rejectLong(FrameType.REGION_INFO, RegionInfoDecoder.lengthEncodingOffset(), 0L);
        rejectLong(FrameType.REGION_INFO, RegionInfoDecoder.lengthEncodingOffset(), -4096L);
        rejectLong(FrameType.REGION_INFO, RegionInfoDecoder.lengthEncodingOffset(), Integer.MAX_VALUE + 1L);
        rejectByte(FrameType.REGION_INFO, RegionInfoDecoder.accessEncodingOffset(), 0);
        rejectByte(FrameType.REGION_INFO, RegionInfoDecoder.accessEncodingOffset(), 8);
        rejectByte(FrameType.REGION_INFO, RegionInfoDecoder.accessEncodingOffset(), 255);
        rejectLong(FrameType.REGION_ERROR, RegionErrorDecoder.requestIdEncodingOffset(), 0L);
        rejectByte(FrameType.REGION_ERROR, RegionErrorDecoder.codeEncodingOffset(), 0);
        rejectByte(FrameType.REGION_ERROR, RegionErrorDecoder.codeEncodingOffset(), FrameReader.MAX_REGION_ERROR + 1);
        rejectInt(FrameType.REGION_REVOKED, RegionRevokedDecoder.regionIdEncodingOffset(), 0);
        rejectInt(FrameType.REGION_REVOKED, RegionRevokedDecoder.regionIdEncodingOffset(), Integer.MIN_VALUE);
        rejectLong(FrameType.REGION_OP, RegionOpDecoder.requestIdEncodingOffset(), 0L);
        rejectInt(FrameType.REGION_OP, RegionOpDecoder.regionIdEncodingOffset(), -3);
        rejectByte(FrameType.REGION_OP, RegionOpDecoder.opEncodingOffset(), 0);
        rejectByte(FrameType.REGION_OP, RegionOpDecoder.opEncodingOffset(), 5);
        rejectLong(FrameType.REGION_OP, RegionOpDecoder.regionOffsetEncodingOffset(), -1L);
        rejectInt(FrameType.REGION_OP, RegionOpDecoder.lengthEncodingOffset(), 0);
        rejectInt(FrameType.REGION_OP, RegionOpDecoder.lengthEncodingOffset(), -24);
        rejectLong(FrameType.REGION_OP_RESULT, RegionOpResultDecoder.requestIdEncodingOffset(), -9L);
    }

    @Test
    void shouldRejectOperationsWhoseLengthDoesNotFitTheirShape()
    {
        final UnsafeBuffer data = new UnsafeBuffer(new byte[16]);
        // WRITE: length must equal the bytes carried.
        assertRejectedWritten(writer.writeRegionOp(scratch, 0, 1L, 1, 1, FrameReader.REGION_OP_WRITE, 0L, 17, 0, 0, data, 0, 16));
        assertRejectedWritten(writer.writeRegionOp(scratch, 0, 1L, 1, 1, FrameReader.REGION_OP_WRITE, 0L, 8, 0, 0, data, 0, 16));
        // READ carries no data.
        assertRejectedWritten(writer.writeRegionOp(scratch, 0, 1L, 1, 1, FrameReader.REGION_OP_READ, 0L, 16, 0, 0, data, 0, 16));
        // Atomics are one 8-byte word and carry no data.
        assertRejectedWritten(writer.writeRegionOp(scratch, 0, 1L, 1, 1, FrameReader.REGION_OP_FETCH_AND_ADD, 0L, 16, 1, 0, null, 0, 0));
        assertRejectedWritten(writer.writeRegionOp(scratch, 0, 1L, 1, 1, FrameReader.REGION_OP_COMPARE_AND_SWAP, 0L, 8, 1, 2, data, 0, 8));
        // Accepted shapes.
        wrap(writer.writeRegionOp(scratch, 0, 1L, 1, 1, FrameReader.REGION_OP_READ, 0L, 16, 0, 0, null, 0, 0));
        wrap(writer.writeRegionOp(scratch, 0, 1L, 1, 1, FrameReader.REGION_OP_FETCH_AND_ADD, 8L, 8, 1, 0, null, 0, 0));
    }

    @Test
    void shouldRejectRegionNamesAndEndpointsThatAreTooLong()
    {
        final byte[] tooLong = new byte[FrameReader.MAX_TOPIC_LENGTH + 1];
        Arrays.fill(tooLong, (byte)'r');
        assertRejectedWritten(writer.writeRegionLookup(scratch, 0, 1L, tooLong));
        assertRejectedWritten(writer.writeRegionLookup(scratch, 0, 1L, new byte[0]));
        assertRejectedWritten(writer.writeRegionInfo(scratch, 0, 1L, 1, 1, 0L, 8L, 1, tooLong));
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
            final byte[] frame = sample.copy();
            for (int m = 1 + random.nextInt(3); m > 0; m--)
            {
                frame[random.nextInt(frame.length)] = (byte)random.nextInt(256);
            }
            final UnsafeBuffer buffer = new UnsafeBuffer(frame);
            final boolean ok;
            try
            {
                ok = reader.wrap(buffer, 0, frame.length);
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
            if (reader.dataOffset() < 0 || (long)reader.dataOffset() + reader.dataLength() > frame.length)
            {
                fail("accepted frame's data escapes it on mutation %d of %s", i, sample);
            }
            if (reader.frameType() == FrameType.REGION_OP && (reader.regionOffset() < 0 || reader.opLength() <= 0 ||
                reader.regionId() <= 0))
            {
                fail("accepted an out-of-range REGION_OP on mutation %d", i);
            }
        }
        assertThat(accepted).as("some mutations stay valid").isPositive().isLessThan(MUTATIONS);
    }

    private static Sample sample(final String name, final int type, final UnsafeBuffer scratch, final int length)
    {
        final byte[] bytes = new byte[length];
        scratch.getBytes(0, bytes);
        return new Sample(name, type, bytes);
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Sample sampleOf(final int type)
    {
        return samples().stream().filter(s -> s.frameType() == type).findFirst().orElseThrow();
    }

    private void wrap(final int length)
    {
        assertThat(reader.wrap(scratch, 0, length)).as("%s", reader.error()).isTrue();
    }

    private void rejectInt(final int type, final int fieldOffset, final int value)
    {
        final byte[] frame = sampleOf(type).copy();
        TestFrames.putInt(frame, HEADER + fieldOffset, value);
        assertRejected(frame, FrameType.name(type) + " field at " + fieldOffset + " = " + value, null);
    }

    private void rejectLong(final int type, final int fieldOffset, final long value)
    {
        final byte[] frame = sampleOf(type).copy();
        new UnsafeBuffer(frame).putLong(HEADER + fieldOffset, value, ByteOrder.LITTLE_ENDIAN);
        assertRejected(frame, FrameType.name(type) + " field at " + fieldOffset + " = " + value, null);
    }

    private void rejectByte(final int type, final int fieldOffset, final int value)
    {
        final byte[] frame = sampleOf(type).copy();
        frame[HEADER + fieldOffset] = (byte)value;
        assertRejected(frame, FrameType.name(type) + " byte at " + fieldOffset + " = " + value, null);
    }

    private void assertRejectedWritten(final int length)
    {
        assertRejected(Arrays.copyOf(scratch.byteArray(), length), "written frame", null);
    }

    private void assertAccepted(final byte[] frame)
    {
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, frame.length)).as("%s", reader.error()).isTrue();
    }

    private void assertRejected(final byte[] frame, final String what, final String reason)
    {
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, frame.length)).as(what).isFalse();
        assertThat(reader.error()).as(what).isNotNull();
        if (reason != null)
        {
            assertThat(reader.error()).as(what).contains(reason);
        }
    }
}
