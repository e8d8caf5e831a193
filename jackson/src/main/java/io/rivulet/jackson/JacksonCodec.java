package io.rivulet.jackson;

import io.rivulet.serde.Codec;
import io.rivulet.serde.CodecException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import java.util.Objects;

/**
 * JSON through Jackson 3, {@value #CONTENT_TYPE}: any class Jackson can bind (records, beans, collections). With
 * {@code rivulet-jackson} on the class path a node finds it through {@link java.util.ServiceLoader}, after its
 * built-in codecs, so that {@code String} and {@code byte[]} stay text and raw bytes and everything else goes as JSON.
 *
 * <p>The bytes to decode are hostile. They are bounded already by the node's message length
 * ({@code rivulet.maxMessageLength}), so no document, string or name can ask for more memory than that; the mapper
 * of {@link #JacksonCodec()} also limits nesting to {@value #MAX_NESTING_DEPTH} levels and numbers to
 * {@value #MAX_NUMBER_LENGTH} digits (so a number cannot cost quadratic parsing), and fails on trailing tokens. Bad
 * JSON fails with {@link CodecException} naming the type and Jackson's reason (with the location), never hangs.
 *
 * <p>Thread-safe (Jackson's mappers are).
 */
public final class JacksonCodec implements Codec<Object>
{
    /** The content type. */
    public static final String CONTENT_TYPE = "application/json";
    /** Deepest nesting of objects and arrays the default mapper reads. */
    public static final int MAX_NESTING_DEPTH = 200;
    /** Longest number, in characters, the default mapper reads. */
    public static final int MAX_NUMBER_LENGTH = 100;

    private final ObjectMapper mapper;

    /** With a mapper built for hostile input (see the class comment); the one {@link java.util.ServiceLoader} makes. */
    public JacksonCodec()
    {
        this(JsonMapper.builder(JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING_DEPTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .build())
                .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build());
    }

    /**
     * @param mapper to read and write with; register it on the node ({@code Rivulet.Context.codecs}) to use it
     *               instead of the default one. Its stream read constraints are the limits on hostile input.
     */
    public JacksonCodec(final ObjectMapper mapper)
    {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
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
    public int encode(final Object value, final MutableDirectBuffer buffer, final int offset)
    {
        final byte[] bytes;
        try
        {
            bytes = mapper.writeValueAsBytes(value);
        }
        catch (final JacksonException ex)
        {
            throw new CodecException("cannot write " + value.getClass().getName() + " as JSON: " +
                ex.getOriginalMessage(), ex);
        }
        buffer.putBytes(offset, bytes);
        return bytes.length;
    }

    @Override
    public <R> R decode(final DirectBuffer buffer, final int offset, final int length, final Class<R> type)
    {
        final byte[] bytes = new byte[length]; // bounded by the message, which the engine bounded
        buffer.getBytes(offset, bytes);
        return read(bytes, 0, length, type);
    }

    private <R> R read(final byte[] bytes, final int offset, final int length, final Class<R> type)
    {
        try
        {
            return mapper.readValue(bytes, offset, length, type);
        }
        catch (final JacksonException ex)
        {
            throw new CodecException("cannot read " + length + " bytes of JSON as " + type.getName() + ": " +
                ex.getMessage(), ex);
        }
    }

    @Override
    public String toString()
    {
        return "JacksonCodec{" + CONTENT_TYPE + "}";
    }
}
