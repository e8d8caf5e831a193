package io.rivulet.counters;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * Allocates counters in a node's counters region; the engine hands one to transports (through
 * {@code TransportSettings}) and to the topic layer, so that what they count shows up in the node file.
 *
 * <p>Allocation is not for the hot path: allocate when a connection, path or topic starts, increment the
 * returned {@link AtomicCounter} (allocation-free), and {@link AtomicCounter#close() close} it when the thing
 * it counts ends, which frees the slot. Implementations are thread-safe.
 */
@FunctionalInterface
public interface CounterFactory
{
    /**
     * @param typeId  one of {@link CounterTypes}.
     * @param ownerId the connection the counter belongs to, or {@link CounterTypes#NO_OWNER}.
     * @param tag     what the counter is about (a remote address, a topic name, a UD path), stored in the
     *                counter's key; truncated to {@link #MAX_TAG_LENGTH} bytes of UTF-8. Empty for none.
     * @param label   the human-readable label {@code rivulet stat} prints.
     * @return a new counter, initially 0.
     * @throws IllegalStateException when the counters region is full.
     */
    AtomicCounter newCounter(int typeId, long ownerId, String tag, String label);

    /** Longest tag, in bytes of UTF-8: the counter key holds a length and the bytes. */
    int MAX_TAG_LENGTH = org.agrona.concurrent.status.CountersReader.MAX_KEY_LENGTH - Integer.BYTES;

    /**
     * A factory for code that runs without a node (unit tests, a transport opened on its own): each counter
     * gets a private slot in direct memory, works as usual, and is seen by nobody outside the process.
     * Never full; closing a counter frees nothing.
     *
     * @return the shared detached factory.
     */
    static CounterFactory detached()
    {
        return DetachedCounters.INSTANCE;
    }
}
