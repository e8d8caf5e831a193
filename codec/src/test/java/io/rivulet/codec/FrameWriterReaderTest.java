package io.rivulet.codec;

import io.rivulet.codec.wire.CancelDecoder;
import io.rivulet.codec.wire.CancelEncoder;
import io.rivulet.codec.wire.CloseDecoder;
import io.rivulet.codec.wire.CloseEncoder;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.codec.wire.ErrorDecoder;
import io.rivulet.codec.wire.ErrorEncoder;
import io.rivulet.codec.wire.FrameFlagsDecoder;
import io.rivulet.codec.wire.FrameFlagsEncoder;
import io.rivulet.codec.wire.KeepaliveDecoder;
import io.rivulet.codec.wire.KeepaliveEncoder;
import io.rivulet.codec.wire.MessageHeaderDecoder;
import io.rivulet.codec.wire.MessageHeaderEncoder;
import io.rivulet.codec.wire.PayloadDecoder;
import io.rivulet.codec.wire.PayloadEncoder;
import io.rivulet.codec.wire.RequestChannelDecoder;
import io.rivulet.codec.wire.RequestChannelEncoder;
import io.rivulet.codec.wire.RequestFnfDecoder;
import io.rivulet.codec.wire.RequestFnfEncoder;
import io.rivulet.codec.wire.RequestNDecoder;
import io.rivulet.codec.wire.RequestNEncoder;
import io.rivulet.codec.wire.RequestResponseDecoder;
import io.rivulet.codec.wire.RequestResponseEncoder;
import io.rivulet.codec.wire.RequestStreamDecoder;
import io.rivulet.codec.wire.RequestStreamEncoder;
import io.rivulet.codec.wire.SetupDecoder;
import io.rivulet.codec.wire.SetupEncoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.rivulet.codec.TestFrames.pattern;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrameWriterReaderTest
{
    private static final int OFFSET = 37;
    private static final byte GARBAGE = (byte)0xA5;
    private static final int[] PAYLOAD_TYPES =
        { FrameType.REQUEST_FNF, FrameType.REQUEST_RESPONSE, FrameType.REQUEST_STREAM, FrameType.REQUEST_CHANNEL, FrameType.PAYLOAD };

    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);

    @BeforeEach
    void fillBufferWithGarbage()
    {
        buffer.setMemory(0, buffer.capacity(), GARBAGE);
    }

    static IntStream payloadTypes()
    {
        return Arrays.stream(PAYLOAD_TYPES);
    }

    @Test
    void shouldRoundTripSetup()
    {
        final byte[] metadata = pattern(7, 1);
        final byte[] data = pattern(300, 2);

        final int length = writer.writeSetup(buffer, OFFSET, 0xFFFE, 15_000, 45_000, 1 << 20, metadata, data);

        assertThat(length).isEqualTo(FrameWriter.setupLength(metadata.length, data.length));
        assertWrapped(OFFSET, length, FrameType.SETUP);
        assertThat(reader.protocolVersion()).isEqualTo(0xFFFE);
        assertThat(reader.keepaliveIntervalMs()).isEqualTo(15_000);
        assertThat(reader.keepaliveTimeoutMs()).isEqualTo(45_000);
        assertThat(reader.maxFrameLength()).isEqualTo(1 << 20);
        assertThat(reader.streamId()).isZero();
        assertMetadataAndData(metadata, data);
        assertThat(buffer.getByte(OFFSET - 1)).isEqualTo(GARBAGE);
        assertThat(buffer.getByte(OFFSET + length)).isEqualTo(GARBAGE);
    }

    @ParameterizedTest
    @MethodSource("payloadTypes")
    void shouldRoundTripRequestAndPayloadFrames(final int frameType)
    {
        final byte[] metadata = pattern(13, frameType);
        final byte[] data = pattern(257, frameType + 100);
        final UnsafeBuffer metadataSource = new UnsafeBuffer(new byte[3 + metadata.length]);
        metadataSource.putBytes(3, metadata);
        final UnsafeBuffer dataSource = new UnsafeBuffer(new byte[9 + data.length]);
        dataSource.putBytes(9, data);
        final byte flags = (byte)(FrameFlags.FOLLOWS | FrameFlags.NEXT);

        final int length = writer.writePayloadFrame(
            buffer, OFFSET, frameType, 1_234_567, 1_000, flags, metadataSource, 3, metadata.length, dataSource, 9, data.length);

        assertThat(length).isEqualTo(FrameWriter.payloadFrameLength(frameType, metadata.length, data.length));
        assertWrapped(OFFSET, length, frameType);
        assertThat(reader.streamId()).isEqualTo(1_234_567);
        assertThat(reader.flags()).isEqualTo(flags);
        assertThat(reader.hasFlag(FrameFlags.FOLLOWS)).isTrue();
        assertThat(reader.hasFlag(FrameFlags.NEXT)).isTrue();
        assertThat(reader.hasFlag(FrameFlags.COMPLETE)).isFalse();
        if (frameType == FrameType.REQUEST_STREAM || frameType == FrameType.REQUEST_CHANNEL)
        {
            assertThat(reader.initialRequestN()).isEqualTo(1_000);
        }
        assertMetadataAndData(metadata, data);
        assertThat(buffer.getByte(OFFSET + length)).isEqualTo(GARBAGE);
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 1, 100 })
    void shouldEncodeTheSameFireAndForgetFrameInPlaceAsWhole(final int dataLength)
    {
        final byte[] data = pattern(dataLength, 7);
        final int wholeLength = writer.writePayloadFrame(buffer, OFFSET, FrameType.REQUEST_FNF, 0, 0, FrameFlags.NEXT,
            null, 0, 0, new UnsafeBuffer(data), 0, data.length);
        final byte[] whole = new byte[wholeLength];
        buffer.getBytes(OFFSET, whole);
        buffer.setMemory(0, buffer.capacity(), GARBAGE);

        buffer.putBytes(OFFSET + FrameWriter.FIRE_AND_FORGET_DATA_OFFSET, data);
        final int length = writer.writeFireAndForgetHeader(buffer, OFFSET, 0, FrameFlags.NEXT, data.length);

        assertThat(length).isEqualTo(wholeLength)
            .isEqualTo(FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, 0, dataLength));
        final byte[] inPlace = new byte[length];
        buffer.getBytes(OFFSET, inPlace);
        assertThat(inPlace).isEqualTo(whole);
        assertWrapped(OFFSET, length, FrameType.REQUEST_FNF);
        assertMetadataAndData(new byte[0], data);
        assertThat(buffer.getByte(OFFSET + length)).isEqualTo(GARBAGE);
    }

    @ParameterizedTest
    @CsvSource({ "4, 0", "4, 1", "4, 2147483647", "5, 0", "5, 1", "5, 2147483647" })
    void shouldRoundTripInitialRequestN(final int frameType, final int initialRequestN)
    {
        final int length = writer.writePayloadFrame(
            buffer, OFFSET, frameType, 3, initialRequestN, FrameFlags.NEXT, null, 0, 0, null, 0, 0);

        assertWrapped(OFFSET, length, frameType);
        assertThat(reader.initialRequestN()).isEqualTo(initialRequestN);
        assertThat(reader.streamId()).isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 1, 2, 3, 4, 5, 6, 7 })
    void shouldRoundTripPayloadWithEachFlagCombination(final int bits)
    {
        final byte flags = (byte)bits;
        final byte[] data = pattern(4, bits);

        final int length = writer.writePayloadFrame(
            buffer, OFFSET, FrameType.PAYLOAD, 9, 0, flags, null, 0, 0, new UnsafeBuffer(data), 0, data.length);

        assertWrapped(OFFSET, length, FrameType.PAYLOAD);
        assertThat(reader.flags()).isEqualTo(flags);
        assertThat(reader.hasFlag(FrameFlags.FOLLOWS)).isEqualTo((bits & 1) != 0);
        assertThat(reader.hasFlag(FrameFlags.COMPLETE)).isEqualTo((bits & 2) != 0);
        assertThat(reader.hasFlag(FrameFlags.NEXT)).isEqualTo((bits & 4) != 0);
        assertThat(FrameFlags.isSet(reader.flags(), FrameFlags.FOLLOWS)).isEqualTo((bits & 1) != 0);
        assertThat(FrameFlags.isSet(reader.flags(), FrameFlags.COMPLETE)).isEqualTo((bits & 2) != 0);
        assertThat(FrameFlags.isSet(reader.flags(), FrameFlags.NEXT)).isEqualTo((bits & 4) != 0);
        assertMetadataAndData(new byte[0], data);

        final PayloadDecoder decoder = new PayloadDecoder().wrapAndApplyHeader(buffer, OFFSET, new MessageHeaderDecoder());
        final FrameFlagsDecoder decoded = decoder.flags();
        assertThat(decoded.follows()).isEqualTo((bits & 1) != 0);
        assertThat(decoded.complete()).isEqualTo((bits & 2) != 0);
        assertThat(decoded.next()).isEqualTo((bits & 4) != 0);
    }

    @Test
    void shouldRoundTripRequestN()
    {
        final int length = writer.writeRequestN(buffer, OFFSET, 77, Integer.MAX_VALUE);

        assertThat(length).isEqualTo(FrameWriter.requestNLength());
        assertWrapped(OFFSET, length, FrameType.REQUEST_N);
        assertThat(reader.streamId()).isEqualTo(77);
        assertThat(reader.requestN()).isEqualTo(Integer.MAX_VALUE);
        assertThat(reader.metadataLength()).isZero();
        assertThat(reader.dataLength()).isZero();
        assertVarDataInsideFrame();

        final int second = writer.writeRequestN(buffer, OFFSET, 78, 1);
        assertWrapped(OFFSET, second, FrameType.REQUEST_N);
        assertThat(reader.streamId()).isEqualTo(78);
        assertThat(reader.requestN()).isEqualTo(1);
    }

    @Test
    void shouldRoundTripCancel()
    {
        final int length = writer.writeCancel(buffer, OFFSET, Integer.MAX_VALUE);

        assertThat(length).isEqualTo(FrameWriter.cancelLength());
        assertWrapped(OFFSET, length, FrameType.CANCEL);
        assertThat(reader.streamId()).isEqualTo(Integer.MAX_VALUE);
        assertThat(reader.metadataLength()).isZero();
        assertThat(reader.dataLength()).isZero();
        assertVarDataInsideFrame();
    }

    @Test
    void shouldRoundTripErrorWithCodeAndUtf8Message()
    {
        final String text = "boom: ünïcødé ✓ 日本語 \uD83D\uDE80";
        final byte[] message = text.getBytes(StandardCharsets.UTF_8);

        final int length = writer.writeError(buffer, OFFSET, 21, ErrorCode.APPLICATION_ERROR, message);

        assertThat(length).isEqualTo(FrameWriter.errorLength(message.length));
        assertWrapped(OFFSET, length, FrameType.ERROR);
        assertThat(reader.streamId()).isEqualTo(21);
        assertThat(reader.errorCode()).isEqualTo(ErrorCode.APPLICATION_ERROR.value());
        assertThat(ErrorCode.get(reader.errorCode())).isEqualTo(ErrorCode.APPLICATION_ERROR);
        assertThat(reader.text()).isEqualTo(text);
        assertThat(reader.metadataLength()).isZero();
        assertThat(bytesAt(reader.dataOffset(), reader.dataLength())).isEqualTo(message);
        assertVarDataInsideFrame();
    }

    @Test
    void shouldRoundTripConnectionErrorWithEmptyMessage()
    {
        final int length = writer.writeError(buffer, OFFSET, 0, ErrorCode.CONNECTION_ERROR, new byte[0]);

        assertThat(length).isEqualTo(FrameWriter.errorLength(0));
        assertWrapped(OFFSET, length, FrameType.ERROR);
        assertThat(reader.streamId()).isZero();
        assertThat(reader.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR.value());
        assertThat(reader.dataLength()).isZero();
        assertThat(reader.text()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({ "true, 0", "false, 0", "true, 9223372036854775807", "false, -9223372036854775808", "true, -1", "false, 1234567890123" })
    void shouldRoundTripKeepalive(final boolean respond, final long timestampNs)
    {
        final int length = writer.writeKeepalive(buffer, OFFSET, respond, timestampNs);

        assertThat(length).isEqualTo(FrameWriter.keepaliveLength());
        assertWrapped(OFFSET, length, FrameType.KEEPALIVE);
        assertThat(reader.respond()).isEqualTo(respond);
        assertThat(reader.timestampNs()).isEqualTo(timestampNs);
        assertThat(reader.streamId()).isZero();
        assertVarDataInsideFrame();
    }

    @Test
    void shouldRoundTripClose()
    {
        final String text = "shutting down – au revoir";
        final byte[] reason = text.getBytes(StandardCharsets.UTF_8);

        final int length = writer.writeClose(buffer, OFFSET, ErrorCode.CONNECTION_CLOSE, reason);

        assertThat(length).isEqualTo(FrameWriter.closeLength(reason.length));
        assertWrapped(OFFSET, length, FrameType.CLOSE);
        assertThat(reader.errorCode()).isEqualTo(ErrorCode.CONNECTION_CLOSE.value());
        assertThat(reader.text()).isEqualTo(text);
        assertThat(reader.streamId()).isZero();
        assertThat(reader.metadataLength()).isZero();
        assertVarDataInsideFrame();
    }

    @ParameterizedTest
    @MethodSource("payloadTypes")
    void shouldRoundTripEmptyMetadataAndData(final int frameType)
    {
        final int length = writer.writePayloadFrame(buffer, OFFSET, frameType, 5, 1, (byte)0, null, 0, 0, null, 0, 0);

        assertThat(length).isEqualTo(FrameWriter.payloadFrameOverhead(frameType));
        assertThat(length).isEqualTo(FrameWriter.payloadFrameLength(frameType, 0, 0));
        assertThat(length).isLessThanOrEqualTo(FrameWriter.MAX_PAYLOAD_FRAME_OVERHEAD);
        assertWrapped(OFFSET, length, frameType);
        assertThat(reader.metadataLength()).isZero();
        assertThat(reader.dataLength()).isZero();
        assertThat(reader.metadataOffset()).isBetween(OFFSET, OFFSET + length);
        assertThat(reader.dataOffset()).isBetween(OFFSET, OFFSET + length);
        assertThat(reader.flags()).isZero();
    }

    @ParameterizedTest
    @MethodSource("payloadTypes")
    void shouldRoundTripMetadataOnlyAndDataOnly(final int frameType)
    {
        final byte[] bytes = pattern(33, frameType);
        final UnsafeBuffer source = new UnsafeBuffer(bytes);

        final int metadataOnly = writer.writePayloadFrame(buffer, OFFSET, frameType, 5, 1, (byte)0, source, 0, 33, null, 0, 0);
        assertThat(metadataOnly).isEqualTo(FrameWriter.payloadFrameLength(frameType, 33, 0));
        assertWrapped(OFFSET, metadataOnly, frameType);
        assertMetadataAndData(bytes, new byte[0]);

        final int dataOnly = writer.writePayloadFrame(buffer, OFFSET, frameType, 5, 1, (byte)0, null, 0, 0, source, 0, 33);
        assertThat(dataOnly).isEqualTo(FrameWriter.payloadFrameLength(frameType, 0, 33));
        assertWrapped(OFFSET, dataOnly, frameType);
        assertMetadataAndData(new byte[0], bytes);
    }

    @Test
    void shouldRoundTripEmptySetup()
    {
        final int length = writer.writeSetup(buffer, OFFSET, 1, 0, 0, 0, new byte[0], new byte[0]);

        assertThat(length).isEqualTo(FrameWriter.setupLength(0, 0));
        assertWrapped(OFFSET, length, FrameType.SETUP);
        assertThat(reader.metadataLength()).isZero();
        assertThat(reader.dataLength()).isZero();
    }

    @Test
    void shouldReadFramesAtOffsetZeroAndBackToBackInOneBuffer()
    {
        final byte[] metadata = pattern(3, 1);
        final byte[] data = pattern(6, 2);
        final int[] offsets = new int[5];
        final int[] lengths = new int[5];
        int position = 0;
        for (int i = 0; i < offsets.length; i++)
        {
            offsets[i] = position;
            switch (i)
            {
                case 0 -> lengths[i] = writer.writeRequestN(buffer, position, 1, 10);
                case 1 -> lengths[i] = writer.writePayloadFrame(
                    buffer, position, FrameType.PAYLOAD, 1, 0, FrameFlags.NEXT,
                    new UnsafeBuffer(metadata), 0, metadata.length, new UnsafeBuffer(data), 0, data.length);
                case 2 -> lengths[i] = writer.writeCancel(buffer, position, 1);
                case 3 -> lengths[i] = writer.writeError(buffer, position, 1, ErrorCode.CANCELED, new byte[] { 'x' });
                default -> lengths[i] = writer.writeKeepalive(buffer, position, true, 99L);
            }
            position += lengths[i];
        }

        assertWrapped(offsets[0], lengths[0], FrameType.REQUEST_N);
        assertThat(reader.requestN()).isEqualTo(10);
        assertWrapped(offsets[1], lengths[1], FrameType.PAYLOAD);
        assertMetadataAndData(metadata, data);
        assertWrapped(offsets[2], lengths[2], FrameType.CANCEL);
        assertWrapped(offsets[3], lengths[3], FrameType.ERROR);
        assertThat(reader.text()).isEqualTo("x");
        assertThat(reader.errorCode()).isEqualTo(ErrorCode.CANCELED.value());
        assertWrapped(offsets[4], lengths[4], FrameType.KEEPALIVE);
        assertThat(reader.timestampNs()).isEqualTo(99L);

        assertThat(reader.wrap(buffer, offsets[1], lengths[1] + lengths[2])).isFalse();
        assertThat(reader.error()).isNotNull();
    }

    @Test
    void shouldClearErrorAndVarDataOnTheNextWrap()
    {
        final int length = writer.writeRequestN(buffer, OFFSET, 1, 0);
        assertThat(reader.wrap(buffer, OFFSET, length)).isFalse();
        assertThat(reader.error()).isNotNull();

        final byte[] data = pattern(8, 1);
        final int payload = writer.writePayloadFrame(
            buffer, OFFSET, FrameType.PAYLOAD, 1, 0, FrameFlags.NEXT, null, 0, 0, new UnsafeBuffer(data), 0, data.length);
        assertWrapped(OFFSET, payload, FrameType.PAYLOAD);
        assertThat(reader.dataLength()).isEqualTo(8);

        final int cancel = writer.writeCancel(buffer, OFFSET, 2);
        assertWrapped(OFFSET, cancel, FrameType.CANCEL);
        assertThat(reader.dataLength()).isZero();
        assertThat(reader.metadataLength()).isZero();
        assertThat(reader.flags()).isZero();
    }

    static Stream<Arguments> lengths()
    {
        return Stream.of(
            Arguments.of(0, 0), Arguments.of(1, 0), Arguments.of(0, 1), Arguments.of(17, 1000), Arguments.of(255, 256));
    }

    @ParameterizedTest
    @MethodSource("lengths")
    void shouldComputeLengthsEqualToTheEncodedLengths(final int metadataLength, final int dataLength)
    {
        final UnsafeBuffer metadata = new UnsafeBuffer(pattern(metadataLength, 1));
        final UnsafeBuffer data = new UnsafeBuffer(pattern(dataLength, 2));
        for (final int frameType : PAYLOAD_TYPES)
        {
            final int length = writer.writePayloadFrame(
                buffer, OFFSET, frameType, 1, 1, (byte)0, metadata, 0, metadataLength, data, 0, dataLength);
            assertThat(length).as(FrameType.name(frameType))
                .isEqualTo(FrameWriter.payloadFrameLength(frameType, metadataLength, dataLength))
                .isEqualTo(FrameWriter.payloadFrameOverhead(frameType) + metadataLength + dataLength);
            assertThat(FrameWriter.payloadFrameOverhead(frameType)).isLessThanOrEqualTo(FrameWriter.MAX_PAYLOAD_FRAME_OVERHEAD);
            assertWrapped(OFFSET, length, frameType);
        }

        final int setup = writer.writeSetup(buffer, OFFSET, 1, 1, 1, 1, pattern(metadataLength, 3), pattern(dataLength, 4));
        assertThat(setup).isEqualTo(FrameWriter.setupLength(metadataLength, dataLength));
        assertWrapped(OFFSET, setup, FrameType.SETUP);

        final int error = writer.writeError(buffer, OFFSET, 1, ErrorCode.REJECTED, pattern(dataLength, 5));
        assertThat(error).isEqualTo(FrameWriter.errorLength(dataLength));

        final int close = writer.writeClose(buffer, OFFSET, ErrorCode.CONNECTION_CLOSE, pattern(metadataLength, 6));
        assertThat(close).isEqualTo(FrameWriter.closeLength(metadataLength));

        assertThat(FrameWriter.MAX_PAYLOAD_FRAME_OVERHEAD)
            .isEqualTo(FrameWriter.payloadFrameOverhead(FrameType.REQUEST_STREAM))
            .isEqualTo(FrameWriter.payloadFrameOverhead(FrameType.REQUEST_CHANNEL));
    }

    @Test
    void shouldAgreeWithTheGeneratedDecoders()
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final byte[] metadata = pattern(6, 1);
        final byte[] data = pattern(10, 2);

        final int length = writer.writePayloadFrame(
            buffer, OFFSET, FrameType.REQUEST_CHANNEL, 44, 55, FrameFlags.COMPLETE,
            new UnsafeBuffer(metadata), 0, metadata.length, new UnsafeBuffer(data), 0, data.length);
        final RequestChannelDecoder channel = new RequestChannelDecoder().wrapAndApplyHeader(buffer, OFFSET, header);
        assertThat(header.templateId()).isEqualTo(FrameType.REQUEST_CHANNEL);
        assertThat(header.schemaId()).isEqualTo(FrameReader.SCHEMA_ID);
        assertThat(channel.streamId()).isEqualTo(44);
        assertThat(channel.initialRequestN()).isEqualTo(55);
        assertThat(channel.flags().complete()).isTrue();
        final byte[] decodedMetadata = new byte[channel.metadataLength()];
        channel.getMetadata(decodedMetadata, 0, decodedMetadata.length);
        final byte[] decodedData = new byte[channel.dataLength()];
        channel.getData(decodedData, 0, decodedData.length);
        assertThat(decodedMetadata).isEqualTo(metadata);
        assertThat(decodedData).isEqualTo(data);
        assertThat(MessageHeaderDecoder.ENCODED_LENGTH + channel.encodedLength()).isEqualTo(length);

        writer.writeSetup(buffer, OFFSET, 3, 4, 5, 6, metadata, data);
        final SetupDecoder setup = new SetupDecoder().wrapAndApplyHeader(buffer, OFFSET, header);
        assertThat(setup.protocolVersion()).isEqualTo(3);
        assertThat(setup.keepaliveIntervalMs()).isEqualTo(4);
        assertThat(setup.keepaliveTimeoutMs()).isEqualTo(5);
        assertThat(setup.maxFrameLength()).isEqualTo(6);

        writer.writeKeepalive(buffer, OFFSET, true, 12L);
        final KeepaliveDecoder keepalive = new KeepaliveDecoder().wrapAndApplyHeader(buffer, OFFSET, header);
        assertThat(keepalive.flags().respond()).isTrue();
        assertThat(keepalive.timestampNs()).isEqualTo(12L);

        writer.writeError(buffer, OFFSET, 8, ErrorCode.INVALID, "nope".getBytes(StandardCharsets.UTF_8));
        final ErrorDecoder error = new ErrorDecoder().wrapAndApplyHeader(buffer, OFFSET, header);
        assertThat(error.streamId()).isEqualTo(8);
        assertThat(error.code()).isEqualTo(ErrorCode.INVALID);
        assertThat(error.message()).isEqualTo("nope");
    }

    @Test
    void shouldReadFramesEncodedWithTheGeneratedEncoders()
    {
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final byte[] metadata = pattern(2, 1);
        final byte[] data = pattern(3, 2);

        final PayloadEncoder payload = new PayloadEncoder().wrapAndApplyHeader(buffer, OFFSET, header).streamId(12);
        payload.flags().clear().next(true).complete(true);
        payload.putMetadata(metadata, 0, metadata.length).putData(data, 0, data.length);
        assertWrapped(OFFSET, MessageHeaderEncoder.ENCODED_LENGTH + payload.encodedLength(), FrameType.PAYLOAD);
        assertThat(reader.streamId()).isEqualTo(12);
        assertThat(reader.flags()).isEqualTo((byte)(FrameFlags.NEXT | FrameFlags.COMPLETE));
        assertMetadataAndData(metadata, data);

        final KeepaliveEncoder keepalive = new KeepaliveEncoder().wrapAndApplyHeader(buffer, OFFSET, header).timestampNs(-5L);
        keepalive.flags().clear().respond(true);
        assertWrapped(OFFSET, MessageHeaderEncoder.ENCODED_LENGTH + keepalive.encodedLength(), FrameType.KEEPALIVE);
        assertThat(reader.respond()).isTrue();
        assertThat(reader.timestampNs()).isEqualTo(-5L);

        final CloseEncoder close = new CloseEncoder().wrapAndApplyHeader(buffer, OFFSET, header)
            .code(ErrorCode.REJECTED_SETUP).reason("because");
        assertWrapped(OFFSET, MessageHeaderEncoder.ENCODED_LENGTH + close.encodedLength(), FrameType.CLOSE);
        assertThat(reader.errorCode()).isEqualTo(ErrorCode.REJECTED_SETUP.value());
        assertThat(reader.text()).isEqualTo("because");
    }

    @Test
    void shouldRejectWritingAPayloadFrameOfAnotherType()
    {
        for (final int frameType : new int[] { FrameType.SETUP, FrameType.REQUEST_N, FrameType.CANCEL, FrameType.ERROR,
            FrameType.KEEPALIVE, FrameType.CLOSE, 0, 12 })
        {
            assertThatThrownBy(() -> writer.writePayloadFrame(buffer, OFFSET, frameType, 1, 1, (byte)0, null, 0, 0, null, 0, 0))
                .as(FrameType.name(frameType))
                .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldCutUtf8Text()
    {
        assertThat(FrameWriter.utf8(null, 10)).isEmpty();
        assertThat(FrameWriter.utf8("", 10)).isEmpty();
        assertThat(FrameWriter.utf8("hello", 10)).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
        assertThat(FrameWriter.utf8("hello world", 5)).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
        assertThat(FrameWriter.utf8("é", 2)).isEqualTo("é".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldDefineFrameTypesAsTheGeneratedTemplateIds()
    {
        assertThat(FrameType.SETUP).isEqualTo(SetupDecoder.TEMPLATE_ID).isEqualTo(SetupEncoder.TEMPLATE_ID).isEqualTo(1);
        assertThat(FrameType.REQUEST_FNF).isEqualTo(RequestFnfDecoder.TEMPLATE_ID).isEqualTo(RequestFnfEncoder.TEMPLATE_ID)
            .isEqualTo(2);
        assertThat(FrameType.REQUEST_RESPONSE).isEqualTo(RequestResponseDecoder.TEMPLATE_ID)
            .isEqualTo(RequestResponseEncoder.TEMPLATE_ID).isEqualTo(3);
        assertThat(FrameType.REQUEST_STREAM).isEqualTo(RequestStreamDecoder.TEMPLATE_ID)
            .isEqualTo(RequestStreamEncoder.TEMPLATE_ID).isEqualTo(4);
        assertThat(FrameType.REQUEST_CHANNEL).isEqualTo(RequestChannelDecoder.TEMPLATE_ID)
            .isEqualTo(RequestChannelEncoder.TEMPLATE_ID).isEqualTo(5);
        assertThat(FrameType.REQUEST_N).isEqualTo(RequestNDecoder.TEMPLATE_ID).isEqualTo(RequestNEncoder.TEMPLATE_ID).isEqualTo(6);
        assertThat(FrameType.CANCEL).isEqualTo(CancelDecoder.TEMPLATE_ID).isEqualTo(CancelEncoder.TEMPLATE_ID).isEqualTo(7);
        assertThat(FrameType.PAYLOAD).isEqualTo(PayloadDecoder.TEMPLATE_ID).isEqualTo(PayloadEncoder.TEMPLATE_ID).isEqualTo(8);
        assertThat(FrameType.ERROR).isEqualTo(ErrorDecoder.TEMPLATE_ID).isEqualTo(ErrorEncoder.TEMPLATE_ID).isEqualTo(9);
        assertThat(FrameType.KEEPALIVE).isEqualTo(KeepaliveDecoder.TEMPLATE_ID).isEqualTo(KeepaliveEncoder.TEMPLATE_ID)
            .isEqualTo(10);
        assertThat(FrameType.CLOSE).isEqualTo(CloseDecoder.TEMPLATE_ID).isEqualTo(CloseEncoder.TEMPLATE_ID).isEqualTo(11);
        assertThat(FrameReader.SCHEMA_ID).isEqualTo(MessageHeaderEncoder.SCHEMA_ID).isEqualTo(7701);
    }

    @Test
    void shouldNameFrameTypes()
    {
        assertThat(FrameType.name(FrameType.SETUP)).isEqualTo("SETUP");
        assertThat(FrameType.name(FrameType.REQUEST_FNF)).isEqualTo("REQUEST_FNF");
        assertThat(FrameType.name(FrameType.REQUEST_RESPONSE)).isEqualTo("REQUEST_RESPONSE");
        assertThat(FrameType.name(FrameType.REQUEST_STREAM)).isEqualTo("REQUEST_STREAM");
        assertThat(FrameType.name(FrameType.REQUEST_CHANNEL)).isEqualTo("REQUEST_CHANNEL");
        assertThat(FrameType.name(FrameType.REQUEST_N)).isEqualTo("REQUEST_N");
        assertThat(FrameType.name(FrameType.CANCEL)).isEqualTo("CANCEL");
        assertThat(FrameType.name(FrameType.PAYLOAD)).isEqualTo("PAYLOAD");
        assertThat(FrameType.name(FrameType.ERROR)).isEqualTo("ERROR");
        assertThat(FrameType.name(FrameType.KEEPALIVE)).isEqualTo("KEEPALIVE");
        assertThat(FrameType.name(FrameType.CLOSE)).isEqualTo("CLOSE");
        assertThat(FrameType.name(0)).isEqualTo("UNKNOWN");
        assertThat(FrameType.name(31)).isEqualTo("UNKNOWN"); // 12..20 topic, 21..26 region, 27 datagram, 28..30 multicast
        assertThat(FrameType.name(32)).isEqualTo("UNKNOWN");
        assertThat(FrameType.name(-1)).isEqualTo("UNKNOWN");
        assertThat(FrameType.name(65535)).isEqualTo("UNKNOWN");
    }

    @Test
    void shouldTellWhichFrameTypesCarryPayload()
    {
        for (int templateId = -1; templateId <= 13; templateId++)
        {
            final int id = templateId;
            final boolean expected = Arrays.stream(PAYLOAD_TYPES).anyMatch(t -> t == id);
            assertThat(FrameType.carriesPayload(templateId)).as(FrameType.name(templateId)).isEqualTo(expected);
        }
    }

    @Test
    void shouldDefineFrameFlagsAsTheBitsOfTheGeneratedEncoder()
    {
        final UnsafeBuffer bits = new UnsafeBuffer(new byte[1]);
        final FrameFlagsEncoder encoder = new FrameFlagsEncoder().wrap(bits, 0);

        encoder.clear().follows(true);
        assertThat(bits.getByte(0)).isEqualTo(FrameFlags.FOLLOWS);
        encoder.clear().complete(true);
        assertThat(bits.getByte(0)).isEqualTo(FrameFlags.COMPLETE);
        encoder.clear().next(true);
        assertThat(bits.getByte(0)).isEqualTo(FrameFlags.NEXT);
        encoder.clear().follows(true).complete(true).next(true);
        assertThat(bits.getByte(0)).isEqualTo((byte)(FrameFlags.FOLLOWS | FrameFlags.COMPLETE | FrameFlags.NEXT));

        assertThat(FrameFlagsEncoder.follows((byte)0, true)).isEqualTo(FrameFlags.FOLLOWS);
        assertThat(FrameFlagsEncoder.complete((byte)0, true)).isEqualTo(FrameFlags.COMPLETE);
        assertThat(FrameFlagsEncoder.next((byte)0, true)).isEqualTo(FrameFlags.NEXT);

        final FrameFlagsDecoder decoder = new FrameFlagsDecoder().wrap(new UnsafeBuffer(new byte[] { FrameFlags.COMPLETE }), 0);
        assertThat(decoder.complete()).isTrue();
        assertThat(decoder.follows()).isFalse();
        assertThat(decoder.next()).isFalse();

        assertThat(FrameFlags.isSet((byte)0, FrameFlags.NEXT)).isFalse();
        assertThat(FrameFlags.isSet((byte)-1, FrameFlags.NEXT)).isTrue();
    }

    private void assertWrapped(final int offset, final int length, final int frameType)
    {
        assertThat(reader.wrap(buffer, offset, length)).as("wrap %s: %s", FrameType.name(frameType), reader.error()).isTrue();
        assertThat(reader.error()).isNull();
        assertThat(reader.frameType()).isEqualTo(frameType);
        assertThat(reader.buffer()).isSameAs(buffer);
        assertThat(reader.frameOffset()).isEqualTo(offset);
        assertThat(reader.frameLength()).isEqualTo(length);
    }

    private void assertMetadataAndData(final byte[] metadata, final byte[] data)
    {
        assertThat(reader.metadataLength()).isEqualTo(metadata.length);
        assertThat(reader.dataLength()).isEqualTo(data.length);
        assertVarDataInsideFrame();
        assertThat(bytesAt(reader.metadataOffset(), reader.metadataLength())).isEqualTo(metadata);
        assertThat(bytesAt(reader.dataOffset(), reader.dataLength())).isEqualTo(data);
        final int end = reader.frameOffset() + reader.frameLength();
        assertThat(reader.dataOffset() + reader.dataLength()).isEqualTo(end);
        assertThat(reader.metadataOffset() + reader.metadataLength() + 4).isEqualTo(reader.dataOffset());
    }

    private void assertVarDataInsideFrame()
    {
        final int start = reader.frameOffset();
        final int end = start + reader.frameLength();
        assertThat(reader.metadataOffset()).isBetween(start, end);
        assertThat(reader.metadataOffset() + reader.metadataLength()).isBetween(start, end);
        assertThat(reader.dataOffset()).isBetween(start, end);
        assertThat(reader.dataOffset() + reader.dataLength()).isBetween(start, end);
    }

    private byte[] bytesAt(final int offset, final int length)
    {
        final DirectBuffer source = reader.buffer();
        final byte[] bytes = new byte[length];
        source.getBytes(offset, bytes);
        return bytes;
    }
}
