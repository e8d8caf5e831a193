package io.rivulet.counters;

/**
 * One counter as read at one moment.
 *
 * @param id      the counter's slot.
 * @param typeId  one of {@link CounterTypes}.
 * @param ownerId the connection it belongs to, or {@link CounterTypes#NO_OWNER}.
 * @param tag     what it is about (remote address, topic, path, exception type), "" for none.
 * @param label   its human-readable label.
 * @param value   its value when read.
 */
public record CounterSnapshot(int id, int typeId, long ownerId, String tag, String label, long value)
{
    /** @return true when the value is a level rather than a total ({@link CounterTypes#isLevel(int)}). */
    public boolean isLevel()
    {
        return CounterTypes.isLevel(typeId);
    }
}
