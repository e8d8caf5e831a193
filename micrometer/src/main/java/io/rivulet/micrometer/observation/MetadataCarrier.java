package io.rivulet.micrometer.observation;

import io.rivulet.Metadata;

/**
 * The carrier a requester's observation writes its trace context into ({@code traceparent}, {@code tracestate}):
 * composite metadata entries that are then added to the request's metadata.
 *
 * <p>Not thread-safe: written while the observation starts, read after.
 */
public final class MetadataCarrier
{
    private Metadata entries = Metadata.empty();

    /**
     * @param key   the entry's name, such as {@link Metadata#TRACEPARENT}.
     * @param value its value.
     */
    public void put(final String key, final String value)
    {
        entries = entries.with(key, value);
    }

    /** @return what was put, in order. */
    public Metadata entries()
    {
        return entries;
    }

    @Override
    public String toString()
    {
        return "MetadataCarrier" + entries;
    }
}
