package io.rivulet.codec;

import io.rivulet.codec.TestFrames.Sample;
import io.rivulet.codec.wire.RequestChannelDecoder;
import io.rivulet.codec.wire.RequestNDecoder;
import io.rivulet.codec.wire.RequestStreamDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static io.rivulet.codec.TestFrames.HEADER;
import static io.rivulet.codec.TestFrames.putInt;
import static io.rivulet.codec.TestFrames.putShort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

class FrameReaderHostileInputTest
{
    private static final long SEED = 0x5EED_C0DEC_7701L;
    private static final int MUTATION_ITERATIONS = 200_000;
    private static final long MUTATION_TIME_LIMIT_NS = TimeUnit.SECONDS.toNanos(20);

    private final FrameReader reader = new FrameReader();

    static List<Sample> samples()
    {
        return TestFrames.oneOfEachType();
    }

    static List<Sample> varDataSamples()
    {
        final List<Sample> samples = new ArrayList<>();
        for (final Sample sample : TestFrames.variety())
        {
            if (TestFrames.varFieldCount(sample.frameType()) > 0)
            {
                samples.add(sample);
            }
        }
        return samples;
    }

    static List<Sample> streamIdSamples()
    {
        final List<Sample> samples = new ArrayList<>();
        for (final Sample sample : TestFrames.oneOfEachType())
        {
            final int type = sample.frameType();
            if (type != FrameType.SETUP && type != FrameType.KEEPALIVE && type != FrameType.CLOSE)
            {
                samples.add(sample);
            }
        }
        return samples;
    }

