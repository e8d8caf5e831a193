package io.rivulet.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.rivulet.Rivulet;
import io.rivulet.counters.CounterTypes;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Exposes a node's counters (the same ones {@code rivulet stat} reads) as Micrometer meters: a
 * {@link FunctionCounter} for each total and a {@link Gauge} for each level, named by
 * {@link CounterTypes#metricName(int)} and tagged with the node, and where it applies the connection id and
 * remote address, the topic, the UD path, the RDMA provider or the exception type.
 *
 * <pre>{@code
 * RivuletMetrics metrics = RivuletMetrics.of(node);
 * metrics.bindTo(registry);
 * // connections and topics come and go: call refresh() now and then (e.g. on each scrape) to follow them
 * metrics.refresh();
 * }</pre>
 *
 * <p>Meters read the counters when the registry polls them; nothing runs on the engine's threads. Works as well
 * over another process's node file ({@code NodeFile.countersReader()}).
 *
 * <p>Thread-safe: {@link #bindTo} and {@link #refresh()} are serialised.
 */
public final class RivuletMetrics implements MeterBinder
{
    private final CountersReader counters;
    private final String nodeName;
    private final List<MeterRegistry> registries = new ArrayList<>();
    /** Meters registered per counter slot, with what the slot held then, to notice a freed or reused slot. */
    private final Map<Integer, Bound> bound = new HashMap<>();

    /**
     * @param counters a reader over a node's counters ({@code node.counters().reader()} or a node file's).
     * @param nodeName the {@code node} tag.
     */
    public RivuletMetrics(final CountersReader counters, final String nodeName)
    {
        this.counters = counters;
        this.nodeName = nodeName;
    }

    /** @return a binder over a running node's counters, tagged with its name. */
    public static RivuletMetrics of(final Rivulet node)
    {
        return new RivuletMetrics(node.counters().reader(), node.context().nodeName());
    }

    @Override
    public synchronized void bindTo(final MeterRegistry registry)
    {
        registries.add(registry);
        for (final Bound counter : bound.values())
        {
            counter.meters.add(register(registry, counter));
        }
        refresh();
    }

    /**
     * Registers meters for counters allocated since the last call (a new connection, topic or error type) and
     * removes those whose counter was freed (a closed connection).
     *
     * @return the number of counters with meters now.
     */
    public synchronized int refresh()
    {
        final Map<Integer, Identity> live = new HashMap<>();
        counters.forEach((id, typeId, key, label) ->
            live.put(id, new Identity(typeId, counters.getCounterOwnerId(id), tag(key))));
        bound.entrySet().removeIf(entry ->
        {
            if (entry.getValue().identity.equals(live.get(entry.getKey())))
            {
                return false;
            }
            for (int i = 0; i < entry.getValue().meters.size(); i++)
            {
                registries.get(i).remove(entry.getValue().meters.get(i));
            }
            return true;
        });
        for (final Map.Entry<Integer, Identity> entry : live.entrySet())
        {
            if (!bound.containsKey(entry.getKey()) && !registries.isEmpty())
            {
                final Bound counter = new Bound(entry.getKey(), entry.getValue());
                for (final MeterRegistry registry : registries)
                {
                    counter.meters.add(register(registry, counter));
                }
                bound.put(entry.getKey(), counter);
            }
        }
        return bound.size();
    }

    private Meter register(final MeterRegistry registry, final Bound counter)
    {
        final Identity identity = counter.identity;
        final String name = CounterTypes.metricName(identity.typeId);
        final Tags tags = tags(identity);
        if (CounterTypes.isLevel(identity.typeId))
        {
            return Gauge.builder(name, counter, Bound::level).tags(tags).strongReference(true).register(registry);
        }
        return FunctionCounter.builder(name, counter, Bound::total).tags(tags).register(registry);
    }

    private Tags tags(final Identity identity)
    {
        Tags tags = Tags.of(Tag.of("node", nodeName));
        if (identity.ownerId != CounterTypes.NO_OWNER)
        {
            tags = tags.and("connection", Long.toString(identity.ownerId));
        }
        final String tagKey = CounterTypes.tagKey(identity.typeId);
        if (!tagKey.isEmpty())
        {
            tags = tags.and(tagKey, identity.tag);
        }
        return tags;
    }

    private static String tag(final org.agrona.DirectBuffer key)
    {
        final int length = key.getInt(0);
        return length <= 0 || length > key.capacity() - Integer.BYTES ? "" :
            key.getStringWithoutLengthUtf8(Integer.BYTES, length);
    }

    /** What a counter slot held when its meters were made. */
    private record Identity(int typeId, long ownerId, String tag)
    {
    }

    /** A counter slot with meters, and the last value it read while the slot still held that counter. */
    private final class Bound
    {
        final int id;
        final Identity identity;
        final List<Meter> meters = new ArrayList<>();
        volatile long lastValue;

        Bound(final int id, final Identity identity)
        {
            this.id = id;
            this.identity = identity;
        }

        /** The counter's value, or its last one once the slot was freed (a total never goes back). */
        double total()
        {
            if (stillHolds())
            {
                lastValue = counters.getCounterValue(id);
            }
            return lastValue;
        }

        /** The level now, or NaN once the slot was freed. */
        double level()
        {
            return stillHolds() ? counters.getCounterValue(id) : Double.NaN;
        }

        private boolean stillHolds()
        {
            return counters.getCounterState(id) == CountersReader.RECORD_ALLOCATED &&
                counters.getCounterTypeId(id) == identity.typeId &&
                counters.getCounterOwnerId(id) == identity.ownerId;
        }
    }
}
