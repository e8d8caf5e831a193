package io.rivulet.topic;

import io.rivulet.ConfigurationException;
import io.rivulet.codec.FrameType;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.EngineWake;
import io.rivulet.spi.NodeExtension;

import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node's topics: its publications by name, and the topic endpoint of each of its connections. Creating
 * and closing publications may happen on any thread; matching publications against subscriptions happens
 * on the conductor, where the endpoints live.
 *
 * <p>Thread-safety: {@link #publication} and {@link #onClosed} from any thread; the rest on the conductor.
 */
public final class TopicRegistry implements NodeExtension
{
    private static final int[] FRAME_TYPES = {FrameType.TOPIC_DATA, FrameType.SUBSCRIBE, FrameType.UNSUBSCRIBE,
        FrameType.TOPIC_STATUS, FrameType.TOPIC_ATTACH, FrameType.TOPIC_SNAPSHOT, FrameType.TOPIC_GAP,
        FrameType.TOPIC_HEARTBEAT, FrameType.TOPIC_DETACH, FrameType.MULTICAST_OFFER, FrameType.TOPIC_MULTICAST,
        FrameType.TOPIC_MULTICAST_LEFT};
    /** How often publication statistics reach the counters; readers see them lag by up to this much. */
    private static final long SAMPLE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);

    private final ConcurrentHashMap<String, Publication> byName = new ConcurrentHashMap<>();
    private final AtomicInteger nextTopicId = new AtomicInteger();
    private final Executor conductor;
    /** Wakes an engine asleep in its transport's selector when a publication hands it messages. */
    private final EngineWake wake;
    private final TopicSender sender;
    private final TopicSettings settings;

    // Conductor.
    private final ArrayList<Publication> publications = new ArrayList<>();
    private final ArrayList<TopicEndpoint> endpoints = new ArrayList<>();
    private final java.util.IdentityHashMap<Publication, TopicCounters> counters = new java.util.IdentityHashMap<>();
    /** Where publications' counters go; null for none (unit tests). */
    private final io.rivulet.counters.CounterFactory counterFactory;
    private long nextSampleNs;
    // Multicast, set before the node starts: which topics go to which group, the sender thread's publishing plane
    // and the conductor's receiving plane (each null without), and the network both are on.
    private TopicGroups groups = TopicGroups.none();
    private io.rivulet.protocol.datagram.multicast.MulticastSenders multicastSenders;
    private io.rivulet.protocol.datagram.multicast.MulticastReceivers multicastReceivers;
    private io.rivulet.spi.MulticastSettings multicastSettings;
    private Runnable multicastClosed;

    /**
     * A registry whose publications have no counters (unit tests).
     *
     * @param conductor runs commands on the conductor thread.
     * @param sender    the data plane, on the sender thread.
     * @param settings  the node's topic settings.
     */
    public TopicRegistry(final Executor conductor, final TopicSender sender, final TopicSettings settings)
    {
        this(conductor, EngineWake.NONE, sender, settings, null);
    }

    /**
     * @param conductor      runs commands on the conductor thread.
     * @param wake           told when a publication makes messages visible to the engine.
     * @param sender         the data plane, on the sender thread.
     * @param settings       the node's topic settings.
     * @param counterFactory where each publication gets its counters in the node file; null for none.
     */
    public TopicRegistry(
        final Executor conductor,
        final EngineWake wake,
        final TopicSender sender,
        final TopicSettings settings,
        final io.rivulet.counters.CounterFactory counterFactory)
    {
        this.conductor = conductor;
        this.wake = wake;
        this.sender = sender;
        this.settings = settings;
        this.counterFactory = counterFactory;
    }


    /**
     * Before the node starts: topics matching {@code groups} go to multicast groups through the {@code publishing}
     * endpoint (owned by the sender thread from now on), and topic data from groups is taken through the
     * {@code receiving} one (owned by the conductor). Both close with this registry, then {@code onClosed} runs.
     *
     * @param groups     which topics go to which group.
     * @param publishing the publishing endpoint, or null when this node publishes to no group.
     * @param receiving  the receiving endpoint, or null when it takes nothing from groups.
     * @param settings   the protocol's settings, validated.
     * @param onClosed   runs once both endpoints closed (releases the network they are on).
     */
    public void multicast(
        final TopicGroups groups,
        final io.rivulet.spi.MulticastEndpoint publishing,
        final io.rivulet.spi.MulticastEndpoint receiving,
        final io.rivulet.spi.MulticastSettings settings,
        final Runnable onClosed)
    {
        this.groups = groups;
        this.multicastSenders = publishing == null ? null :
            new io.rivulet.protocol.datagram.multicast.MulticastSenders(settings, publishing);
        this.multicastReceivers = receiving == null ? null :
            new io.rivulet.protocol.datagram.multicast.MulticastReceivers(settings, receiving, System.nanoTime());
        this.multicastSettings = settings;
        this.multicastClosed = onClosed;
        if (counterFactory != null)
        {
            try
            {
                if (multicastSenders != null)
                {
                    multicastSenders.counters(io.rivulet.counters.MulticastSendCounters.allocate(counterFactory,
                        publishing.localAddress()));
                }
                if (multicastReceivers != null)
                {
                    multicastReceivers.counters(io.rivulet.counters.MulticastReceiveCounters.allocate(counterFactory,
                        receiving.localAddress()));
                }
            }
            catch (final IllegalStateException full)
            {
                // The counters region is full (rivulet.maxCounters): multicast works, only uncounted.
            }
        }
        sender.multicast(multicastSenders);
    }

    /** @return true when this node publishes topics to multicast groups. */
    boolean publishesToGroups()
    {
        return multicastSenders != null;
    }

    /** @return the receiving plane of multicast (conductor), or null. */
    io.rivulet.protocol.datagram.multicast.MulticastReceivers multicastReceivers()
    {
        return multicastReceivers;
    }

    /** @return the multicast protocol's settings, or null without multicast. */
    io.rivulet.spi.MulticastSettings multicastSettings()
    {
        return multicastSettings;
    }

    /** Conductor: copies every publication's statistics to its counters. */
    public void sampleCounters()
    {
        for (int i = 0; i < publications.size(); i++)
        {
            final Publication publication = publications.get(i);
            final TopicCounters topicCounters = counters.get(publication);
            if (topicCounters != null)
            {
                topicCounters.sample(publication);
            }
        }
    }

    /**
     * Any thread: starts publishing a topic.
     *
     * @param topic   a topic name (no wildcards).
     * @param options the topic's policy and sizes.
     * @return the publication.
     * @throws IllegalArgumentException when the name is not valid.
     * @throws IllegalStateException    when this node already publishes the topic.
     * @throws ConfigurationException   when an option is out of range.
     */
    public Publication publication(final String topic, final TopicOptions options)
    {
        final TopicPattern name = TopicPattern.name(topic);
        final TopicOptions concluded = options.conclude(settings.maxFrameLength());
        final int sessionId = newSessionId();
        final Publication publication = new Publication(this, nextTopicId.incrementAndGet(), name, sessionId, concluded,
            settings);
        if (byName.putIfAbsent(topic, publication) != null)
        {
            throw new IllegalStateException("this node already publishes " + topic + "; close that publication first");
        }
        final String group = multicastSenders == null ? null : groups.groupOf(name);
        if (group != null)
        {
            publication.engine().multicast(new PublicationMulticast(publication, group, multicastSenders));
        }
        sender.add(publication.engine());
        conductor.execute(() -> onAdded(publication));
        return publication;
    }

    /** Any thread: a publication closed; its name may be published again. */
    void onClosed(final Publication publication)
    {
        byName.remove(publication.topic(), publication);
        conductor.execute(() ->
        {
            publications.remove(publication);
            final TopicCounters topicCounters = counters.remove(publication);
            if (topicCounters != null)
            {
                topicCounters.close();
            }
            publication.engine().unlisted();
        });
    }

    @Override
    public int[] frameTypes()
    {
        return FRAME_TYPES.clone();
    }

    /**
     * Conductor: a connection opened.
     *
     * @param connection the connection as its extensions see it.
     * @return its endpoint, which the connection drives.
     */
    @Override
    public TopicEndpoint attach(final ConnectionServices connection)
    {
        final TopicEndpoint endpoint = new TopicEndpoint(this, connection, settings);
        endpoints.add(endpoint);
        return endpoint;
    }

    /** Conductor: takes topic data from groups; samples the publications' statistics into their counters every 100 ms. */
    @Override
    public int doWork(final long nowNs)
    {
        final int work = multicastReceivers == null ? 0 : multicastReceivers.doWork(nowNs);
        if (nowNs - nextSampleNs < 0)
        {
            return work;
        }
        nextSampleNs = nowNs + SAMPLE_INTERVAL_NS;
        sampleCounters();
        return work;
    }

    /**
     * Conductor, the node closing (after the sender thread stopped, in every threading mode): the multicast planes close
     * their endpoints, then the network is released.
     */
    @Override
    public void close()
    {
        if (multicastClosed == null)
        {
            return;
        }
        try
        {
            if (multicastReceivers != null)
            {
                multicastReceivers.close();
            }
            if (multicastSenders != null)
            {
                multicastSenders.close();
            }
        }
        finally
        {
            final Runnable closed = multicastClosed;
            multicastClosed = null;
            closed.run();
        }
    }

    /** Conductor: a connection finished. */
    void remove(final TopicEndpoint endpoint)
    {
        endpoints.remove(endpoint);
    }

    /** Any thread: runs a command on the conductor. */
    void execute(final Runnable command)
    {
        conductor.execute(command);
    }

    /** @return the publications known to the conductor (conductor only). */
    ArrayList<Publication> publications()
    {
        return publications;
    }

    /** @return the publication of a topic on this node, or null (any thread). */
    public Publication publication(final String topic)
    {
        return byName.get(topic);
    }

    /** Closes every publication (node shutdown). */
    public void closeAll()
    {
        for (final Publication publication : byName.values())
        {
            publication.close();
        }
    }

    private void onAdded(final Publication publication)
    {
        if (publication.isClosed())
        {
            publication.engine().unlisted();
            return;
        }
        publications.add(publication);
        if (counterFactory != null)
        {
            try
            {
                counters.put(publication, new TopicCounters(counterFactory, publication.topic()));
            }
            catch (final IllegalStateException ex)
            {
                // The counters region is full (rivulet.maxCounters): the topic works, only uncounted.
            }
        }
        for (int i = 0; i < endpoints.size(); i++)
        {
            endpoints.get(i).onPublicationAdded(publication);
        }
    }

    /** A random, non-zero id for each incarnation, so that a restarted publisher is told apart. */
    private static int newSessionId()
    {
        int id;
        do
        {
            id = ThreadLocalRandom.current().nextInt();
        }
        while (id == 0);
        return id;
    }

    /** Any thread: a publication made messages visible to the engine. */
    void afterHandOff()
    {
        wake.afterHandOff();
    }
}
