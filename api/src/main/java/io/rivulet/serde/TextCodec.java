package io.rivulet.serde;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * {@link String}s as UTF-8, {@value #CONTENT_TYPE}. Built in. Decoding refuses bytes that are not valid UTF-8
 * rather than replacing them.
 *
 * <p>Stateless and thread-safe.
 */
public final class TextCodec implements Codec<String>
{
    /** The content type. */
    public static final String CONTENT_TYPE = "text/plain";
    static final TextCodec INSTANCE = new TextCodec();

    private TextCodec()
    {
    }

    @Override
    public String contentType()
    {
        return CONTENT_TYPE;
    }

    @Override
    public Class<String> type()
    {
        return String.class;
    }

    @Override
    public int encode(final String value, final MutableDirectBuffer buffer, final int offset)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        buffer.putBytes(offset, bytes);
        return bytes.length;
    }

    @Override
    public <R extends String> R decode(final DirectBuffer buffer, final int offset, final int length, final Class<R> type)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        try
        {
            return type.cast(StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes)).toString());
        }
        catch (final CharacterCodingException ex)
        {
            throw new CodecException(CONTENT_TYPE + ": " + length + " bytes are not valid UTF-8", ex);
        }
    }

    @Override
    public String toString()
    {
        return "TextCodec{" + CONTENT_TYPE + "}";
    }
}
