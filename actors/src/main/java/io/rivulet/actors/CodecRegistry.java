package io.rivulet.actors;

import org.agrona.collections.Int2ObjectHashMap;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The codecs of an actor system, by id (decoding) and by class (encoding). Built once at start.
 *
 * <p>Thread-safe: the id map is never written after construction; the class map is a concurrent cache.
 */
final class CodecRegistry
{
    private final Int2ObjectHashMap<CodecBinding<?>> byId = new Int2ObjectHashMap<>();
    private final ConcurrentHashMap<Class<?>, CodecBinding<?>> byClass = new ConcurrentHashMap<>();
    private final List<CodecBinding<?>> all;

    CodecRegistry(final List<CodecBinding<?>> serializers)
    {
        this.all = List.copyOf(serializers);
        for (final CodecBinding<?> serializer : all)
        {
            final CodecBinding<?> previous = byId.put(serializer.id(), serializer);
            if (previous != null)
            {
                throw new IllegalArgumentException("codec id " + serializer.id() + " is taken by " + previous +
                    "; cannot also register " + serializer);
            }
            byClass.putIfAbsent(serializer.type(), serializer);
        }
    }

    /**
     * @param message to encode.
     * @return its serializer: of its exact class, else of the first registered supertype.
     * @throws SerializationException when none fits.
     */
    @SuppressWarnings("unchecked")
    CodecBinding<Object> forMessage(final Object message)
    {
        final Class<?> type = message.getClass();
        CodecBinding<?> serializer = byClass.get(type);
        if (serializer == null)
        {
            for (final CodecBinding<?> candidate : all)
            {
                if (candidate.type().isAssignableFrom(type))
                {
                    serializer = candidate;
                    byClass.putIfAbsent(type, candidate);
                    break;
                }
            }
        }
        if (serializer == null)
        {
            throw new SerializationException("no codec for " + type.getName() +
                "; register one with ActorSystem.Context.codec(...)");
        }
        return (CodecBinding<Object>)serializer;
    }

    /**
     * @param id from the wire.
     * @return the serializer with that id.
     * @throws SerializationException when there is none.
     */
    CodecBinding<?> forId(final int id)
    {
        final CodecBinding<?> serializer = byId.get(id);
        if (serializer == null)
        {
            throw new SerializationException("no codec with id " + id + " is registered on this node");
        }
        return serializer;
    }
}
