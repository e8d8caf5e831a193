package io.rivulet.codec;

import io.rivulet.codec.wire.ErrorCode;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Valid frames of every type, encoded with {@link FrameWriter} and copied into arrays of exactly
 * the frame's length, plus helpers to locate and patch header and var-data fields.
 */
final class TestFrames
{
    static final int HEADER = FrameWriter.HEADER_LENGTH;
    static final int VAR_LENGTH_FIELD = 4;

    /**
     * A valid frame.
     *
     * @param name      for assertion messages.
     * @param frameType template id.
     * @param bytes     exactly the frame.
     */
    record Sample(String name, int frameType, byte[] bytes)
    {
        int length()
        {
            return bytes.length;
        }

        byte[] copy()
        {
            return bytes.clone();
        }

        @Override
        public String toString()
        {
            return name;
        }
    }

    private TestFrames()
    {
    }

    static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed * 31 + i * 7);
        }
        return bytes;
    }

    /** One valid frame of each type, var-data fields non-empty so that every length field matters. */
    static List<Sample> oneOfEachType()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[4096]);
        final List<Sample> samples = new ArrayList<>();
        final byte[] metadata = pattern(5, 1);
        final byte[] data = pattern(11, 2);
        final UnsafeBuffer metadataBuffer = new UnsafeBuffer(metadata);
        final UnsafeBuffer dataBuffer = new UnsafeBuffer(data);

        int length = writer.writeSetup(scratch, 0, 1, 10_000, 30_000, 65_536, metadata, data);
        samples.add(sample("SETUP", FrameType.SETUP, scratch, length));

        final int[] payloadTypes =
            { FrameType.REQUEST_FNF, FrameType.REQUEST_RESPONSE, FrameType.REQUEST_STREAM, FrameType.REQUEST_CHANNEL, FrameType.PAYLOAD };
        for (final int type : payloadTypes)
        {
            length = writer.writePayloadFrame(
                scratch, 0, type, 7, 16, (byte)(FrameFlags.NEXT | FrameFlags.COMPLETE),
                metadataBuffer, 0, metadata.length, dataBuffer, 0, data.length);
            samples.add(sample(FrameType.name(type), type, scratch, length));
        }

        length = writer.writeRequestN(scratch, 0, 7, 64);
        samples.add(sample("REQUEST_N", FrameType.REQUEST_N, scratch, length));

        length = writer.writeCancel(scratch, 0, 7);
        samples.add(sample("CANCEL", FrameType.CANCEL, scratch, length));

        length = writer.writeError(scratch, 0, 7, ErrorCode.APPLICATION_ERROR, "bad thing".getBytes(StandardCharsets.UTF_8));
        samples.add(sample("ERROR", FrameType.ERROR, scratch, length));

        length = writer.writeKeepalive(scratch, 0, true, 123_456_789L);
        samples.add(sample("KEEPALIVE", FrameType.KEEPALIVE, scratch, length));

        length = writer.writeClose(scratch, 0, ErrorCode.CONNECTION_CLOSE, "bye".getBytes(StandardCharsets.UTF_8));
        samples.add(sample("CLOSE", FrameType.CLOSE, scratch, length));

        return samples;
    }

    /** More valid frames, including empty var data, for fuzzing and allocation tests. */
    static List<Sample> variety()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[4096]);
        final List<Sample> samples = new ArrayList<>(oneOfEachType());

        final int[] payloadTypes =
            { FrameType.REQUEST_FNF, FrameType.REQUEST_RESPONSE, FrameType.REQUEST_STREAM, FrameType.REQUEST_CHANNEL, FrameType.PAYLOAD };
        for (final int type : payloadTypes)
        {
            int length = writer.writePayloadFrame(scratch, 0, type, 0, 0, (byte)0, null, 0, 0, null, 0, 0);
            samples.add(sample(FrameType.name(type) + " empty", type, scratch, length));

            final UnsafeBuffer big = new UnsafeBuffer(pattern(300, type));
            length = writer.writePayloadFrame(
                scratch, 0, type, Integer.MAX_VALUE, Integer.MAX_VALUE, FrameFlags.FOLLOWS, big, 0, 0, big, 3, 297);
            samples.add(sample(FrameType.name(type) + " data only", type, scratch, length));
        }

        int length = writer.writeSetup(scratch, 0, 0xFFFF, 0, 0, 0, new byte[0], new byte[0]);
        samples.add(sample("SETUP empty", FrameType.SETUP, scratch, length));

        length = writer.writeError(scratch, 0, 0, ErrorCode.CONNECTION_ERROR, new byte[0]);
        samples.add(sample("ERROR empty", FrameType.ERROR, scratch, length));

        length = writer.writeKeepalive(scratch, 0, false, -1L);
        samples.add(sample("KEEPALIVE no respond", FrameType.KEEPALIVE, scratch, length));

        length = writer.writeClose(scratch, 0, ErrorCode.INVALID, new byte[0]);
        samples.add(sample("CLOSE empty", FrameType.CLOSE, scratch, length));

        return samples;
    }

    private static Sample sample(final String name, final int frameType, final UnsafeBuffer scratch, final int length)
    {
        final byte[] bytes = new byte[length];
        scratch.getBytes(0, bytes);
        return new Sample(name, frameType, bytes);
    }

    /** @return number of var-data fields that follow the block of this frame type. */
    static int varFieldCount(final int frameType)
    {
        if (frameType == FrameType.SETUP || FrameType.carriesPayload(frameType))
        {
            return 2;
        }
        if (frameType == FrameType.ERROR || frameType == FrameType.CLOSE)
        {
            return 1;
        }
        return 0;
    }

    /** @return offsets of the var-data length fields of a valid frame, in wire order. */
    static int[] varLengthFieldOffsets(final byte[] frame)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        final int count = varFieldCount(templateId(frame));
        final int[] offsets = new int[count];
        int position = HEADER + blockLength(frame);
        for (int i = 0; i < count; i++)
        {
            offsets[i] = position;
            position += VAR_LENGTH_FIELD + buffer.getInt(position, ByteOrder.LITTLE_ENDIAN);
        }
        return offsets;
    }

    static int blockLength(final byte[] frame)
    {
        return new UnsafeBuffer(frame).getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    static int templateId(final byte[] frame)
    {
        return new UnsafeBuffer(frame).getShort(2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    static void putShort(final byte[] frame, final int index, final int value)
    {
        new UnsafeBuffer(frame).putShort(index, (short)value, ByteOrder.LITTLE_ENDIAN);
    }

    static void putInt(final byte[] frame, final int index, final int value)
    {
        new UnsafeBuffer(frame).putInt(index, value, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Re-encodes a valid frame as a newer schema version whose block is {@code extra} bytes longer;
     * the extension bytes are filled with {@code fill} and the var data follows unchanged.
     */
    static byte[] withExtendedBlock(final byte[] frame, final int version, final int extra, final byte fill)
    {
        final int blockEnd = HEADER + blockLength(frame);
        final byte[] extended = new byte[frame.length + extra];
        System.arraycopy(frame, 0, extended, 0, blockEnd);
        Arrays.fill(extended, blockEnd, blockEnd + extra, fill);
        System.arraycopy(frame, blockEnd, extended, blockEnd + extra, frame.length - blockEnd);
        putShort(extended, 0, blockLength(frame) + extra);
        putShort(extended, 6, version);
        return extended;
    }
}
