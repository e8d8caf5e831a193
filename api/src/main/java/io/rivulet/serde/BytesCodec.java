package io.rivulet.serde;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Raw bytes as they are, {@value #CONTENT_TYPE}: {@code byte[]} and {@link DirectBuffer} (decoded as a copy in an
 * {@link UnsafeBuffer}). Built in.
 *
 * <p>Stateless and thread-safe.
 */
public final class BytesCodec implements Codec<Object>
{
    /** The content type. */
    public static final String CONTENT_TYPE = "application/octet-stream";
    static final BytesCodec INSTANCE = new BytesCodec();

    private BytesCodec()
    {
    }

    @Override
    public String contentType()
    {
        return CONTENT_TYPE;
    }

    @Override
    public Class<Object> type()
    {
        return Object.class;
    }

    @Override
    public boolean supports(final Class<?> type)
    {
        return type == byte[].class || DirectBuffer.class.isAssignableFrom(type) && type.isAssignableFrom(
            UnsafeBuffer.class);
    }

    @Override
    public int encode(final Object value, final MutableDirectBuffer buffer, final int offset)
    {
        if (value instanceof byte[] bytes)
        {
            buffer.putBytes(offset, bytes);
            return bytes.length;
        }
        if (value instanceof DirectBuffer source)
        {
            buffer.putBytes(offset, source, 0, source.capacity());
            return source.capacity();
        }
        throw new CodecException(CONTENT_TYPE + " encodes byte[] and DirectBuffer, not " + value.getClass().getName());
    }

    @Override
    public <R> R decode(final DirectBuffer buffer, final int offset, final int length, final Class<R> type)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        if (type == byte[].class)
        {
            return type.cast(bytes);
        }
        if (supports(type))
        {
            return type.cast(new UnsafeBuffer(bytes));
        }
        throw new CodecException(CONTENT_TYPE + " decodes to byte[] or DirectBuffer, not " + type.getName());
    }

    @Override
    public String toString()
    {
        return "BytesCodec{" + CONTENT_TYPE + "}";
    }
}
