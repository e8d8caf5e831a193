package io.rivulet.protocol.datagram;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static io.rivulet.protocol.datagram.DatagramHeader.ERROR_FIELD;
import static io.rivulet.protocol.datagram.DatagramHeader.ERROR_TRUNCATED;
import static io.rivulet.protocol.datagram.DatagramHeader.ERROR_TYPE;
import static io.rivulet.protocol.datagram.DatagramHeader.ERROR_VERSION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The datagram headers round-trip, and every malformed variant is refused before a field is used. */
class DatagramHeaderTest
{
    private static final int MAX_PAYLOAD = 100;
    private static final int MAX_NAK = 64;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);

    private int validate(final int length)
    {
        return DatagramHeader.validate(buffer, 8, length, MAX_PAYLOAD, MAX_NAK);
    }

    @Test
    void roundTripsEveryType()
    {
        DatagramHeader.writeData(buffer, 8, DatagramHeader.FLAG_RETRANSMIT, 42, -7, 10, 123_456_789L);
        assertEquals(DatagramHeader.TYPE_DATA, validate(DatagramHeader.DATA_HEADER_LENGTH + 10));
        assertEquals(DatagramHeader.FLAG_RETRANSMIT, DatagramHeader.flags(buffer, 8));
        assertEquals(42, DatagramHeader.sessionId(buffer, 8));
        assertEquals(-7, DatagramHeader.sequence(buffer, 8));
        assertEquals(10, DatagramHeader.payloadLength(buffer, 8));
        assertEquals(123_456_789L, DatagramHeader.timestampNs(buffer, 8));

        DatagramHeader.writeAck(buffer, 8, 43, Integer.MIN_VALUE, 0x8000_0000_0000_0001L, 99L, 7L);
        assertEquals(DatagramHeader.TYPE_ACK, validate(DatagramHeader.ACK_LENGTH));
        assertEquals(43, DatagramHeader.sessionId(buffer, 8));
        assertEquals(Integer.MIN_VALUE, DatagramHeader.sequence(buffer, 8));
        assertEquals(0x8000_0000_0000_0001L, DatagramHeader.bitmap(buffer, 8));
        assertEquals(99L, DatagramHeader.echoTimestampNs(buffer, 8));
        assertEquals(7L, DatagramHeader.ackDelayNs(buffer, 8));

        DatagramHeader.writeNak(buffer, 8, 44, 5, 64);
        assertEquals(DatagramHeader.TYPE_NAK, validate(DatagramHeader.NAK_LENGTH));
        assertEquals(5, DatagramHeader.sequence(buffer, 8));
        assertEquals(64, DatagramHeader.nakCount(buffer, 8));
    }

    @Test
    void refusesTruncatedDatagrams()
    {
        DatagramHeader.writeData(buffer, 8, 0, 1, 1, 0, 1);
        for (int length = 0; length < DatagramHeader.DATA_HEADER_LENGTH; length++)
        {
            assertEquals(ERROR_TRUNCATED, validate(length), "DATA of " + length);
        }
        DatagramHeader.writeAck(buffer, 8, 1, 1, 0, 0, 0);
        assertEquals(ERROR_TRUNCATED, validate(DatagramHeader.ACK_LENGTH - 1));
        DatagramHeader.writeNak(buffer, 8, 1, 1, 1);
        assertEquals(ERROR_TRUNCATED, validate(DatagramHeader.NAK_LENGTH - 1));
    }

    @Test
    void refusesUnknownVersionAndType()
    {
        DatagramHeader.writeNak(buffer, 8, 1, 1, 1);
        buffer.putByte(8, (byte)2);
        assertEquals(ERROR_VERSION, validate(DatagramHeader.NAK_LENGTH));
        buffer.putByte(8, (byte)DatagramHeader.VERSION);
        for (final int type : new int[] {0, 4, 255})
        {
            buffer.putByte(9, (byte)type);
            assertEquals(ERROR_TYPE, validate(DatagramHeader.NAK_LENGTH));
        }
    }

    @Test
    void refusesFieldsThatDisagreeWithTheDatagram()
    {
        DatagramHeader.writeData(buffer, 8, 0, 1, 1, 10, 1);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.DATA_HEADER_LENGTH + 9), "payload length says 10, 9 present");
        assertEquals(ERROR_FIELD, validate(DatagramHeader.DATA_HEADER_LENGTH + 11), "trailing bytes");
        DatagramHeader.writeData(buffer, 8, 0, 1, 1, -1, 1);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.DATA_HEADER_LENGTH - 1 + 1));
        DatagramHeader.writeData(buffer, 8, 0, 1, 1, MAX_PAYLOAD + 1, 1);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.DATA_HEADER_LENGTH + MAX_PAYLOAD + 1), "over maxPayload");

        DatagramHeader.writeAck(buffer, 8, 1, 1, 0, 0, -1);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.ACK_LENGTH), "negative hold time");
        DatagramHeader.writeAck(buffer, 8, 1, 1, 0, 0, 0);
        buffer.putInt(8 + DatagramHeader.RESERVED_OFFSET, 1);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.ACK_LENGTH), "reserved must be zero");
        DatagramHeader.writeAck(buffer, 8, 1, 1, 0, 0, 0);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.ACK_LENGTH + 1), "ACK of the wrong length");

        DatagramHeader.writeNak(buffer, 8, 1, 1, 0);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.NAK_LENGTH), "empty NAK");
        DatagramHeader.writeNak(buffer, 8, 1, 1, -5);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.NAK_LENGTH));
        DatagramHeader.writeNak(buffer, 8, 1, 1, MAX_NAK + 1);
        assertEquals(ERROR_FIELD, validate(DatagramHeader.NAK_LENGTH), "NAK wider than the window");
        assertTrue(DatagramHeader.describe(ERROR_FIELD).contains("out of range"));
    }

    @Test
    void randomBytesNeverThrowAndAreRefusedOrWellFormed()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final byte[] bytes = new byte[256];
        int accepted = 0;
        for (int i = 0; i < 200_000; i++)
        {
            random.nextBytes(bytes);
            if (random.nextBoolean())
            {
                bytes[8] = DatagramHeader.VERSION;
                bytes[9] = (byte)(1 + random.nextInt(3));
            }
            buffer.putBytes(0, bytes);
            final int length = random.nextInt(200);
            final int type = validate(length);
            if (type > 0)
            {
                accepted++;
                assertTrue(length >= DatagramHeader.NAK_LENGTH);
                if (type == DatagramHeader.TYPE_DATA)
                {
                    assertEquals(length - DatagramHeader.DATA_HEADER_LENGTH, DatagramHeader.payloadLength(buffer, 8));
                }
            }
        }
        assertTrue(accepted < 200_000);
    }
}
