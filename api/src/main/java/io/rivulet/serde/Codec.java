package io.rivulet.serde;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Turns objects into a message's data and back, under a content type such as {@code application/json} that the
 * message carries in its composite metadata ({@link io.rivulet.Metadata#CONTENT_TYPE}) so the peer knows how to read
 * it. Routed requests ({@code Connection.route}, {@link io.rivulet.route.Router}) and remote actors encode with
 * codecs.
 *
 * <p>Found through {@link java.util.ServiceLoader} (a module on the class path that lists an implementation in
 * {@code META-INF/services/io.rivulet.serde.Codec} and has a public no-argument constructor) or registered on the
 * node's context ({@code Rivulet.Context.codecs}); see {@link Codecs} for which one is chosen.
 *
 * <p>Implementations must be thread-safe: any application thread encodes, engine and application threads decode.
 * The bytes to decode come from the network and are hostile: check lengths, never allocate what a length field asks
 * before checking it against the bytes there, and fail with {@link CodecException} saying what is wrong.
 *
 * @param <T> the most general type this codec handles ({@code Object} for one that handles any type, like JSON).
 */
public interface Codec<T>
{
    /** @return the content type this codec reads and writes, e.g. {@code application/json}. */
    String contentType();

    /** @return the most general type this codec handles. */
    Class<T> type();

    /**
     * @param type a class to encode or decode.
     * @return whether this codec handles it; by default when it is {@link #type()} or a subtype.
     */
    default boolean supports(final Class<?> type)
    {
        return type().isAssignableFrom(type);
    }

    /**
     * @param value  to encode, of a type this codec {@link #supports}.
     * @param buffer to write into; it grows as needed (an expandable buffer), so write at any offset.
     * @param offset where to start writing.
     * @return how many bytes were written.
     * @throws CodecException when the value cannot be encoded.
     */
    int encode(T value, MutableDirectBuffer buffer, int offset);

    /**
     * @param buffer holding the bytes; valid only during the call.
     * @param offset of the first byte.
     * @param length of the bytes.
     * @param type   the class wanted, one this codec {@link #supports}.
     * @param <R>    the class wanted.
     * @return the value.
     * @throws CodecException when the bytes are not a valid encoding of the type.
     */
    <R extends T> R decode(DirectBuffer buffer, int offset, int length, Class<R> type);
}
