package io.rivulet.protocol;

import java.util.ArrayList;

/**
 * The zero-copy requests waiting for their replies, by stream id: a slot per id, indexed by the id's position among
 * this side's ids ({@code id >>> 1}) modulo a power of two. Ids are handed out in order, so the requests in flight
 * hold consecutive slots, and a look-up, an insert and a removal are one array access each, with no hashing and no
 * chain to compact (an {@code Int2ObjectHashMap} and the id set beside it were a fifth of a pipelining caller's
 * samples). Two ids in flight that share a slot cannot be: the allocator skips an id whose slot is taken (a request
 * still waiting from as many ids ago as there are slots), which the id space affords. The slots double once half are
 * taken, so a free one is always near.
 *
 * <p>Not thread-safe: the {@link StreamTable} guards it with its lock.
 */
final class PendingReplies
{
    private static final int INITIAL_SLOTS = 64;

    private PendingReply[] slots = new PendingReply[INITIAL_SLOTS];
    private int size;

    /** @return true when a request with this id could wait here now: its slot is free. */
    boolean isSlotFree(final int streamId)
    {
        return slots[index(slots, streamId)] == null;
    }

    /**
     * @param reply waiting under its {@code streamId}, whose slot is free ({@link #isSlotFree}).
     */
    void put(final PendingReply reply)
    {
        final int index = index(slots, reply.streamId);
        if (slots[index] != null)
        {
            throw new IllegalStateException("slot of stream " + reply.streamId + " holds " + slots[index].streamId);
        }
        slots[index] = reply;
        if (++size > slots.length >> 1)
        {
            grow();
        }
    }

    /** @return the request waiting under this id, or null. */
    PendingReply get(final int streamId)
    {
        final PendingReply reply = slots[index(slots, streamId)];
        return reply != null && reply.streamId == streamId ? reply : null;
    }

    /** @return the request waiting under this id, now taken out, or null when none waits under it. */
    PendingReply remove(final int streamId)
    {
        final int index = index(slots, streamId);
        final PendingReply reply = slots[index];
        if (reply == null || reply.streamId != streamId)
        {
            return null;
        }
        slots[index] = null;
        size--;
        return reply;
    }

    /** @return requests waiting. */
    int size()
    {
        return size;
    }

    /** Takes every waiting request out, into {@code into}. */
    void removeAll(final ArrayList<PendingReply> into)
    {
        for (int i = 0; i < slots.length && size > 0; i++)
        {
            if (slots[i] != null)
            {
                into.add(slots[i]);
                slots[i] = null;
                size--;
            }
        }
    }

    /** @return slots now (tests). */
    int capacity()
    {
        return slots.length;
    }

    private void grow()
    {
        // Ids in distinct slots stay in distinct slots: the larger mask keeps every bit of the smaller one.
        final PendingReply[] larger = new PendingReply[slots.length << 1];
        for (final PendingReply reply : slots)
        {
            if (reply != null)
            {
                larger[index(larger, reply.streamId)] = reply;
            }
        }
        slots = larger;
    }

    private static int index(final PendingReply[] slots, final int streamId)
    {
        return (streamId >>> 1) & (slots.length - 1);
    }
}
