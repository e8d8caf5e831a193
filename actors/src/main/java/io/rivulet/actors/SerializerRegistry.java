package io.rivulet.actors;

import org.agrona.collections.Int2ObjectHashMap;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The serializers of an actor system, by id (decoding) and by class (encoding). Built once at start.
 *
 * <p>Thread-safe: the id map is never written after construction; the class map is a concurrent cache.
 */
final class SerializerRegistry
{
    private final Int2ObjectHashMap<Serializer<?>> byId = new Int2ObjectHashMap<>();
    private final ConcurrentHashMap<Class<?>, Serializer<?>> byClass = new ConcurrentHashMap<>();
    private final List<Serializer<?>> all;

    SerializerRegistry(final List<Serializer<?>> serializers)
    {
        this.all = List.copyOf(serializers);
        for (final Serializer<?> serializer : all)
        {
            final Serializer<?> previous = byId.put(serializer.id(), serializer);
            if (previous != null)
            {
                throw new IllegalArgumentException("serializer id " + serializer.id() + " is taken by " + previous +
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
    Serializer<Object> forMessage(final Object message)
    {
        final Class<?> type = message.getClass();
        Serializer<?> serializer = byClass.get(type);
        if (serializer == null)
        {
            for (final Serializer<?> candidate : all)
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
            throw new SerializationException("no serializer for " + type.getName() +
                "; register one with ActorSystem.Context.serializer(...)");
        }
        return (Serializer<Object>)serializer;
    }

    /**
     * @param id from the wire.
     * @return the serializer with that id.
     * @throws SerializationException when there is none.
     */
    Serializer<?> forId(final int id)
    {
        final Serializer<?> serializer = byId.get(id);
        if (serializer == null)
        {
            throw new SerializationException("no serializer with id " + id + " is registered on this node");
        }
        return serializer;
    }
}
