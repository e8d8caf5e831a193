package io.rivulet.engine;

import org.agrona.DeadlineTimerWheel;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The conductor's timers (keepalive): a binary min-heap of deadlines in primitive arrays. Scheduling and cancelling
 * cost O(log n) in the timers pending; a poll with nothing due looks at one entry, the earliest, however many timers
 * were ever pending at once.
 *
 * <p>Why not Agrona's {@link DeadlineTimerWheel}, which this replaced: its per-tick allocation grows to the largest
 * burst that ever landed in one tick and never shrinks, and every poll scans the current tick's whole spoke. After
 * bursts of about 4,000 connections (their keepalive timers scheduled inside one 1 ms tick) an idle node's ping p50
 * went from 28 µs to 48–121 µs until restart, with the engine in {@code DeadlineTimerWheel.poll} 987 samples of
 * 1,050. The wheel also moved on by at most one tick per poll, so a wheel polled once per duty cycle fell behind the
 * clock whenever a cycle took longer than a tick (on Soft-RoCE, 40 ms cycles sent 1 s keepalives 40 s apart).
 *
 * <p>{@link #poll} fires every timer whose deadline has passed, earliest first, however late the poll comes (a slow
 * duty cycle, a stall), at most {@link #EXPIRY_LIMIT} per call; the rest fire on the next call. Deadlines are on the
 * conductor's clock and compared as plain longs ({@code System.nanoTime} does not wrap in a process's lifetime).
 *
 * <p>Memory: the arrays double when full, up to the most timers ever pending at once (20 bytes per timer: 4,096
 * timers take 80 KiB), and are kept; their length does not enter the cost of a poll. Nothing is allocated otherwise.
 *
 * <p>Conductor thread only.
 */
final class ConductorTimers
{
    /** The most timers one {@link #poll} fires; the rest fire on the next. */
    static final int EXPIRY_LIMIT = 64;
    private static final int INITIAL_CAPACITY = 64;
    private static final int NOT_PENDING = -1;

    // The heap, by position: the deadline at each position and the slot of the timer there. Position 0 is due first.
    private long[] deadlines = new long[INITIAL_CAPACITY];
    private int[] heapSlots = new int[INITIAL_CAPACITY];
    private int size;

    // By slot (a timer's identity while it is pending): its position in the heap, or NOT_PENDING, and its generation,
    // which goes into the timer id so that the id of a fired or cancelled timer never cancels a later one.
    private int[] positions = new int[INITIAL_CAPACITY];
    private int[] generations = new int[INITIAL_CAPACITY];
    private int[] freeSlots = new int[INITIAL_CAPACITY];
    private int freeCount;
    private int slotsInUse;

    /** Heap entries moved by sifting, and those looked at and moved by {@link #poll}: a deterministic cost. */
    private long moves;
    private long pollWork;

    ConductorTimers()
    {
        Arrays.fill(positions, NOT_PENDING);
    }

    /**
     * @param deadlineNs when the timer fires, on the conductor's clock.
     * @return the timer's id, positive, for {@link #cancelTimer}.
     */
    long scheduleTimer(final long deadlineNs)
    {
        final int slot = acquireSlot();
        insert(slot, deadlineNs);
        return timerId(slot);
    }

    /**
     * @return whether the timer was pending (and now never fires); false for an id that fired, was cancelled or was
     * never given.
     */
    boolean cancelTimer(final long timerId)
    {
        final int slot = (int)timerId;
        if (slot < 0 || slot >= slotsInUse || generations[slot] != (int)(timerId >>> 32) ||
            positions[slot] == NOT_PENDING)
        {
            return false;
        }
        removeAt(positions[slot]);
        releaseSlot(slot);
        return true;
    }

