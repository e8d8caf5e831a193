package io.rivulet.codec;

import io.rivulet.codec.wire.MessageHeaderDecoder;
import io.rivulet.codec.wire.PayloadDecoder;
import io.rivulet.codec.wire.RequestStreamDecoder;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Reads a frame's header without validating the frame: its type, for the message about a frame that failed to
 * decode, and whether a frame this node encoded ends an application message, for the sender's message count.
 */
public final class FrameHeader
{
    private FrameHeader()
    {
    }

    /** @return the frame type the header names, or 0 (printed as UNKNOWN) when the frame is too short to say. */
    public static int typeOrUnknown(final DirectBuffer buffer, final int offset, final int length)
    {
        return length >= MessageHeaderDecoder.templateIdEncodingOffset() + 2 ? type(buffer, offset) : 0;
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
        final int type = type(buffer, index);
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

    /** The SBE header's template id: the frame type. */
    private static int type(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + MessageHeaderDecoder.templateIdEncodingOffset(), ByteOrder.LITTLE_ENDIAN) &
            0xFFFF;
    }
}
