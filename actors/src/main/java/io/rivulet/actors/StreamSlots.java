package io.rivulet.actors;

import org.reactivestreams.Publisher;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;

/**
 * Stream replies waiting for their remote asker to claim them. An actor answering a stream ask from another
 * node registers its publisher here and sends {@code StreamReady(correlationId)} on the channel; the asker
 * then opens a request-stream with {@code Route(STREAM, incarnation, correlationId)}, which claims the
 * publisher, so the stream's elements flow with Rivulet's credits (back-pressure across the wire) while the
 * ask itself kept its place in the channel's order. A slot nobody claims expires after the claim timeout,
 * and a channel's slots go when it closes.
 *
 * <p>Thread-safe.
 */
final class StreamSlots
{
    private record Key(long incarnation, long correlationId)
    {
    }

    private static final class Slot
    {
        final Publisher<?> replies;
        final InboundChannel owner;
        volatile Future<?> expiry;

        Slot(final Publisher<?> replies, final InboundChannel owner)
        {
            this.replies = replies;
            this.owner = owner;
        }

        void cancelExpiry()
        {
            final Future<?> future = expiry;
            if (future != null)
            {
                future.cancel(false);
            }
        }
    }

    private final ActorSystem system;
    private final ConcurrentHashMap<Key, Slot> slots = new ConcurrentHashMap<>();

    StreamSlots(final ActorSystem system)
    {
        this.system = system;
    }

    void register(final long incarnation, final long correlationId, final Publisher<?> replies,
        final InboundChannel owner)
    {
        final Key key = new Key(incarnation, correlationId);
        final Slot slot = new Slot(replies, owner);
        slots.put(key, slot);
        slot.expiry = system.schedule(system.context().streamClaimTimeout().toNanos(), () -> slots.remove(key, slot));
    }

    /** @return the publisher, or null when there is none (never made, claimed already, or expired). */
    Publisher<?> claim(final long incarnation, final long correlationId)
    {
        final Slot slot = slots.remove(new Key(incarnation, correlationId));
        if (slot == null)
        {
            return null;
        }
        slot.cancelExpiry();
        return slot.replies;
    }

    void dropAll(final InboundChannel owner)
    {
        slots.values().removeIf(slot ->
        {
            if (slot.owner != owner)
            {
                return false;
            }
            slot.cancelExpiry();
            return true;
        });
    }

    int size()
    {
        return slots.size();
    }
}
