package io.rivulet.actors;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Turns messages of one type into bytes and back, for actors on other nodes. Register serializers with
 * {@link ActorSystem.Context#serializer(Serializer)}; {@link SbeSerializer} maps a type to an SBE message,
 * {@link Serializers} has built-ins for strings, byte arrays and longs. Both nodes must register the same
 * serializer under the same {@link #id()}, which travels with every message.
 *
 * <p>Implementations must be thread-safe: any thread that sends or replies encodes, and dispatcher or engine
 * threads decode. The bytes to decode come from the network: check lengths, never trust them.
 *
 * @param <T> the type serialized.
 */
public interface Serializer<T>
{
    /** @return an id unique within the actor system, at least {@value Serializers#FIRST_USER_ID} for users. */
    int id();

    /** @return the type serialized: messages of exactly this class (or a subclass) use this serializer. */
    Class<T> type();

    /**
     * @param message to encode.
     * @param buffer  to write into; it grows as needed (an expandable buffer), so write at any offset.
     * @param offset  where to start writing.
     * @return how many bytes were written.
     */
    int encode(T message, MutableDirectBuffer buffer, int offset);

    /**
     * @param buffer holding the bytes; valid only during the call.
     * @param offset of the first byte.
     * @param length of the bytes.
     * @return the message.
     * @throws RuntimeException when the bytes are malformed.
     */
    T decode(DirectBuffer buffer, int offset, int length);
}