    @Test
    void shouldHaveAgronaBoundsChecksEnabled()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4]);

        assertThatThrownBy(() -> buffer.getInt(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.getByte(4)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldAcceptTheUntouchedSamples(final Sample sample)
    {
        assertAccepted(sample.bytes());
        assertThat(reader.frameType()).isEqualTo(sample.frameType());
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectEveryTruncation(final Sample sample)
    {
        for (int length = 0; length < sample.length(); length++)
        {
            final byte[] truncated = Arrays.copyOf(sample.bytes(), length);
            assertRejected(truncated, "truncated to " + length);
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectEveryTruncationOfAFrameInsideALargerBuffer(final Sample sample)
    {
        final int offset = 11;
        final byte[] bytes = new byte[offset + sample.length()];
        System.arraycopy(sample.bytes(), 0, bytes, offset, sample.length());
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        for (int length = 0; length < sample.length(); length++)
        {
            assertThat(reader.wrap(buffer, offset, length)).as("truncated to %d", length).isFalse();
            assertThat(reader.error()).isNotNull();
        }
        assertThat(reader.wrap(buffer, offset, sample.length())).as("%s", reader.error()).isTrue();
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectAWrongSchemaId(final Sample sample)
    {
        for (final int schemaId : new int[] { 0, FrameReader.SCHEMA_ID - 1, FrameReader.SCHEMA_ID + 1, 0xFFFF })
        {
            final byte[] frame = sample.copy();
            putShort(frame, 4, schemaId);
            assertRejected(frame, "schema id " + schemaId, "unknown schema id");
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectVersionZero(final Sample sample)
    {
        final byte[] frame = sample.copy();
        putShort(frame, 6, 0);

        assertRejected(frame, "version 0", "unsupported schema version");
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 31, 32, 255, 256, 0x8000, 65535 }) // 12..20 topic, 21..26 region frames, 27 DATAGRAM_OFFER, 28..30 multicast
    void shouldRejectUnknownTemplateIds(final int templateId)
    {
        for (final Sample sample : samples())
        {
            final byte[] frame = sample.copy();
            putShort(frame, 2, templateId);
            assertRejected(frame, sample + " as template " + templateId, "unknown frame type");
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectABlockLengthShorterThanRequired(final Sample sample)
    {
        final int required = TestFrames.blockLength(sample.bytes());
        for (int blockLength = 0; blockLength < required; blockLength++)
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, blockLength);
            assertRejected(frame, "block length " + blockLength, "block length shorter than the frame type requires");
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectABlockLengthBeyondTheFrame(final Sample sample)
    {
        final int available = sample.length() - HEADER;
        for (final int blockLength : new int[] { available + 1, available + 2, 0x7FFF, 0x8000, 0xFFFF })
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
        final int[] fields = TestFrames.varLengthFieldOffsets(sample.bytes());
        assertThat(fields).hasSize(TestFrames.varFieldCount(sample.frameType()));
        for (final int field : fields)
        {
            final int remaining = sample.length() - field - TestFrames.VAR_LENGTH_FIELD;
            final int[] hostile =
                { 0xFFFF_FFFF, 0x8000_0000, 0x8000_0001, 0x7FFF_FFFF, 0x4000_0001, sample.length() + 1, sample.length(), remaining + 1 };
            for (final int length : hostile)
            {
                final byte[] frame = sample.copy();
                putInt(frame, field, length);
                assertRejected(
                    frame, "var-data field at " + field + " length 0x" + Integer.toHexString(length),
                    "var-data length beyond the end of the frame");
            }

            final int original = new UnsafeBuffer(sample.bytes()).getInt(field, java.nio.ByteOrder.LITTLE_ENDIAN);
            final byte[] frame = sample.copy();
            putInt(frame, field, original + 1);
            assertRejected(frame, "var-data field at " + field + " one byte too long");
        }
    }

    @ParameterizedTest
    @MethodSource("varDataSamples")
    void shouldRejectShortenedVarDataLengthsThatLeaveBytesUnaccounted(final Sample sample)
    {
        final int[] fields = TestFrames.varLengthFieldOffsets(sample.bytes());
        final int last = fields[fields.length - 1];
        final int original = new UnsafeBuffer(sample.bytes()).getInt(last, java.nio.ByteOrder.LITTLE_ENDIAN);
        if (original > 0)
        {
            final byte[] frame = sample.copy();
            putInt(frame, last, original - 1);
            assertRejected(frame, "last var-data field one byte short", "frame length does not match its contents");
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectTrailingGarbage(final Sample sample)
    {
        for (final int extra : new int[] { 1, 3, 4, 5, 64 })
        {
            final byte[] frame = Arrays.copyOf(sample.bytes(), sample.length() + extra);
            Arrays.fill(frame, sample.length(), frame.length, (byte)0x7E);
            assertRejected(frame, extra + " trailing bytes");

            final byte[] zeros = Arrays.copyOf(sample.bytes(), sample.length() + extra);
            assertRejected(zeros, extra + " trailing zero bytes");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, -1, -2, Integer.MIN_VALUE })
    void shouldRejectRequestNThatIsNotPositive(final int n)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.requestNLength()]);
        final int length = new FrameWriter().writeRequestN(buffer, 0, 1, n);

        assertRejected(Arrays.copyOf(buffer.byteArray(), length), "n " + n, "request n must be positive");

        final byte[] frame = sampleOf(FrameType.REQUEST_N).copy();
        putInt(frame, HEADER + RequestNDecoder.nEncodingOffset(), n);
        assertRejected(frame, "patched n " + n, "request n must be positive");
    }

    @ParameterizedTest
    @MethodSource("streamIdSamples")
    void shouldRejectANegativeStreamId(final Sample sample)
    {
        for (final int streamId : new int[] { -1, Integer.MIN_VALUE })
        {
            final byte[] frame = sample.copy();
            putInt(frame, HEADER, streamId);
            assertRejected(frame, "stream id " + streamId, "negative stream id");
        }
    }

    @Test
    void shouldRejectANegativeInitialRequestN()
    {
        for (final int type : new int[] { FrameType.REQUEST_STREAM, FrameType.REQUEST_CHANNEL })
        {
            final int field = HEADER + (type == FrameType.REQUEST_STREAM ?
                RequestStreamDecoder.initialRequestNEncodingOffset() : RequestChannelDecoder.initialRequestNEncodingOffset());
            for (final int n : new int[] { -1, Integer.MIN_VALUE })
            {
                final byte[] frame = sampleOf(type).copy();
                putInt(frame, field, n);
                assertRejected(frame, FrameType.name(type) + " initialRequestN " + n, "negative initial request n");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldAcceptANewerVersionWithALargerBlock(final Sample sample)
    {
        assertAccepted(sample.bytes());
        final Snapshot expected = Snapshot.of(reader);

        for (final int extra : new int[] { 1, 7, 64 })
        {
            final byte[] extended = TestFrames.withExtendedBlock(sample.bytes(), 2, extra, (byte)0xEE);
            assertAccepted(extended);
            final Snapshot actual = Snapshot.of(reader);
            assertThat(actual.withoutOffsets()).as("%s extended by %d", sample, extra).isEqualTo(expected.withoutOffsets());
            final int varFields = TestFrames.varFieldCount(sample.frameType());
            assertThat(actual.metadataOffset()).isEqualTo(expected.metadataOffset() + (varFields == 2 ? extra : 0));
            assertThat(actual.dataOffset()).isEqualTo(expected.dataOffset() + (varFields > 0 ? extra : 0));
            assertThat(Arrays.copyOfRange(extended, actual.metadataOffset(), actual.metadataOffset() + actual.metadataLength()))
                .isEqualTo(Arrays.copyOfRange(sample.bytes(), expected.metadataOffset(),
                    expected.metadataOffset() + expected.metadataLength()));
            assertThat(Arrays.copyOfRange(extended, actual.dataOffset(), actual.dataOffset() + actual.dataLength()))
                .isEqualTo(Arrays.copyOfRange(sample.bytes(), expected.dataOffset(), expected.dataOffset() + expected.dataLength()));
        }
    }

    @Test
    void shouldRejectAnExtendedBlockWithoutExtendingTheFrame()
    {
        for (final Sample sample : samples())
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, TestFrames.blockLength(frame) + 1);
            assertRejected(frame, sample + " block length + 1");
        }
    }

    @Test
    void shouldNeverThrowNorEscapeTheFrameWhenMutated()
    {
        final List<Sample> samples = TestFrames.variety();
        final SplittableRandom random = new SplittableRandom(SEED);
        final long deadline = System.nanoTime() + MUTATION_TIME_LIMIT_NS;
        int iterations = 0;
        int accepted = 0;

        for (; iterations < MUTATION_ITERATIONS; iterations++)
        {
            if ((iterations & 1023) == 0 && System.nanoTime() - deadline > 0)
            {
                break;
            }
            final Sample sample = samples.get(random.nextInt(samples.size()));
            final byte[] frame = mutate(sample.bytes(), random);
            final int offset = random.nextInt(8) == 0 ? 1 + random.nextInt(16) : 0;
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
                throw new AssertionError(
                    "wrap threw on iteration " + iterations + " (" + sample + "): " + hex(frame), ex);
            }

            if (ok)
            {
                accepted++;
                checkAccepted(buffer, offset, frame, iterations);
            }
            else if (reader.error() == null)
            {
                fail("rejected without an error on iteration %d: %s", iterations, hex(frame));
            }
        }

        assertThat(iterations).isPositive();
        assertThat(accepted).as("some mutations keep the frame valid").isPositive();
        assertThat(accepted).as("most mutations are rejected").isLessThan(iterations);
    }

    private void checkAccepted(final UnsafeBuffer buffer, final int offset, final byte[] frame, final int iteration)
    {
        final int start = offset;
        final int end = offset + frame.length;
        final String where = "iteration " + iteration + ": " + hex(frame);
        if (reader.error() != null || reader.frameOffset() != offset || reader.frameLength() != frame.length ||
            reader.metadataLength() < 0 || reader.dataLength() < 0 ||
            reader.metadataOffset() < start || (long)reader.metadataOffset() + reader.metadataLength() > end ||
            reader.dataOffset() < start || (long)reader.dataOffset() + reader.dataLength() > end ||
            reader.streamId() < 0)
        {
            fail("accepted frame escapes its bounds or state on %s (metadata %d+%d, data %d+%d)", where,
                reader.metadataOffset(), reader.metadataLength(), reader.dataOffset(), reader.dataLength());
        }
        if (reader.frameType() == FrameType.REQUEST_N && reader.requestN() <= 0)
        {
            fail("accepted non-positive request n on %s", where);
        }
        if ((reader.frameType() == FrameType.REQUEST_STREAM || reader.frameType() == FrameType.REQUEST_CHANNEL) &&
            reader.initialRequestN() < 0)
        {
            fail("accepted negative initial request n on %s", where);
        }
        if (reader.metadataLength() > 0)
        {
            buffer.getByte(reader.metadataOffset() + reader.metadataLength() - 1);
        }
        if (reader.dataLength() > 0)
        {
            buffer.getByte(reader.dataOffset() + reader.dataLength() - 1);
        }
    }

    private static byte[] mutate(final byte[] original, final SplittableRandom random)
    {
        byte[] frame = original.clone();
        final int mutations = 1 + random.nextInt(4);
        for (int m = 0; m < mutations; m++)
        {
            switch (random.nextInt(8))
            {
                case 0:
                    if (frame.length > 0)
                    {
                        frame[random.nextInt(frame.length)] ^= (byte)(1 << random.nextInt(8));
                    }
                    break;

                case 1:
                    if (frame.length > 0)
                    {
                        frame[random.nextInt(frame.length)] = (byte)random.nextInt(256);
                    }
                    break;

                case 2:
                    if (frame.length >= 2)
                    {
                        final int[] interesting = { 0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, frame.length, frame.length - HEADER };
                        final int index = random.nextInt(Math.min(frame.length - 1, HEADER));
                        putShort(frame, index & ~1, interesting[random.nextInt(interesting.length)]);
                    }
                    break;

                case 3:
                    if (frame.length >= 4)
                    {
                        final int[] interesting =
                            { 0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, frame.length, frame.length + 1, frame.length - 1 };
                        putInt(frame, random.nextInt(frame.length - 3), interesting[random.nextInt(interesting.length)]);
                    }
                    break;

                case 4:
                    frame = Arrays.copyOf(frame, random.nextInt(frame.length + 1));
                    break;

                case 5:
                {
                    final int extra = 1 + random.nextInt(16);
                    final int oldLength = frame.length;
                    frame = Arrays.copyOf(frame, oldLength + extra);
                    for (int i = oldLength; i < frame.length; i++)
                    {
                        frame[i] = (byte)random.nextInt(256);
                    }
                    break;
                }

                case 6:
                    if (frame.length >= HEADER)
                    {
                        putShort(frame, 2, random.nextInt(14));
                    }
                    break;

                default:
                {
                    final byte[] noise = new byte[random.nextInt(80)];
                    for (int i = 0; i < noise.length; i++)
                    {
                        noise[i] = (byte)random.nextInt(256);
                    }
                    if (noise.length >= HEADER && random.nextBoolean())
                    {
                        putShort(noise, 4, FrameReader.SCHEMA_ID);
                        putShort(noise, 6, 1 + random.nextInt(3));
                        putShort(noise, 2, 1 + random.nextInt(11));
                        putShort(noise, 0, random.nextInt(noise.length - HEADER + 1));
                    }
                    frame = noise;
                    break;
                }
            }
        }
        return frame;
    }

    private void assertAccepted(final byte[] frame)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        assertThat(reader.wrap(buffer, 0, frame.length)).as("wrap: %s", reader.error()).isTrue();
        assertThat(reader.error()).isNull();
    }

    private void assertRejected(final byte[] frame, final String description)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        final boolean ok;
        try
        {
            ok = reader.wrap(buffer, 0, frame.length);
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("wrap threw for " + description + ": " + hex(frame), ex);
        }
        assertThat(ok).as("accepted %s: %s", description, hex(frame)).isFalse();
        assertThat(reader.error()).as(description).isNotNull().isNotBlank();
    }

    private void assertRejected(final byte[] frame, final String description, final String error)
    {
        assertRejected(frame, description);
        assertThat(reader.error()).as(description).isEqualTo(error);
    }

    private static Sample sampleOf(final int frameType)
    {
        return samples().stream().filter(s -> s.frameType() == frameType).findFirst().orElseThrow();
    }

    private static String hex(final byte[] bytes)
    {
        final StringBuilder builder = new StringBuilder(bytes.length * 3);
        for (final byte b : bytes)
        {
            builder.append(String.format("%02x ", b & 0xFF));
        }
        return builder.toString().trim();
    }

    /** The decoded fields of a successful wrap, to compare two frames' contents. */
    private record Snapshot(
        int frameType, int streamId, byte flags, int initialRequestN, int requestN, int errorCode, boolean respond,
        long timestampNs, int protocolVersion, int keepaliveIntervalMs, int keepaliveTimeoutMs, int maxFrameLength,
        int metadataOffset, int metadataLength, int dataOffset, int dataLength)
    {
        static Snapshot of(final FrameReader reader)
        {
            return new Snapshot(
                reader.frameType(), reader.streamId(), reader.flags(), reader.initialRequestN(), reader.requestN(),
                reader.errorCode(), reader.respond(), reader.timestampNs(), reader.protocolVersion(),
                reader.keepaliveIntervalMs(), reader.keepaliveTimeoutMs(), reader.maxFrameLength(),
                reader.metadataOffset(), reader.metadataLength(), reader.dataOffset(), reader.dataLength());
        }

        Snapshot withoutOffsets()
        {
            return new Snapshot(
                frameType, streamId, flags, initialRequestN, requestN, errorCode, respond, timestampNs, protocolVersion,
                keepaliveIntervalMs, keepaliveTimeoutMs, maxFrameLength, 0, metadataLength, 0, dataLength);
        }
    }
}
