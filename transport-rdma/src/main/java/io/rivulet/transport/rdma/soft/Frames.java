package io.rivulet.transport.rdma.soft;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Layout of the frames the soft provider's RC wire carries (TCP stream or in-memory ring). Every frame
 * has the same fixed header, little-endian, followed by an optional payload:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  frame length (header + payload)              |  0
 *  +-------------------------------+-------------------------------+
 *  |             type              |             flags             |  4
 *  +-------------------------------+-------------------------------+
 *  |                  sequence (one per work request)              |  8
 *  +---------------------------------------------------------------+
 *  |             rkey / NAK syndrome / queue pair number           | 12
 *  +---------------------------------------------------------------+
 *  |          remote address / atomic original / magic (64)        | 16
 *  +---------------------------------------------------------------+
 *  |                    compare or add operand (64)                | 24
 *  +---------------------------------------------------------------+
 *  |                        swap operand (64)                      | 32
 *  +---------------------------------------------------------------+
 *  |                  total length of the message                  | 40
 *  +---------------------------------------------------------------+
 *  |                offset of this segment's payload               | 44
 *  +---------------------------------------------------------------+
 *  |                        immediate data                         | 48
 *  +---------------------------------------------------------------+
 *  |                           reserved                            | 52
 *  +---------------------------------------------------------------+
 *  |                      payload (segment) ...                    | 56
 * </pre>
 * Messages longer than {@link #MAX_SEGMENT} travel as several segments (FIRST, middle, LAST), as
 * hardware splits them into MTU-sized packets.
 */
final class Frames
{
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    static final int LENGTH_OFFSET = 0;
    static final int TYPE_OFFSET = 4;
    static final int FLAGS_OFFSET = 6;
    static final int SEQ_OFFSET = 8;
    static final int KEY_OFFSET = 12;
    static final int ADDRESS_OFFSET = 16;
    static final int COMPARE_ADD_OFFSET = 24;
    static final int SWAP_OFFSET = 32;
    static final int TOTAL_LENGTH_OFFSET = 40;
    static final int SEGMENT_OFFSET_OFFSET = 44;
    static final int IMM_OFFSET = 48;
    static final int HEADER_LENGTH = 56;

    /** Largest payload in one frame; keeps frames within the in-memory ring's maximum message. */
    static final int MAX_SEGMENT = 32 * 1024;
    static final int MAX_FRAME = HEADER_LENGTH + MAX_SEGMENT;

    /** "RIVSOFT1": checked in the connection request so a stray TCP client is turned away. */
    static final long MAGIC = 0x3154464F53564952L;

    // Connection management.
    static final int CONNECT_REQUEST = 1;
    static final int CONNECT_REPLY = 2;
    static final int REJECT = 3;
    static final int READY_TO_USE = 4;
    static final int DISCONNECT = 5;
    /** The sender's queue pair went to ERROR; it will not answer any more requests. */
    static final int QP_ERROR = 6;

    // Requests (requester to responder).
    static final int SEND = 10;
    static final int WRITE = 11;
    static final int READ_REQUEST = 12;
    static final int ATOMIC_REQUEST = 13;

    // Responses (responder to requester).
    static final int READ_RESPONSE = 14;
    static final int ATOMIC_RESPONSE = 15;
    static final int ACK = 16;
    static final int NAK = 17;

    static final int FLAG_FIRST = 1;
    static final int FLAG_LAST = 1 << 1;
    static final int FLAG_IMM = 1 << 2;
    /** Atomic request is compare-and-swap (otherwise fetch-and-add). */
    static final int FLAG_CAS = 1 << 3;

    static final int NAK_RNR = 1;
    static final int NAK_REMOTE_ACCESS = 2;
    static final int NAK_INVALID_REQUEST = 3;
    static final int NAK_REMOTE_OPERATION = 4;

    private Frames()
    {
    }

    /** Writes a header with every field zeroed but length, type, flags and sequence. */
    static void header(
        final MutableDirectBuffer buffer,
        final int offset,
        final int frameLength,
        final int type,
        final int flags,
        final int seq)
    {
        buffer.putInt(offset + LENGTH_OFFSET, frameLength, ORDER);
        buffer.putShort(offset + TYPE_OFFSET, (short)type, ORDER);
        buffer.putShort(offset + FLAGS_OFFSET, (short)flags, ORDER);
        buffer.putInt(offset + SEQ_OFFSET, seq, ORDER);
        buffer.putInt(offset + KEY_OFFSET, 0, ORDER);
        buffer.putLong(offset + ADDRESS_OFFSET, 0, ORDER);
        buffer.putLong(offset + COMPARE_ADD_OFFSET, 0, ORDER);
        buffer.putLong(offset + SWAP_OFFSET, 0, ORDER);
        buffer.putInt(offset + TOTAL_LENGTH_OFFSET, 0, ORDER);
        buffer.putInt(offset + SEGMENT_OFFSET_OFFSET, 0, ORDER);
        buffer.putInt(offset + IMM_OFFSET, 0, ORDER);
        buffer.putInt(offset + IMM_OFFSET + 4, 0, ORDER);
    }

    static int frameLength(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + LENGTH_OFFSET, ORDER);
    }

    static int type(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + TYPE_OFFSET, ORDER) & 0xFFFF;
    }

    static int flags(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + FLAGS_OFFSET, ORDER) & 0xFFFF;
    }

    static int seq(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + SEQ_OFFSET, ORDER);
    }

    static int key(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + KEY_OFFSET, ORDER);
    }

    static long address(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + ADDRESS_OFFSET, ORDER);
    }

    static long compareAdd(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + COMPARE_ADD_OFFSET, ORDER);
    }

    static long swap(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + SWAP_OFFSET, ORDER);
    }

    static int totalLength(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + TOTAL_LENGTH_OFFSET, ORDER);
    }

    static int segmentOffset(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + SEGMENT_OFFSET_OFFSET, ORDER);
    }

    static int imm(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + IMM_OFFSET, ORDER);
    }
}
