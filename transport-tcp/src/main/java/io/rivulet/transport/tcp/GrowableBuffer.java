package io.rivulet.transport.tcp;

import java.nio.ByteBuffer;

/**
 * A direct buffer that is allocated only when needed, starts small and grows on demand up to a maximum,
 * keeping the bytes in flight; freed explicitly. Growth up to the floor (one frame or record of the maximum
 * length) is always granted; growth past it draws on the driver's {@link BufferMemory} budget.
 *
 * <p>Growth allocates, so it happens while a connection warms up; once a buffer has grown its owner's steady
 * path allocates nothing. Not thread-safe: used by the one thread that owns the buffer (sender or conductor).
 */
final class GrowableBuffer
{
    /** Bytes of a buffer's first allocation: enough for the frames a connection starts with (SETUP and its reply). */
    static final int INITIAL_LENGTH = 4096;

    private final BufferMemory memory;
    private final int floor;
    private final int max;
    private ByteBuffer byteBuffer;
    private int capacity;
    /** The budget refused this buffer growth past its floor once; it does not ask again (nor count again). */
    private boolean budgetRefused;

    /**
     * @param memory accounts the bytes and holds the growth budget.
     * @param floor  the length nothing works without: growth up to it is never refused.
     * @param max    the configured length the buffer never exceeds, at least the floor.
     */
    GrowableBuffer(final BufferMemory memory, final int floor, final int max)
    {
        if (max < floor)
        {
            throw new IllegalArgumentException("max " + max + " below floor " + floor);
        }
        this.memory = memory;
        this.floor = floor;
        this.max = max;
    }

    /** @return the buffer, or null while none is allocated. */
    ByteBuffer byteBuffer()
    {
        return byteBuffer;
    }

    /** @return bytes allocated now, 0 while none. */
    int capacity()
    {
        return capacity;
    }

    /** @return the length growth never exceeds. */
    int max()
    {
        return max;
    }

    /** @return the length growth up to which is always granted. */
    int floor()
    {
        return floor;
    }

    /**
     * Grows the buffer so that it holds at least {@code required} bytes, and toward {@code wanted} (for batching),
     * as far as the budget allows: growth up to the floor is always granted, beyond it only from the budget. The
     * bytes in {@code [from, to)} move to the start of the new buffer, whose position is then {@code to - from} and
     * limit its capacity; the old buffer is freed.
     *
     * @param required the length the caller needs now.
     * @param wanted   the length the caller would like, or 0 for just the required one.
     * @param from     first byte to keep.
     * @param to       end of the bytes to keep.
     * @return true when the capacity now holds {@code required} bytes; false when that is beyond {@link #max()}, or
     *         beyond the floor with the budget spent (the caller waits, as for back-pressure).
     */
    boolean grow(final int required, final int wanted, final int from, final int to)
    {
        if (required > max)
        {
            return false;
        }
        int target = Math.min(max, Math.max(required, Math.max(wanted, Math.min(INITIAL_LENGTH, max))));
        if (target <= capacity)
        {
            return capacity >= required;
        }
        final long growth = beyondFloor(target) - beyondFloor(capacity);
        if (growth > 0 && (budgetRefused || !memory.reserveGrowth(growth)))
        {
            budgetRefused = true; // asked once: this buffer stays within its floor from now on
            // Budget spent: the largest size that needs none of it, which may not hold what the caller asked for.
            target = Math.min(target, Math.max(capacity, floor));
            if (target <= capacity || target < required)
            {
                return capacity >= required;
            }
        }
        reallocate(target, from, to);
        return true;
    }

    /**
     * Frees the buffer now; the caller guarantees that no thread uses it any more. Idempotent.
     */
    void free()
    {
        if (null != byteBuffer)
        {
            memory.releaseGrowth(beyondFloor(capacity));
            memory.free(byteBuffer);
            byteBuffer = null;
            capacity = 0;
        }
    }

    /**
     * Drops the buffer without freeing it, for when another thread may still be inside it: the GC frees it once
     * nothing refers to it. Idempotent.
     */
    void abandon()
    {
        if (null != byteBuffer)
        {
            memory.releaseGrowth(beyondFloor(capacity));
            memory.abandon(byteBuffer);
            byteBuffer = null;
            capacity = 0;
        }
    }

    private void reallocate(final int newCapacity, final int from, final int to)
    {
        final ByteBuffer grown = memory.allocate(newCapacity);
        final ByteBuffer old = byteBuffer;
        if (null != old)
        {
            old.limit(to).position(from);
            grown.put(old);
            memory.free(old); // the budget moved with the bytes: grow took only the difference
        }
        byteBuffer = grown;
        capacity = newCapacity;
    }

    private long beyondFloor(final int length)
    {
        return Math.max(0, length - floor);
    }

    @Override
    public String toString()
    {
        return "GrowableBuffer{" + capacity + " of " + max + ", floor " + floor + "}";
    }
}
