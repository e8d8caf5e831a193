package io.rivulet.codec;

import io.rivulet.codec.wire.MessageHeaderDecoder;
import io.rivulet.codec.wire.PayloadDecoder;
import io.rivulet.codec.wire.RequestStreamDecoder;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/** Reads a frame's header fields without validating the frame: for error messages about frames that failed to. */
public final class FrameHeader
{
    /** Offset of the template id (the frame type) in the SBE message header. */
    private static final int TYPE_OFFSET = 2;

    private FrameHeader()
    {
    }

    /** @return the frame type the header names, or 0 (printed as UNKNOWN) when the frame is too short to say. */
    public static int typeOrUnknown(final DirectBuffer buffer, final int offset, final int length)
    {
        return length >= 4 ? buffer.getShort(offset + TYPE_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF : 0;
    }

    /**
     * Whether an outbound frame (encoded by this node, so well-formed) is the last or only frame of an application
     * message: a request, or a PAYLOAD with NEXT, without FOLLOWS. Reads two header bytes and one flag byte.
     */
    public static boolean endsMessage(final DirectBuffer buffer, final int index, final int length)
    {
        if (length < MessageHeaderDecoder.ENCODED_LENGTH)
        {
            return false;
        }
        final int type = buffer.getShort(index + MessageHeaderDecoder.templateIdEncodingOffset(),
            ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        if (!FrameType.carriesPayload(type))
        {
            return false;
        }
        final int blockOffset = index + MessageHeaderDecoder.ENCODED_LENGTH;
        final int flagsOffset = type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL ?
            RequestStreamDecoder.flagsEncodingOffset() : PayloadDecoder.flagsEncodingOffset();
        if (blockOffset + flagsOffset >= index + length)
        {
            return false;
        }
        final byte flags = buffer.getByte(blockOffset + flagsOffset);
        return !FrameFlags.isSet(flags, FrameFlags.FOLLOWS) &&
            (type != FrameType.PAYLOAD || FrameFlags.isSet(flags, FrameFlags.NEXT));
    }
}
