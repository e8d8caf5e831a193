package io.rivulet.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coverage-guided fuzzing of {@link FrameReader}, the first code to touch every frame from the network.
 *
 * <p>In a normal {@code mvn test} Jazzer runs the seed corpus in
 * {@code src/test/resources/io/rivulet/codec/FrameReaderFuzzTestInputs/wrap/} (valid frames of every type written
 * by {@link FrameWriter}, and known nasty cases; regenerate with {@link FuzzSeedWriter}) as regression tests. With
 * {@code JAZZER_FUZZ=1} it mutates them (README, Fuzzing).
 *
 * <p>The properties: {@code wrap} never throws on any bytes (the buffer is exactly the input, with Agrona's bounds
 * checks on, so a read past the frame fails the run); it accepts exactly when {@code error()} is null; an accepted
 * frame's var data lies inside the frame and its stream id is not negative; and an accepted frame of the current
 * layout re-encodes, through {@link FrameWriter}, to the same bytes — reader and writer agree on every field.
 */
class FrameReaderFuzzTest
{
    private final FrameReader reader = new FrameReader();
    private final FrameWriter writer = new FrameWriter();

    @FuzzTest(maxDuration = "3m")
    void wrap(final byte[] input)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(input);
        final boolean valid = reader.wrap(buffer, 0, input.length);

        assertThat(reader.error() == null).as("error() is null exactly when wrap accepts").isEqualTo(valid);
        if (!valid)
        {
            assertThat(reader.error()).isNotBlank();
            return;
        }
        final int type = reader.frameType();
        assertThat(type).isBetween(FrameType.SETUP, FrameType.DATAGRAM_OFFER);
        assertThat(reader.streamId()).isNotNegative();
        assertInside(reader.metadataOffset(), reader.metadataLength(), input.length);
        assertInside(reader.dataOffset(), reader.dataLength(), input.length);
        if (type == FrameType.ERROR || type == FrameType.CLOSE || type == FrameType.SUBSCRIBE ||
            type == FrameType.TOPIC_ATTACH || type == FrameType.TOPIC_DETACH || type == FrameType.DATAGRAM_OFFER)
        {
            assertThat(reader.text()).isNotNull();
        }
        assertReencodesIdentically(input);
    }

    private static void assertInside(final int offset, final int length, final int frameLength)
    {
        assertThat(length).isNotNegative();
        assertThat(offset).isBetween(0, frameLength);
        assertThat((long)offset + length).isLessThanOrEqualTo(frameLength);
    }

    /** Frames of schema version 1 with the template's own block length have one encoding: the writer's. */
    private void assertReencodesIdentically(final byte[] input)
    {
        final int blockLength = TestFrames.blockLength(input);
        final int version = new UnsafeBuffer(input).getShort(6, java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        final byte[] expected = reencode(input.length + 64);
        if (expected == null || version != 1 || blockLength != TestFrames.blockLength(expected))
        {
            return;
        }
        assertThat(expected).as("re-encoded %s", FrameType.name(reader.frameType())).isEqualTo(input);
    }

    /** @return the frame the writer makes from the reader's fields, or null for types whose fields it cannot all set. */
    private byte[] reencode(final int capacity)
    {
        final UnsafeBuffer out = new UnsafeBuffer(new byte[capacity]);
        final UnsafeBuffer in = (UnsafeBuffer)reader.buffer();
        final int length;
        switch (reader.frameType())
        {
            case FrameType.REQUEST_FNF:
            case FrameType.REQUEST_RESPONSE:
            case FrameType.REQUEST_STREAM:
            case FrameType.REQUEST_CHANNEL:
            case FrameType.PAYLOAD:
                length = writer.writePayloadFrame(out, 0, reader.frameType(), reader.streamId(), reader.initialRequestN(),
                    reader.flags(), in, reader.metadataOffset(), reader.metadataLength(), in, reader.dataOffset(),
                    reader.dataLength());
                break;
            case FrameType.REQUEST_N:
                length = writer.writeRequestN(out, 0, reader.streamId(), reader.requestN());
                break;
            case FrameType.CANCEL:
                length = writer.writeCancel(out, 0, reader.streamId());
                break;
            case FrameType.TOPIC_DATA:
                length = writer.writeTopicData(out, 0, reader.topicId(), reader.sessionId(), reader.sequence(), reader.key(),
                    in, reader.dataOffset(), reader.dataLength());
                break;
            case FrameType.TOPIC_HEARTBEAT:
                length = writer.writeTopicHeartbeat(out, 0, reader.topicId(), reader.sessionId(), reader.sequence());
                break;
            case FrameType.TOPIC_STATUS:
                length = writer.writeTopicStatus(out, 0, reader.topicId(), reader.sessionId(), reader.credits());
                break;
            case FrameType.UNSUBSCRIBE:
                length = writer.writeUnsubscribe(out, 0, reader.subscriptionId());
                break;
            case FrameType.SUBSCRIBE:
                final byte[] pattern = new byte[reader.dataLength()];
                in.getBytes(reader.dataOffset(), pattern);
                length = writer.writeSubscribe(out, 0, reader.subscriptionId(), reader.credits(), pattern);
                break;
            case FrameType.DATAGRAM_OFFER:
                final byte[] address = new byte[reader.dataLength()];
                in.getBytes(reader.dataOffset(), address);
                length = writer.writeDatagramOffer(out, 0, reader.sessionId(), reader.initialSequence(),
                    reader.maxPayload(), reader.window(), address);
                break;
            default:
                return null;
        }
        return Arrays.copyOf(out.byteArray(), length);
    }
}
