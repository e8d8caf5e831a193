package io.rivulet.actors;

import io.rivulet.serde.Codec;
import io.rivulet.serde.Codecs;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.List;
import java.util.Objects;

/**
 * A {@link Codec} registered for remote actors under an id, which travels in every envelope so the receiving node
 * picks the same codec; the built-ins are String (text, id 1), {@code byte[]} (raw bytes, id 2) and Long
 * (little-endian, id 3). Immutable and thread-safe (codecs are).
 *
 * @param <T> the messages' class.
 */
final class CodecBinding<T>
{
    static final CodecBinding<String> STRING = new CodecBinding<>(1, String.class, Codecs.text());
    static final CodecBinding<byte[]> BYTES = new CodecBinding<>(2, byte[].class, Codecs.bytes());
    static final CodecBinding<Long> LONGS = new CodecBinding<>(3, Long.class, LongCodec.INSTANCE);
    private static final List<CodecBinding<?>> BUILT_INS = List.of(STRING, BYTES, LONGS);

    private final int id;
    private final Class<T> type;
    private final Codec<? super T> codec;

    CodecBinding(final int id, final Class<T> type, final Codec<? super T> codec)
    {
        this.id = id;
        this.type = Objects.requireNonNull(type, "type");
        this.codec = Objects.requireNonNull(codec, "codec");
        if (!codec.supports(type))
        {
            throw new IllegalArgumentException(codec + " does not support " + type.getName());
        }
    }

    /** @return the bindings every actor system has. */
    static List<CodecBinding<?>> builtIns()
    {
        return BUILT_INS;
    }

    int id()
    {
        return id;
    }

    Class<T> type()
    {
        return type;
    }

    int encode(final T message, final MutableDirectBuffer buffer, final int offset)
    {
        return codec.encode(message, buffer, offset);
    }

    T decode(final DirectBuffer buffer, final int offset, final int length)
    {
        return codec.decode(buffer, offset, length, type);
    }

    @Override
    public String toString()
    {
        return "codec " + id + " (" + type.getName() + " as " + codec + ")";
    }
}
