package io.rivulet.actors;

import io.rivulet.serde.Codec;
import io.rivulet.serde.CodecException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/** {@link Long}s as 8 little-endian bytes: the actors' built-in codec 3. Stateless and thread-safe. */
final class LongCodec implements Codec<Long>
{
    static final LongCodec INSTANCE = new LongCodec();

    private LongCodec()
    {
    }

    @Override
    public String contentType()
    {
        return "application/x-rivulet-long";
    }

    @Override
    public Class<Long> type()
    {
        return Long.class;
    }

    @Override
    public int encode(final Long value, final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putLong(offset, value, ByteOrder.LITTLE_ENDIAN);
        return Long.BYTES;
    }

    @Override
    public <R extends Long> R decode(final DirectBuffer buffer, final int offset, final int length, final Class<R> type)
    {
        if (length != Long.BYTES)
        {
            throw new CodecException("a Long is 8 bytes, got " + length);
        }
        return type.cast(buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN));
    }

    @Override
    public String toString()
    {
        return "LongCodec";
    }
}
