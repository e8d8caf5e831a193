package io.rivulet.topic;

import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The last value of each key of a keyed topic, with the sequence it was published at: what a late
 * joiner's snapshot and a conflation catch-up are made of. Bounded by the topic's key limit (enforced by
 * the publisher) times its longest message. A key's slot is allocated when the key first appears and
 * grows only to the longest value seen for it, so a steady stream of same-sized values does not allocate.
 *
 * <p>Not thread-safe: owned by the sender thread, like the rest of a publication's engine side.
 */
final class LastValueTable
{
    private static final Entry[] NONE = new Entry[0];
    private static final Comparator<Entry> BY_SEQUENCE = Comparator.comparingLong(entry -> entry.sequence);

    private final Long2ObjectHashMap<Slot> slots;
    private long retainedBytes;

    /** One key's latest value. */
    private static final class Slot
    {
        long sequence;
        byte[] data;
        int length;
    }

    /**
     * A copy of one key's value taken for a snapshot: immutable, so it can be sent over many duty cycles.
     *
     * @param sequence the sequence the value was published at.
     * @param key      the key.
     * @param data     the value's bytes.
     */
    record Entry(long sequence, long key, byte[] data)
    {
    }

    LastValueTable(final int maxKeys)
    {
        slots = new Long2ObjectHashMap<>(Math.max(8, maxKeys * 2), 0.65f);
    }

    /**
     * Records a key's latest value.
     *
     * @param key      the key.
     * @param sequence the value's sequence, higher than any recorded before.
     * @param buffer   holding the value.
     * @param offset   of the value.
     * @param length   of the value.
     */
    void put(final long key, final long sequence, final DirectBuffer buffer, final int offset, final int length)
    {
        Slot slot = slots.get(key);
        if (slot == null)
        {
            slot = new Slot();
            slot.data = new byte[length];
            slots.put(key, slot);
            retainedBytes += length;
        }
        else if (slot.data.length < length)
        {
            retainedBytes += length - slot.data.length;
            slot.data = new byte[length];
        }
        buffer.getBytes(offset, slot.data, 0, length);
        slot.length = length;
        slot.sequence = sequence;
    }

    /**
     * Copies the values published after a sequence, in sequence order.
     *
     * @param afterSequence 0 for every key.
     * @return the entries (allocates: control path, on a join or a conflation).
     */
    Entry[] snapshot(final long afterSequence)
    {
        if (slots.isEmpty())
        {
            return NONE;
        }
        final ArrayList<Entry> entries = new ArrayList<>(slots.size());
        final Long2ObjectHashMap<Slot>.EntryIterator iterator = slots.entrySet().iterator();
        while (iterator.hasNext())
        {
            iterator.next();
            final Slot slot = iterator.getValue();
            if (slot.sequence > afterSequence)
            {
                entries.add(new Entry(slot.sequence, iterator.getLongKey(), Arrays.copyOf(slot.data, slot.length)));
            }
        }
        final Entry[] sorted = entries.toArray(NONE);
        Arrays.sort(sorted, BY_SEQUENCE);
        return sorted;
    }

    /** @return the number of keys. */
    int size()
    {
        return slots.size();
    }

    /** @return bytes held for values. */
    long retainedBytes()
    {
        return retainedBytes;
    }
}
