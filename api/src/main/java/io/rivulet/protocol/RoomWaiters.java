package io.rivulet.protocol;

import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The application threads parked until one connection's outbound ring has room again ({@code offer} and
 * {@code tryClaim} with a timeout), and the sender's wake-up of them once it has written some of the ring to the link.
 * Without it a back-pressured producer can only poll (a third spinning thread beside the engines) or sleep by time,
 * and a timed park is never short: Linux adds its 50 µs timer slack, and while the producer sleeps the engine drains
 * the ring and then has nothing to send.
 *
 * <p>A fixed array of slots, one per waiting thread, so that waiting allocates nothing. A thread that finds every slot
 * taken still waits, but by time ({@link #NO_SLOT}).
 *
 * <p>No wake-up is lost: a waiter takes its slot and then counts itself in (both full fences) before it tries the ring
 * once more, and the sender fences after it moved the ring's consumer position and before it reads the count. Either
 * the sender sees the waiter, or the waiter's last try sees the room.
 */
final class RoomWaiters
{
    /** Slots: waiting threads per connection that the sender wakes. */
    static final int SLOTS = 8;
    /** The slot of a waiter that found none free: it parks by time instead. */
    static final int NO_SLOT = -1;

    private final AtomicReferenceArray<Thread> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicInteger waiting = new AtomicInteger();

    /**
     * Any thread, before its last try of the ring: waits for the sender's wake-up from now on.
     *
     * @return the slot to give back to {@link #leave}, or {@link #NO_SLOT} when every slot is taken.
     */
    int enter(final Thread thread)
    {
        for (int i = 0; i < SLOTS; i++)
        {
            if (slots.get(i) == null && slots.compareAndSet(i, null, thread))
            {
                waiting.getAndIncrement(); // after the slot: a sender that sees the count sees the slot
                return i;
            }
        }
        return NO_SLOT;
    }

    /** The waiter of {@code slot} no longer waits. */
    void leave(final int slot)
    {
        if (slot != NO_SLOT)
        {
            waiting.getAndDecrement();
            slots.set(slot, null);
        }
    }

    /** Sender, after it moved the ring's consumer position, and whoever closes the connection: wakes every waiter. */
    void wake()
    {
        VarHandle.fullFence(); // the consumer position's store before the count's load (see the class comment)
        if (waiting.get() == 0)
        {
            return;
        }
        for (int i = 0; i < SLOTS; i++)
        {
            final Thread thread = slots.get(i);
            if (thread != null)
            {
                LockSupport.unpark(thread);
            }
        }
    }

    /** @return threads waiting in slots (tests). */
    int waiting()
    {
        return waiting.get();
    }
}
