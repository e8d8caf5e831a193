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
import io.rivulet.counters.CountersListener;
import io.rivulet.counters.NodeFileWriter;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Exposes a node's counters (the same ones {@code rivulet stat} reads) as Micrometer meters: a
 * {@link FunctionCounter} for each total and a {@link Gauge} for each level, named by
 * {@link CounterTypes#metricName(int)} and tagged with the node, and where it applies the connection id, the topic,
 * the RDMA provider or the exception type.
 *
 * <pre>{@code
 * RivuletMetrics.of(node).bindTo(registry);   // follows connections and topics as they come and go
 * }</pre>
 *
 * <p>A binder made with {@link #of(Rivulet)} follows the node by itself: it listens to its counters being
 * allocated and freed ({@link CountersListener}), so a new connection's or topic's meters appear as the
 * connection or topic starts and go away when it ends, with nothing to call. A binder over another process's node
 * file ({@code NodeFile.countersReader()}) cannot hear those events: call {@link #refresh()} now and then (on each
 * scrape, say).
 *
 * <p>Remote addresses ({@code remote} on connection counters, {@code path} on UD path counters) are not tagged by
 * default: under connection churn every peer port is a new time series (the cardinality trap Reactor Netty's
 * issues #1075 and #1320 tell of). {@link #remoteAddressTags(boolean)} turns them on.
 *
 * <p>Meters read the counters when the registry polls them. Following costs nothing on the engine's hot path: the
 * events come when a counter is allocated or freed (a connection or topic starting or ending, on the engine's
 * conductor thread), and registering or removing a meter is what is done then.
 *
 * <p>Thread-safe: {@link #bindTo}, {@link #refresh()} and the followed events are serialised.
 */
public final class RivuletMetrics implements MeterBinder, AutoCloseable
{
    /** Tag keys whose values are remote addresses. */
    private static final Set<String> ADDRESS_TAG_KEYS = Set.of("remote", "path");

    private final CountersReader counters;
    private final String nodeName;
    private final NodeFileWriter followed;
    private final CountersListener listener = new CountersListener()
    {
        @Override
        public void onAllocated(final int counterId)
        {
            sync(counterId);
        }

        @Override
        public void onFreed(final int counterId)
        {
            sync(counterId);
        }
    };
    private final List<MeterRegistry> registries = new ArrayList<>();
    /** Meters registered per counter slot, with what the slot held then, to notice a freed or reused slot. */
    private final Map<Integer, Bound> bound = new HashMap<>();
    private boolean remoteAddressTags;
    private boolean listening;
    private boolean closed;

    /**
     * A binder that does not follow the counters by itself: call {@link #refresh()} to pick up counters allocated
     * and freed since. For another process's node file; for a node of this process use {@link #of(Rivulet)}.
     *
     * @param counters a reader over a node's counters ({@code NodeFile.countersReader()}).
     * @param nodeName the {@code node} tag.
     */
    public RivuletMetrics(final CountersReader counters, final String nodeName)
    {
        this(counters, nodeName, null);
    }

    private RivuletMetrics(final CountersReader counters, final String nodeName, final NodeFileWriter followed)
    {
        this.counters = counters;
        this.nodeName = nodeName;
        this.followed = followed;
    }

    /** @return a binder over a running node's counters, tagged with its name, that follows them by itself. */
    public static RivuletMetrics of(final Rivulet node)
    {
        final NodeFileWriter nodeFile = node.counters().nodeFile();
        return new RivuletMetrics(nodeFile.countersReader(), node.context().nodeName(), nodeFile);
    }

    /**
     * Whether to tag per-connection meters with the peer's address ({@code remote}) and UD path meters with
     * their path ({@code path}); off by default (every peer port would be a new time series). Applies to meters
     * registered from then on: set it before {@link #bindTo}.
     *
     * @param enabled true to tag them.
     * @return this.
     */
    public synchronized RivuletMetrics remoteAddressTags(final boolean enabled)
    {
        this.remoteAddressTags = enabled;
        return this;
    }

    @Override
    public synchronized void bindTo(final MeterRegistry registry)
    {
        if (closed)
        {
            throw new IllegalStateException("closed");
        }
        registries.add(registry);
        for (final Bound counter : bound.values())
        {
            counter.meters.add(register(registry, counter));
        }
        if (followed != null && !listening)
        {
            listening = true;
            followed.addListener(listener); // first, so that nothing allocated during the scan below is missed
        }
        refresh();
    }

    /**
     * Registers meters for counters allocated since the last call and removes those whose counter was freed. A
     * binder made with {@link #of(Rivulet)} does this by itself as counters come and go, so calling it changes
     * nothing there; a binder over another process's node file needs it.
     *
     * @return the number of counters with meters now.
     */
    public synchronized int refresh()
    {
        final Map<Integer, Identity> live = new HashMap<>();
        counters.forEach((id, typeId, key, label) ->
            live.put(id, new Identity(typeId, counters.getCounterOwnerId(id), tag(key))));
        for (final Integer id : new ArrayList<>(bound.keySet()))
        {
            if (!bound.get(id).identity.equals(live.get(id)))
            {
                unbind(id);
            }
        }
        for (final Map.Entry<Integer, Identity> entry : live.entrySet())
        {
            if (!bound.containsKey(entry.getKey()))
            {
                bind(entry.getKey(), entry.getValue());
            }
        }
        return bound.size();
    }

    /** Stops following the node's counters; the meters registered stay. Idempotent. */
    @Override
    public synchronized void close()
    {
        closed = true;
        if (listening)
        {
            listening = false;
            followed.removeListener(listener);
        }
    }

    /** One slot changed: a counter allocated in it, or freed from it. */
    private synchronized void sync(final int id)
    {
        if (closed)
        {
            return;
        }
        final Identity live = identityAt(id);
        final Bound counter = bound.get(id);
        if (counter != null && counter.identity.equals(live))
        {
            return;
        }
        if (counter != null)
        {
            unbind(id);
        }
        if (live != null)
        {
            bind(id, live);
        }
    }

    private Identity identityAt(final int id)
    {
        if (id < 0 || id > counters.maxCounterId() || counters.getCounterState(id) != CountersReader.RECORD_ALLOCATED)
        {
            return null;
        }
        final UnsafeBuffer key = new UnsafeBuffer(counters.metaDataBuffer(),
            CountersReader.metaDataOffset(id) + CountersReader.KEY_OFFSET, CountersReader.MAX_KEY_LENGTH);
        return new Identity(counters.getCounterTypeId(id), counters.getCounterOwnerId(id), tag(key));
    }

    private void bind(final int id, final Identity identity)
    {
        if (registries.isEmpty())
        {
            return;
        }
        final Bound counter = new Bound(id, identity);
        for (final MeterRegistry registry : registries)
        {
            counter.meters.add(register(registry, counter));
        }
        bound.put(id, counter);
    }

    private void unbind(final int id)
    {
        final Bound counter = bound.remove(id);
        for (int i = 0; i < counter.meters.size(); i++)
        {
            registries.get(i).remove(counter.meters.get(i));
        }
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
        if (!tagKey.isEmpty() && (remoteAddressTags || !ADDRESS_TAG_KEYS.contains(tagKey)))
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
