package io.rivulet.actors;

import reactor.core.publisher.MonoSink;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The asks sent on one channel to a remote actor that wait for their replies, by correlation id. A reply
 * takes its ask out (so a second or late reply finds nothing); an ask that is cancelled or times out leaves
 * by itself; when the channel ends, every ask still waiting fails with the cause.
 *
 * <p>Bounded: an ask beyond the capacity is refused rather than queued, so a peer that never answers cannot
 * grow this table without limit.
 *
 * <p>Thread-safe.
 */
final class PendingAsks
{
    private final ConcurrentHashMap<Long, MonoSink<Object>> sinks = new ConcurrentHashMap<>();
    private final int capacity;

    /** @param capacity the most asks waiting at once. */
    PendingAsks(final int capacity)
    {
        this.capacity = capacity;
    }

    /**
     * Registers an ask; it leaves again when its sink is disposed (cancelled, timed out or answered).
     *
     * @return false when {@code capacity} asks are waiting already: the ask is not registered.
     */
    boolean add(final long id, final MonoSink<Object> sink)
    {
        if (sinks.size() >= capacity)
        {
            return false;
        }
        sinks.put(id, sink);
        sink.onDispose(() -> sinks.remove(id));
        return true;
    }

    /** @return true while the ask waits: not answered, failed, cancelled or timed out. */
    boolean isPending(final long id)
    {
        return sinks.containsKey(id);
    }

    /** @return the ask's sink, now no longer pending, or null when it is not waiting (any more). */
    MonoSink<Object> take(final long id)
    {
        return sinks.remove(id);
    }

    /** @return true when the ask was waiting and has now failed with the error. */
    boolean fail(final long id, final Throwable error)
    {
        final MonoSink<Object> sink = sinks.remove(id);
        if (sink == null)
        {
            return false;
        }
        sink.error(error);
        return true;
    }

    /** Fails every ask waiting now with the error. */
    void failAll(final Throwable error)
    {
        for (final Long id : sinks.keySet())
        {
            fail(id, error);
        }
    }

    int size()
    {
        return sinks.size();
    }
}
