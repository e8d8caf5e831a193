package io.rivulet.protocol.datagram.multicast;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The fixed little-endian headers of the reliable multicast protocol, and their validation.
 *
 * <pre>
 * common   (8)   0 version u8 (2) | 1 type u8 | 2 flags u16 | 4 sessionId i32
 * DATA  (32 + n) 8 position i64 | 16 length i32 | 20 reserved i32 (0) | 24 timestampNs i64 | 32 n bytes of the stream
 * NAK     (24)   8 position i64 | 16 length i32 | 20 receiverId i32
 * STATUS  (48)   8 consumed i64 | 16 received i64 | 24 window i32 | 28 receiverId i32 | 32 echoTimestampNs i64
 *                40 holdNs i64
 * LOST    (24)   8 position i64 | 16 reserved i32 (0) | 20 receiverId i32
 * </pre>
 *
 * A session is one publisher's stream of bytes (one topic's log), positions count its bytes from 0 and never wrap.
 * DATA carries the bytes from {@code position} (a heartbeat carries none: the stream has reached {@code position});
 * publisher to group, or to one receiver for a repair (flag {@link #FLAG_RETRANSMIT}). NAK asks for {@code length}
 * bytes from {@code position}; STATUS says what a receiver consumed (needs no more below it), received (holds every
 * byte below it) and may take beyond what it consumed ({@code window}), and echoes the timestamp of the newest DATA
 * it got with how long it held it, for the publisher's delay; both unicast from a receiver to the publisher. LOST,
 * publisher to one receiver: the bytes below {@code position} are gone, go on from there.
 *
 * <p>Its own version number, so a datagram of the per-path protocol ({@code DatagramHeader}, version 1) that reaches
 * a multicast endpoint is refused as such. {@link #validate} treats every byte as hostile.
 */
public final class MulticastHeader
{
    public static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    public static final int VERSION = 2;

    public static final int TYPE_DATA = 1;
    public static final int TYPE_NAK = 2;
    public static final int TYPE_STATUS = 3;
    public static final int TYPE_LOST = 4;

    /** DATA flag: a repair (retransmission) rather than the first transmission. */
    public static final int FLAG_RETRANSMIT = 1;

    public static final int VERSION_OFFSET = 0;
    public static final int TYPE_OFFSET = 1;
    public static final int FLAGS_OFFSET = 2;
    public static final int SESSION_OFFSET = 4;
    public static final int POSITION_OFFSET = 8;

    public static final int DATA_LENGTH_OFFSET = 16;
    public static final int DATA_RESERVED_OFFSET = 20;
    public static final int TIMESTAMP_OFFSET = 24;
    public static final int DATA_HEADER_LENGTH = 32;

    public static final int NAK_LENGTH_OFFSET = 16;
    public static final int NAK_RECEIVER_OFFSET = 20;
    public static final int NAK_LENGTH = 24;

    public static final int RECEIVED_OFFSET = 16;
    public static final int WINDOW_OFFSET = 24;
    public static final int STATUS_RECEIVER_OFFSET = 28;
    public static final int ECHO_OFFSET = 32;
    public static final int HOLD_OFFSET = 40;
    public static final int STATUS_LENGTH = 48;

    public static final int LOST_RESERVED_OFFSET = 16;
    public static final int LOST_RECEIVER_OFFSET = 20;
    public static final int LOST_LENGTH = 24;

    /** {@link #validate} result: shorter than its type's header, or than the common one. */
    public static final int ERROR_TRUNCATED = -1;
    /** {@link #validate} result: not this protocol's version. */
    public static final int ERROR_VERSION = -2;
    /** {@link #validate} result: unknown type. */
    public static final int ERROR_TYPE = -3;
    /** {@link #validate} result: a field disagrees with the datagram's length or is out of range. */
    public static final int ERROR_FIELD = -4;

    /** Largest NAK honoured: bounds the work one datagram can ask for (the repair itself is cut further). */
    public static final int MAX_NAK_LENGTH = 64 * 1024 * 1024;

    private MulticastHeader()
    {
    }

    /**
     * Checks a received datagram before any field is used.
     *
     * @param maxPayload longest DATA payload accepted.
     * @return the type or a negative {@code ERROR_*}.
     */
    public static int validate(final DirectBuffer buffer, final int offset, final int length, final int maxPayload)
    {
        if (length < 8)
        {
            return ERROR_TRUNCATED;
        }
        if ((buffer.getByte(offset + VERSION_OFFSET) & 0xFF) != VERSION)
        {
            return ERROR_VERSION;
        }
        final int type = buffer.getByte(offset + TYPE_OFFSET) & 0xFF;
        switch (type)
        {
            case TYPE_DATA:
            {
                if (length < DATA_HEADER_LENGTH)
                {
                    return ERROR_TRUNCATED;
                }
                final int bytes = buffer.getInt(offset + DATA_LENGTH_OFFSET, ORDER);
                final boolean valid = bytes >= 0 && bytes <= maxPayload && length == DATA_HEADER_LENGTH + bytes &&
                    buffer.getInt(offset + DATA_RESERVED_OFFSET, ORDER) == 0 &&
                    position(buffer, offset) >= 0 && position(buffer, offset) <= Long.MAX_VALUE - bytes;
                return valid ? type : ERROR_FIELD;
            }
            case TYPE_NAK:
            {
                if (length != NAK_LENGTH)
                {
                    return length < NAK_LENGTH ? ERROR_TRUNCATED : ERROR_FIELD;
                }
                final int bytes = buffer.getInt(offset + NAK_LENGTH_OFFSET, ORDER);
                final long position = position(buffer, offset);
                final boolean valid = bytes > 0 && bytes <= MAX_NAK_LENGTH && position >= 0 &&
                    position <= Long.MAX_VALUE - bytes;
                return valid ? type : ERROR_FIELD;
            }
            case TYPE_STATUS:
            {
                if (length != STATUS_LENGTH)
                {
                    return length < STATUS_LENGTH ? ERROR_TRUNCATED : ERROR_FIELD;
                }
                final long consumed = position(buffer, offset);
                final long received = buffer.getLong(offset + RECEIVED_OFFSET, ORDER);
                final boolean valid = consumed >= 0 && received >= consumed &&
                    buffer.getInt(offset + WINDOW_OFFSET, ORDER) > 0 && buffer.getLong(offset + HOLD_OFFSET, ORDER) >= 0;
                return valid ? type : ERROR_FIELD;
            }
            case TYPE_LOST:
            {
                if (length != LOST_LENGTH)
                {
                    return length < LOST_LENGTH ? ERROR_TRUNCATED : ERROR_FIELD;
                }
                final boolean valid = position(buffer, offset) >= 0 &&
                    buffer.getInt(offset + LOST_RESERVED_OFFSET, ORDER) == 0;
                return valid ? type : ERROR_FIELD;
            }
            default:
                return ERROR_TYPE;
        }
    }

    /** @return a validation result in words, for logs and counters. */
    public static String describe(final int result)
    {
        switch (result)
        {
            case ERROR_TRUNCATED: return "truncated";
            case ERROR_VERSION: return "not a multicast protocol datagram (version)";
            case ERROR_TYPE: return "unknown type";
            case ERROR_FIELD: return "a field out of range or disagreeing with the length";
            case TYPE_DATA: return "DATA";
            case TYPE_NAK: return "NAK";
            case TYPE_STATUS: return "STATUS";
            case TYPE_LOST: return "LOST";
            default: return "result " + result;
        }
    }

    public static int type(final DirectBuffer buffer, final int offset)
    {
        return buffer.getByte(offset + TYPE_OFFSET) & 0xFF;
    }

    public static int flags(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + FLAGS_OFFSET, ORDER) & 0xFFFF;
    }

    public static int sessionId(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + SESSION_OFFSET, ORDER);
    }

    /** @return the position of DATA, NAK and LOST, the consumed position of STATUS. */
    public static long position(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + POSITION_OFFSET, ORDER);
    }

    public static int dataLength(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + DATA_LENGTH_OFFSET, ORDER);
    }

    public static long timestampNs(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + TIMESTAMP_OFFSET, ORDER);
    }

    public static int nakLength(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + NAK_LENGTH_OFFSET, ORDER);
    }

    /** @return the receiver a NAK, STATUS or LOST concerns. */
    public static int receiverId(final DirectBuffer buffer, final int offset)
    {
        final int type = type(buffer, offset);
        return buffer.getInt(offset + (type == TYPE_NAK ? NAK_RECEIVER_OFFSET :
            type == TYPE_STATUS ? STATUS_RECEIVER_OFFSET : LOST_RECEIVER_OFFSET), ORDER);
    }

    public static long received(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + RECEIVED_OFFSET, ORDER);
    }

    public static int window(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + WINDOW_OFFSET, ORDER);
    }

    public static long echoTimestampNs(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + ECHO_OFFSET, ORDER);
    }

    public static long holdNs(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + HOLD_OFFSET, ORDER);
    }

    /** Writes a DATA header for {@code length} bytes that follow it. @return the header's length. */
    public static int writeData(
        final MutableDirectBuffer buffer,
        final int offset,
        final int flags,
        final int sessionId,
        final long position,
        final int length,
        final long timestampNs)
    {
        common(buffer, offset, TYPE_DATA, flags, sessionId, position);
        buffer.putInt(offset + DATA_LENGTH_OFFSET, length, ORDER);
        buffer.putInt(offset + DATA_RESERVED_OFFSET, 0, ORDER);
        buffer.putLong(offset + TIMESTAMP_OFFSET, timestampNs, ORDER);
        return DATA_HEADER_LENGTH;
    }

    /** @return the NAK's length. */
    public static int writeNak(
        final MutableDirectBuffer buffer, final int offset, final int sessionId, final int receiverId,
        final long position, final int length)
    {
        common(buffer, offset, TYPE_NAK, 0, sessionId, position);
        buffer.putInt(offset + NAK_LENGTH_OFFSET, length, ORDER);
        buffer.putInt(offset + NAK_RECEIVER_OFFSET, receiverId, ORDER);
        return NAK_LENGTH;
    }

    /** @return the STATUS's length. */
    public static int writeStatus(
        final MutableDirectBuffer buffer,
        final int offset,
        final int sessionId,
        final int receiverId,
        final long consumed,
        final long received,
        final int window,
        final long echoTimestampNs,
        final long holdNs)
    {
        common(buffer, offset, TYPE_STATUS, 0, sessionId, consumed);
        buffer.putLong(offset + RECEIVED_OFFSET, received, ORDER);
        buffer.putInt(offset + WINDOW_OFFSET, window, ORDER);
        buffer.putInt(offset + STATUS_RECEIVER_OFFSET, receiverId, ORDER);
        buffer.putLong(offset + ECHO_OFFSET, echoTimestampNs, ORDER);
        buffer.putLong(offset + HOLD_OFFSET, holdNs, ORDER);
        return STATUS_LENGTH;
    }

    /** @return the LOST's length. */
    public static int writeLost(
        final MutableDirectBuffer buffer, final int offset, final int sessionId, final int receiverId,
        final long position)
    {
        common(buffer, offset, TYPE_LOST, 0, sessionId, position);
        buffer.putInt(offset + LOST_RESERVED_OFFSET, 0, ORDER);
        buffer.putInt(offset + LOST_RECEIVER_OFFSET, receiverId, ORDER);
        return LOST_LENGTH;
    }

    private static void common(
        final MutableDirectBuffer buffer, final int offset, final int type, final int flags, final int sessionId,
        final long position)
    {
        buffer.putByte(offset + VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + TYPE_OFFSET, (byte)type);
        buffer.putShort(offset + FLAGS_OFFSET, (short)flags, ORDER);
        buffer.putInt(offset + SESSION_OFFSET, sessionId, ORDER);
        buffer.putLong(offset + POSITION_OFFSET, position, ORDER);
    }
}
