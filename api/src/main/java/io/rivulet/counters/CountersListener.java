package io.rivulet.counters;

/**
 * Told when a counter of a node is allocated (a connection, a topic, an error type, a UD path starts being counted)
 * and when it is freed, so that a reader such as a Micrometer binder follows the node's counters without polling
 * them. Register with {@link NodeFileWriter#addListener}.
 *
 * <p>Called on the thread that allocates or frees, often the engine's conductor, after the slot is written and
 * outside the counters' lock; never for an increment. Implementations must be thread-safe, quick and must not
 * block; what they throw is logged and ignored.
 */
public interface CountersListener
{
    /**
     * @param counterId the slot, readable with its type, owner, key and label through the node's
     *                  {@code CountersReader}.
     */
    void onAllocated(int counterId);

    /**
     * @param counterId the slot just freed; it is not reused before this call returns: a connection's slot may be
     *                  taken right after, any other only a second or more later.
     */
    void onFreed(int counterId);
}