    /**
     * Fires the timers whose deadline has passed, earliest first, up to {@link #EXPIRY_LIMIT}. The handler may
     * schedule and cancel timers. A handler that returns false keeps its timer pending and ends this poll.
     *
     * @param nowNs   the duty cycle's clock.
     * @param handler called for each, with {@code nowNs}.
     * @return timers fired.
     */
    int poll(final long nowNs, final DeadlineTimerWheel.TimerHandler handler)
    {
        final long movesBefore = moves;
        int expired = 0;
        while (size > 0 && expired < EXPIRY_LIMIT)
        {
            pollWork++;
            final long deadlineNs = deadlines[0];
            if (deadlineNs > nowNs)
            {
                break;
            }
            final int slot = heapSlots[0];
            removeAt(0);
            if (!handler.onTimerExpiry(TimeUnit.NANOSECONDS, nowNs, timerId(slot)))
            {
                insert(slot, deadlineNs);
                break;
            }
            releaseSlot(slot);
            expired++;
        }
        pollWork += moves - movesBefore;
        return expired;
    }

    /** @return timers pending. */
    long timerCount()
    {
        return size;
    }

    /** @return heap entries looked at and moved by every {@link #poll} so far (tests: the cost of polling). */
    long pollWork()
    {
        return pollWork;
    }

    private long timerId(final int slot)
    {
        return ((long)generations[slot] << 32) | slot;
    }

    private int acquireSlot()
    {
        if (freeCount > 0)
        {
            return freeSlots[--freeCount];
        }
        if (slotsInUse == positions.length)
        {
            final int capacity = positions.length * 2;
            positions = Arrays.copyOf(positions, capacity);
            Arrays.fill(positions, slotsInUse, capacity, NOT_PENDING);
            generations = Arrays.copyOf(generations, capacity);
            freeSlots = Arrays.copyOf(freeSlots, capacity);
            deadlines = Arrays.copyOf(deadlines, capacity);
            heapSlots = Arrays.copyOf(heapSlots, capacity);
        }
        final int slot = slotsInUse++;
        generations[slot] = 1; // ids are positive: -1 stays free to mean "no timer"
        return slot;
    }

    private void releaseSlot(final int slot)
    {
        positions[slot] = NOT_PENDING;
        generations[slot] = generations[slot] == Integer.MAX_VALUE ? 1 : generations[slot] + 1;
        freeSlots[freeCount++] = slot;
    }

    private void insert(final int slot, final long deadlineNs)
    {
        siftUp(size++, slot, deadlineNs);
    }

    /** Takes the entry at a position out of the heap; its slot is left NOT_PENDING but not released. */
    private void removeAt(final int position)
    {
        positions[heapSlots[position]] = NOT_PENDING;
        final int last = --size;
        if (position == last)
        {
            return;
        }
        final int movedSlot = heapSlots[last];
        final long movedDeadline = deadlines[last];
        if (position > 0 && movedDeadline < deadlines[(position - 1) >>> 1])
        {
            siftUp(position, movedSlot, movedDeadline);
        }
        else
        {
            siftDown(position, movedSlot, movedDeadline);
        }
    }

    private void siftUp(final int from, final int slot, final long deadlineNs)
    {
        int position = from;
        while (position > 0)
        {
            final int parent = (position - 1) >>> 1;
            if (deadlines[parent] <= deadlineNs)
            {
                break;
            }
            place(position, heapSlots[parent], deadlines[parent]);
            position = parent;
            moves++;
        }
        place(position, slot, deadlineNs);
    }

    private void siftDown(final int from, final int slot, final long deadlineNs)
    {
        int position = from;
        final int half = size >>> 1; // positions below it have a child
        while (position < half)
        {
            int child = 2 * position + 1;
            final int right = child + 1;
            if (right < size && deadlines[right] < deadlines[child])
            {
                child = right;
            }
            if (deadlineNs <= deadlines[child])
            {
                break;
            }
            place(position, heapSlots[child], deadlines[child]);
            position = child;
            moves++;
        }
        place(position, slot, deadlineNs);
    }

    private void place(final int position, final int slot, final long deadlineNs)
    {
        deadlines[position] = deadlineNs;
        heapSlots[position] = slot;
        positions[slot] = position;
    }
}
