package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramSettings;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The fixed little-endian headers of the reliable-datagram protocol, and their validation.
 *
 * <pre>
 * common (12 bytes)   0 version u8 | 1 type u8 | 2 flags u16 | 4 sessionId i32 | 8 sequence i32
 * DATA   (24 + n)    12 payloadLength i32 | 16 timestampNs i64 | 24 payload
 * ACK    (40)        12 reserved i32 (0)  | 16 selective bitmap i64 | 24 echoed timestampNs i64 | 32 ackDelayNs i64
 * NAK    (16)        12 count i32
 * </pre>
 * In DATA, {@code sequence} is the datagram's; in ACK it is the cumulative point (the next sequence the
 * receiver expects: everything before it arrived), and bit {@code i} of the bitmap says that
 * {@code sequence + 1 + i} arrived; in NAK it is the first of {@code count} missing sequences.
 *
 * <p>A hand-written fixed header rather than SBE frames: three shapes that never grow, read once per
 * datagram on the fan-out path, and written in place in front of each message in the publisher's ring
 * (one header per path, rewritten per send). {@link #validate} treats every byte as hostile.
 */
public final class DatagramHeader
{
    public static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    public static final int VERSION = 1;

    public static final int TYPE_DATA = 1;
    public static final int TYPE_ACK = 2;
    public static final int TYPE_NAK = 3;

    /** DATA flag: this transmission is a retransmission. */
    public static final int FLAG_RETRANSMIT = 1;

    public static final int VERSION_OFFSET = 0;
    public static final int TYPE_OFFSET = 1;
    public static final int FLAGS_OFFSET = 2;
    public static final int SESSION_OFFSET = 4;
    public static final int SEQUENCE_OFFSET = 8;

    public static final int PAYLOAD_LENGTH_OFFSET = 12;
    public static final int TIMESTAMP_OFFSET = 16;
    public static final int DATA_HEADER_LENGTH = DatagramSettings.DATA_HEADER_LENGTH;

    public static final int RESERVED_OFFSET = 12;
    public static final int BITMAP_OFFSET = 16;
    public static final int ECHO_TIMESTAMP_OFFSET = 24;
    public static final int ACK_DELAY_OFFSET = 32;
    public static final int ACK_LENGTH = 40;

    public static final int COUNT_OFFSET = 12;
    public static final int NAK_LENGTH = 16;

    /** {@link #validate} result: too short for its type or for the common header. */
    public static final int ERROR_TRUNCATED = -1;
    /** {@link #validate} result: unknown version. */
    public static final int ERROR_VERSION = -2;
    /** {@link #validate} result: unknown type. */
    public static final int ERROR_TYPE = -3;
    /** {@link #validate} result: a length or count field disagrees with the datagram or the limits. */
    public static final int ERROR_FIELD = -4;

    private DatagramHeader()
    {
    }

    /**
     * Checks a received datagram before any field is used.
     *
     * @param maxPayload  longest DATA payload accepted.
     * @param maxNakCount largest NAK range accepted.
     * @return the type ({@link #TYPE_DATA}, {@link #TYPE_ACK}, {@link #TYPE_NAK}) or a negative {@code ERROR_*}.
     */
    public static int validate(
        final DirectBuffer buffer, final int offset, final int length, final int maxPayload, final int maxNakCount)
    {
        if (length < SEQUENCE_OFFSET + 4)
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
                final int payloadLength = buffer.getInt(offset + PAYLOAD_LENGTH_OFFSET, ORDER);
                if (payloadLength < 0 || payloadLength > maxPayload || payloadLength != length - DATA_HEADER_LENGTH)
                {
                    return ERROR_FIELD;
                }
                return type;
            }
            case TYPE_ACK:
            {
                if (length != ACK_LENGTH)
                {
                    return length < ACK_LENGTH ? ERROR_TRUNCATED : ERROR_FIELD;
                }
                if (buffer.getInt(offset + RESERVED_OFFSET, ORDER) != 0 || buffer.getLong(offset + ACK_DELAY_OFFSET, ORDER) < 0)
                {
                    return ERROR_FIELD;
                }
                return type;
            }
            case TYPE_NAK:
            {
                if (length != NAK_LENGTH)
                {
                    return length < NAK_LENGTH ? ERROR_TRUNCATED : ERROR_FIELD;
                }
                final int count = buffer.getInt(offset + COUNT_OFFSET, ORDER);
                if (count < 1 || count > maxNakCount)
                {
                    return ERROR_FIELD;
                }
                return type;
            }
            default:
                return ERROR_TYPE;
        }
    }

    /** @return a short description of a {@link #validate} error code. */
    public static String describe(final int error)
    {
        switch (error)
        {
            case ERROR_TRUNCATED:
                return "truncated datagram";
            case ERROR_VERSION:
                return "unknown protocol version";
            case ERROR_TYPE:
                return "unknown datagram type";
            case ERROR_FIELD:
                return "length or count field out of range";
            default:
                return "valid";
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

    public static int sequence(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + SEQUENCE_OFFSET, ORDER);
    }

    public static int payloadLength(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + PAYLOAD_LENGTH_OFFSET, ORDER);
    }

    public static long timestampNs(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + TIMESTAMP_OFFSET, ORDER);
    }

    public static long bitmap(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + BITMAP_OFFSET, ORDER);
    }

    public static long echoTimestampNs(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + ECHO_TIMESTAMP_OFFSET, ORDER);
    }

    public static long ackDelayNs(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + ACK_DELAY_OFFSET, ORDER);
    }

    public static int nakCount(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + COUNT_OFFSET, ORDER);
    }

    /** Writes the common header. */
    public static void writeCommon(
        final MutableDirectBuffer buffer, final int offset, final int type, final int flags, final int sessionId,
        final int sequence)
    {
        buffer.putByte(offset + VERSION_OFFSET, (byte)VERSION);
        buffer.putByte(offset + TYPE_OFFSET, (byte)type);
        buffer.putShort(offset + FLAGS_OFFSET, (short)flags, ORDER);
        buffer.putInt(offset + SESSION_OFFSET, sessionId, ORDER);
        buffer.putInt(offset + SEQUENCE_OFFSET, sequence, ORDER);
    }

    /** Writes a DATA header in front of a payload already in place. */
    public static void writeData(
        final MutableDirectBuffer buffer, final int offset, final int flags, final int sessionId, final int sequence,
        final int payloadLength, final long timestampNs)
    {
        writeCommon(buffer, offset, TYPE_DATA, flags, sessionId, sequence);
        buffer.putInt(offset + PAYLOAD_LENGTH_OFFSET, payloadLength, ORDER);
        buffer.putLong(offset + TIMESTAMP_OFFSET, timestampNs, ORDER);
    }

    /** Writes a whole ACK. */
    public static void writeAck(
        final MutableDirectBuffer buffer, final int offset, final int sessionId, final int cumulative,
        final long bitmap, final long echoTimestampNs, final long ackDelayNs)
    {
        writeCommon(buffer, offset, TYPE_ACK, 0, sessionId, cumulative);
        buffer.putInt(offset + RESERVED_OFFSET, 0, ORDER);
        buffer.putLong(offset + BITMAP_OFFSET, bitmap, ORDER);
        buffer.putLong(offset + ECHO_TIMESTAMP_OFFSET, echoTimestampNs, ORDER);
        buffer.putLong(offset + ACK_DELAY_OFFSET, ackDelayNs, ORDER);
    }

    /** Writes a whole NAK. */
    public static void writeNak(
        final MutableDirectBuffer buffer, final int offset, final int sessionId, final int firstMissing, final int count)
    {
        writeCommon(buffer, offset, TYPE_NAK, 0, sessionId, firstMissing);
        buffer.putInt(offset + COUNT_OFFSET, count, ORDER);
    }
}
