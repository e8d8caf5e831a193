package io.rivulet.serde;

import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A node's codecs, in the order they are tried: those registered on the context ({@code Rivulet.Context.codecs}),
 * then the built-ins ({@link BytesCodec} for {@code byte[]} and {@code DirectBuffer}, {@link TextCodec} for
 * {@code String}), then those found through {@link ServiceLoader} (such as {@code rivulet-jackson}'s JSON, which takes
 * any type). To encode a value without a content type asked for, the first codec that {@link Codec#supports} its
 * class is chosen: a node with {@code rivulet-jackson} on its class path sends records as JSON and strings as text.
 * To decode, the content type the message carries picks among the codecs of that content type the first that
 * supports the class wanted; a message without one is read like an encode would have written it.
 *
 * <p>Immutable and thread-safe (the choice per class is cached).
 */
public final class Codecs
{
    private static volatile List<Codec<?>> loaded;
    private static final Codecs DEFAULTS = new Codecs(List.of());

    private final List<Codec<?>> codecs;
    private final ConcurrentHashMap<Class<?>, Codec<?>> byClass = new ConcurrentHashMap<>();

    private Codecs(final List<Codec<?>> explicit)
    {
        final List<Codec<?>> all = new ArrayList<>(explicit);
        all.add(BytesCodec.INSTANCE);
        all.add(TextCodec.INSTANCE);
        all.addAll(loaded());
        this.codecs = List.copyOf(all);
    }

    /** @return the built-ins and the codecs on the class path. */
    public static Codecs defaults()
    {
        return DEFAULTS;
    }

    /**
     * @param explicit codecs tried first, in order.
     * @return them, then the built-ins, then the codecs on the class path.
     */
    public static Codecs of(final List<? extends Codec<?>> explicit)
    {
        return explicit.isEmpty() ? DEFAULTS : new Codecs(List.copyOf(explicit));
    }

    /** @return the built-in raw bytes codec. */
    public static Codec<Object> bytes()
    {
        return BytesCodec.INSTANCE;
    }

    /** @return the built-in UTF-8 text codec. */
    public static Codec<String> text()
    {
        return TextCodec.INSTANCE;
    }

    /** @return every codec, in the order they are tried. */
    public List<Codec<?>> all()
    {
        return codecs;
    }

    /**
     * @param type a class to encode or decode.
     * @return the first codec that supports it.
     * @throws CodecException when none does.
     */
    @SuppressWarnings("unchecked")
    public Codec<Object> forType(final Class<?> type)
    {
        Codec<?> codec = byClass.get(type);
        if (codec == null)
        {
            for (final Codec<?> candidate : codecs)
            {
                if (candidate.supports(type))
                {
                    codec = candidate;
                    byClass.putIfAbsent(type, candidate);
                    break;
                }
            }
        }
        if (codec == null)
        {
            throw new CodecException("no codec for " + type.getName() + " (codecs: " + contentTypes() +
                "); register one with Rivulet.Context.codecs(...) or add rivulet-jackson for JSON");
        }
        return (Codec<Object>)codec;
    }

    /**
     * @param contentType the content type the bytes are in, or null to choose by type.
     * @param type        the class wanted.
     * @return the first codec of that content type that supports the class.
     * @throws CodecException when none does.
     */
    @SuppressWarnings("unchecked")
    public Codec<Object> find(final String contentType, final Class<?> type)
    {
        if (contentType == null)
        {
            return forType(type);
        }
        for (final Codec<?> candidate : codecs)
        {
            if (candidate.contentType().equals(contentType) && candidate.supports(type))
            {
                return (Codec<Object>)candidate;
            }
        }
        throw new CodecException("no codec for content type '" + contentType + "' and " + type.getName() +
            " (codecs: " + contentTypes() + ")");
    }

    private String contentTypes()
    {
        final List<String> types = new ArrayList<>();
        for (final Codec<?> codec : codecs)
        {
            if (!types.contains(codec.contentType()))
            {
                types.add(codec.contentType());
            }
        }
        return String.join(", ", types);
    }

    @SuppressWarnings("rawtypes")
    private static List<Codec<?>> loaded()
    {
        List<Codec<?>> found = loaded;
        if (found == null)
        {
            final List<Codec<?>> codecs = new ArrayList<>();
            final Iterator<Codec> providers = ServiceLoader.load(Codec.class, Codecs.class.getClassLoader()).iterator();
            while (true)
            {
                try
                {
                    if (!providers.hasNext())
                    {
                        break;
                    }
                    codecs.add(providers.next());
                }
                catch (final ServiceConfigurationError ex)
                {
                    // A codec whose library is missing must not take the node's other codecs down with it.
                    LoggerFactory.getLogger(Codecs.class).warn("codec not loaded: {}", ex.toString());
                }
            }
            found = List.copyOf(codecs);
            loaded = found;
        }
        return found;
    }

    @Override
    public String toString()
    {
        return "Codecs" + codecs;
    }
}
