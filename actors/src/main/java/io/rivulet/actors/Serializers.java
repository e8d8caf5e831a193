package io.rivulet.actors;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Built-in {@link Serializer}s, registered in every actor system: {@link String} (UTF-8, id 1),
 * {@code byte[]} (id 2) and {@link Long} (little-endian, id 3). Ids below {@value #FIRST_USER_ID} are
 * reserved for built-ins.
 */
public final class Serializers
{
    /** The first id free for applications. */
    public static final int FIRST_USER_ID = 100;

    private static final Serializer<String> STRING = new Serializer<>()
    {
        @Override
        public int id()
        {
            return 1;
        }

        @Override
        public Class<String> type()
        {
            return String.class;
        }

        @Override
        public int encode(final String message, final MutableDirectBuffer buffer, final int offset)
        {
            final byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
            buffer.putBytes(offset, bytes);
            return bytes.length;
        }

        @Override
        public String decode(final DirectBuffer buffer, final int offset, final int length)
        {
            return buffer.getStringWithoutLengthUtf8(offset, length);
        }
    };

    private static final Serializer<byte[]> BYTES = new Serializer<>()
    {
        @Override
        public int id()
        {
            return 2;
        }

        @Override
        public Class<byte[]> type()
        {
            return byte[].class;
        }

        @Override
        public int encode(final byte[] message, final MutableDirectBuffer buffer, final int offset)
        {
            buffer.putBytes(offset, message);
            return message.length;
        }

        @Override
        public byte[] decode(final DirectBuffer buffer, final int offset, final int length)
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            return bytes;
        }
    };

    private static final Serializer<Long> LONG = new Serializer<>()
    {
        @Override
        public int id()
        {
            return 3;
        }

        @Override
        public Class<Long> type()
        {
            return Long.class;
        }

        @Override
        public int encode(final Long message, final MutableDirectBuffer buffer, final int offset)
        {
            buffer.putLong(offset, message, ByteOrder.LITTLE_ENDIAN);
            return Long.BYTES;
        }

        @Override
        public Long decode(final DirectBuffer buffer, final int offset, final int length)
        {
            if (length != Long.BYTES)
            {
                throw new IllegalArgumentException("a Long is 8 bytes, got " + length);
            }
            return buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN);
        }
    };

    private Serializers()
    {
    }

    /** @return UTF-8 strings, id 1. */
    public static Serializer<String> string()
    {
        return STRING;
    }

    /** @return byte arrays as they are, id 2. */
    public static Serializer<byte[]> bytes()
    {
        return BYTES;
    }

    /** @return longs, id 3. */
    public static Serializer<Long> longs()
    {
        return LONG;
    }
}
