package io.rivulet.codec;

import io.rivulet.codec.wire.CancelDecoder;
import io.rivulet.codec.wire.CloseDecoder;
import io.rivulet.codec.wire.ErrorDecoder;
import io.rivulet.codec.wire.KeepaliveDecoder;
import io.rivulet.codec.wire.MessageHeaderDecoder;
import io.rivulet.codec.wire.PayloadDecoder;
import io.rivulet.codec.wire.RequestNDecoder;
import io.rivulet.codec.wire.RequestStreamDecoder;
import io.rivulet.codec.wire.SetupDecoder;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * A validating, allocation-free view over one frame received from the network.
 *
 * <p>Network bytes are hostile: {@link #wrap(DirectBuffer, int, int)} checks the header, the
 * template, the block length and every var-data length against the frame's bounds before any field
 * is read, and returns false with a fixed {@link #error()} text when the frame is malformed. Only
 * after a successful wrap are the accessors meaningful. Field offsets come from the generated SBE
 * codecs, so the layout has one source: the schema.
 *
 * <p>Not thread-safe; one instance per polling thread.
 */
public final class FrameReader
{
    public static final int SCHEMA_ID = MessageHeaderDecoder.SCHEMA_ID;
    private static final int HEADER = MessageHeaderDecoder.ENCODED_LENGTH;
    private static final int VAR_LENGTH_FIELD = PayloadDecoder.metadataHeaderLength();
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private DirectBuffer buffer;
    private int frameOffset;
    private int frameLength;
    private int frameType;
    private int blockOffset;
    private int streamId;
    private byte flags;
    private int initialRequestN;
    private int requestN;
    private int errorCode;
    private long timestampNs;
    private boolean respond;
    private int protocolVersion;
    private int keepaliveIntervalMs;
    private int keepaliveTimeoutMs;
    private int maxFrameLength;
    private int metadataOffset;
    private int metadataLength;
    private int dataOffset;
    private int dataLength;
    private String error;

    /**
     * Validates a frame and makes its fields readable.
     *
     * @param buffer holding the frame.
     * @param offset of the frame's first byte (its SBE header).
     * @param length of the frame as delimited by the transport.
     * @return true when the frame is well formed; false with {@link #error()} set otherwise.
     */
    public boolean wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.frameOffset = offset;
        this.frameLength = length;
        this.error = null;
        metadataOffset = dataOffset = offset;
        metadataLength = dataLength = 0;
        streamId = 0;
        flags = 0;

        if (length < HEADER)
        {
            return fail("frame shorter than its header");
        }
        final int blockLength = buffer.getShort(offset, ORDER) & 0xFFFF;
        final int templateId = buffer.getShort(offset + 2, ORDER) & 0xFFFF;
        final int schemaId = buffer.getShort(offset + 4, ORDER) & 0xFFFF;
        final int version = buffer.getShort(offset + 6, ORDER) & 0xFFFF;
        if (schemaId != SCHEMA_ID)
        {
            return fail("unknown schema id");
        }
        if (version < 1)
        {
            return fail("unsupported schema version");
        }
        final int minBlock = minBlockLength(templateId);
        if (minBlock < 0)
        {
            return fail("unknown frame type");
        }
        if (blockLength < minBlock)
        {
            return fail("block length shorter than the frame type requires");
        }
        if (blockLength > length - HEADER)
        {
            return fail("block length beyond the end of the frame");
        }

        frameType = templateId;
        blockOffset = offset + HEADER;
        final int end = offset + length;
        int position = blockOffset + blockLength;

        switch (templateId)
        {
            case 1:
                protocolVersion = buffer.getShort(blockOffset + SetupDecoder.protocolVersionEncodingOffset(), ORDER) & 0xFFFF;
                keepaliveIntervalMs = buffer.getInt(blockOffset + SetupDecoder.keepaliveIntervalMsEncodingOffset(), ORDER);
                keepaliveTimeoutMs = buffer.getInt(blockOffset + SetupDecoder.keepaliveTimeoutMsEncodingOffset(), ORDER);
                maxFrameLength = buffer.getInt(blockOffset + SetupDecoder.maxFrameLengthEncodingOffset(), ORDER);
                position = readMetadataAndData(position, end);
                break;

            case 2:
            case 3:
            case 8:
                streamId = buffer.getInt(blockOffset + PayloadDecoder.streamIdEncodingOffset(), ORDER);
                flags = buffer.getByte(blockOffset + PayloadDecoder.flagsEncodingOffset());
                position = readMetadataAndData(position, end);
                break;

            case 4:
            case 5:
                streamId = buffer.getInt(blockOffset + RequestStreamDecoder.streamIdEncodingOffset(), ORDER);
                initialRequestN = buffer.getInt(blockOffset + RequestStreamDecoder.initialRequestNEncodingOffset(), ORDER);
                flags = buffer.getByte(blockOffset + RequestStreamDecoder.flagsEncodingOffset());
                if (initialRequestN < 0)
                {
                    return fail("negative initial request n");
                }
                position = readMetadataAndData(position, end);
                break;

            case 6:
                streamId = buffer.getInt(blockOffset + RequestNDecoder.streamIdEncodingOffset(), ORDER);
                requestN = buffer.getInt(blockOffset + RequestNDecoder.nEncodingOffset(), ORDER);
                if (requestN <= 0)
                {
                    return fail("request n must be positive");
                }
                break;

            case 7:
                streamId = buffer.getInt(blockOffset + CancelDecoder.streamIdEncodingOffset(), ORDER);
                break;

            case 9:
                streamId = buffer.getInt(blockOffset + ErrorDecoder.streamIdEncodingOffset(), ORDER);
                errorCode = buffer.getInt(blockOffset + ErrorDecoder.codeEncodingOffset(), ORDER);
                position = readData(position, end);
                break;

            case 10:
                respond = (buffer.getByte(blockOffset + KeepaliveDecoder.flagsEncodingOffset()) & 1) != 0;
                timestampNs = buffer.getLong(blockOffset + KeepaliveDecoder.timestampNsEncodingOffset(), ORDER);
                break;

            case 11:
                errorCode = buffer.getInt(blockOffset + CloseDecoder.codeEncodingOffset(), ORDER);
                position = readData(position, end);
                break;

            default:
                return fail("unknown frame type");
        }

        if (position < 0)
        {
            return false;
        }
        if (position != end)
        {
            return fail("frame length does not match its contents");
        }
        if (streamId < 0)
        {
            return fail("negative stream id");
        }
        return true;
    }

    private int readMetadataAndData(final int position, final int end)
    {
        final int afterMetadata = readVar(position, end);
        if (afterMetadata < 0)
        {
            return -1;
        }
        metadataOffset = position + VAR_LENGTH_FIELD;
        metadataLength = afterMetadata - metadataOffset;
        return readData(afterMetadata, end);
    }

    private int readData(final int position, final int end)
    {
        final int afterData = readVar(position, end);
        if (afterData < 0)
        {
            return -1;
        }
        dataOffset = position + VAR_LENGTH_FIELD;
        dataLength = afterData - dataOffset;
        return afterData;
    }

    /** @return the position after the var-data field, or -1 when its length runs past {@code end}. */
    private int readVar(final int position, final int end)
    {
        if (end - position < VAR_LENGTH_FIELD)
        {
            fail("var-data length field beyond the end of the frame");
            return -1;
        }
        final long length = buffer.getInt(position, ORDER) & 0xFFFF_FFFFL;
        if (length > end - position - VAR_LENGTH_FIELD)
        {
            fail("var-data length beyond the end of the frame");
            return -1;
        }
        return position + VAR_LENGTH_FIELD + (int)length;
    }

    private boolean fail(final String reason)
    {
        error = reason;
        return false;
    }

    private static int minBlockLength(final int templateId)
    {
        switch (templateId)
        {
            case 1: return SetupDecoder.BLOCK_LENGTH;
            case 2: case 3: case 8: return PayloadDecoder.BLOCK_LENGTH;
            case 4: case 5: return RequestStreamDecoder.BLOCK_LENGTH;
            case 6: return RequestNDecoder.BLOCK_LENGTH;
            case 7: return CancelDecoder.BLOCK_LENGTH;
            case 9: return ErrorDecoder.BLOCK_LENGTH;
            case 10: return KeepaliveDecoder.BLOCK_LENGTH;
            case 11: return CloseDecoder.BLOCK_LENGTH;
            default: return -1;
        }
    }

    /** @return why the last {@link #wrap} failed, or null after a successful one. */
    public String error()
    {
        return error;
    }

    public DirectBuffer buffer()
    {
        return buffer;
    }

    public int frameOffset()
    {
        return frameOffset;
    }

    public int frameLength()
    {
        return frameLength;
    }

    /** @return a {@link FrameType} constant. */
    public int frameType()
    {
        return frameType;
    }

    public int streamId()
    {
        return streamId;
    }

    /** @return {@link FrameFlags} bits of a request or payload frame. */
    public byte flags()
    {
        return flags;
    }

    public boolean hasFlag(final byte bit)
    {
        return (flags & bit) != 0;
    }

    public int initialRequestN()
    {
        return initialRequestN;
    }

    public int requestN()
    {
        return requestN;
    }

    /** @return the raw error code of an ERROR or CLOSE frame. */
    public int errorCode()
    {
        return errorCode;
    }

    public boolean respond()
    {
        return respond;
    }

    public long timestampNs()
    {
        return timestampNs;
    }

    public int protocolVersion()
    {
        return protocolVersion;
    }

    public int keepaliveIntervalMs()
    {
        return keepaliveIntervalMs;
    }

    public int keepaliveTimeoutMs()
    {
        return keepaliveTimeoutMs;
    }

    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    public int metadataOffset()
    {
        return metadataOffset;
    }

    public int metadataLength()
    {
        return metadataLength;
    }

    /** @return offset of the data, or of the UTF-8 message of an ERROR / CLOSE frame. */
    public int dataOffset()
    {
        return dataOffset;
    }

    public int dataLength()
    {
        return dataLength;
    }

    /** @return the UTF-8 text of an ERROR or CLOSE frame (allocates; control path only). */
    public String text()
    {
        return buffer.getStringWithoutLengthUtf8(dataOffset, dataLength);
    }
}
