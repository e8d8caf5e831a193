package io.rivulet.topic;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.codec.FrameReader;
import io.rivulet.counters.NodeCounters;
import io.rivulet.protocol.MemoryBudget;
import io.rivulet.protocol.Outbound;
import io.rivulet.protocol.EngineSideConnection;
import io.rivulet.protocol.ProtocolConnection;
import io.rivulet.protocol.SendMode;
import io.rivulet.protocol.datagram.NodeDatagrams;
import io.rivulet.protocol.datagram.TopicDatagrams;
import io.rivulet.spi.NodeExtension;
import io.rivulet.protocol.ProtocolSettings;
import io.rivulet.protocol.ReassemblyPool;
import io.rivulet.protocol.datagram.DatagramChannels;
import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import reactor.core.publisher.BaseSubscriber;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * A publisher node's topic layer and any number of subscriber connections to it, over in-memory links,
 * driven deterministically: no threads, no sleeping, time injected. {@link #step()} does what the engine
 * does in one duty cycle: conductor commands, the {@link TopicSender} (publisher side), the Sender (each
 * outbound ring into its link), then every connection's duty cycle.
 *
 * <p>Test support; single-threaded.
 */
final class TopicHarness
{
    static final long START_NS = TimeUnit.SECONDS.toNanos(1000);
    static final long HEARTBEAT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long HEARTBEAT_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(500);
    static final int MAX_FRAME_LENGTH = 4096;
    private static final int MAX_STEPS = 200_000;
    /** The simulated network's planes own their endpoints; nothing else to close. */
    private static final NodeDatagrams NO_NETWORK = new NodeDatagrams(null, "simulated", null);

    private final ArrayDeque<Runnable> commands = new ArrayDeque<>();
    private final TopicSettings settings;
    private final ProtocolSettings protocolSettings;
    final TopicRegistry publisher;
    private final TopicSender topicSender;
    private final TopicSender subscriberTopicSender;
    private final TopicRegistry subscriberTopics;
    final List<Peer> peers = new ArrayList<>();
    final List<Throwable> errors = new ArrayList<>();
    private long nowNs = START_NS;
    /** The publisher node is hung: its engine does nothing. */
    boolean publisherFrozen;
    /** The two nodes' datagram planes, when topic data may go as datagrams; null otherwise. */
    DatagramChannels publisherPlane;
    DatagramChannels subscriberPlane;
    /** Told the time before each cycle (a simulated datagram network). */
    private LongConsumer datagramClock;
    /** Whether the next subscriber connections offer datagrams (when the planes exist). */
    boolean subscriberOffersDatagrams = true;
    /** The simulated network of the two nodes' multicast endpoints, when topics go to groups; null otherwise. */
    LossyDatagramNetwork multicastNetwork;
    MulticastEndpoint publishingEndpoint;
    MulticastEndpoint receivingEndpoint;

    TopicHarness()
    {
        this(64);
    }

    /**
     * @param window the topic window (credits per topic) of every node.
     */
    TopicHarness(final int window)
    {
        settings = new TopicSettings(window, HEARTBEAT_INTERVAL_NS, HEARTBEAT_TIMEOUT_NS, MAX_FRAME_LENGTH);
        // Connection keepalive far away: these tests are about the topic layer's own liveness.
        protocolSettings = new ProtocolSettings(MAX_FRAME_LENGTH, 1 << 20, 64, TimeUnit.HOURS.toNanos(1),
            TimeUnit.HOURS.toNanos(2), 1024).withKeepalivePolicy(TimeUnit.HOURS.toNanos(2), 0);
        topicSender = new TopicSender(() -> nowNs, settings);
        publisher = new TopicRegistry(commands::add, topicSender, settings);
        subscriberTopicSender = new TopicSender(() -> nowNs, settings);
        subscriberTopics = new TopicRegistry(commands::add, subscriberTopicSender, settings);
    }

    /**
     * Before connecting: both nodes get a datagram plane, so connections made from now on carry topic data as
     * datagrams over these endpoints.
     *
     * @param clock told the time before each cycle.
     */
    TopicHarness datagrams(
        final DatagramSettings publisherSettings,
        final DatagramEndpoint publisherEndpoint,
        final DatagramSettings subscriberSettings,
        final DatagramEndpoint subscriberEndpoint,
        final LongConsumer clock)
    {
        publisherPlane = new DatagramChannels(publisherSettings, publisherEndpoint, null, MAX_FRAME_LENGTH);
        subscriberPlane = new DatagramChannels(subscriberSettings, subscriberEndpoint, null, MAX_FRAME_LENGTH);
        datagramClock = clock;
        datagramClock.accept(nowNs);
        return this;
    }

    /**
     * Before connecting: the publisher node sends the topics {@code routes} names to groups, and the subscriber node
     * (when {@code subscriberReceives}) takes topic data from groups, over endpoints of {@code network}.
     */
    TopicHarness multicast(
        final LossyDatagramNetwork network,
        final MulticastSettings multicastSettings,
        final String routes,
        final boolean subscriberReceives)
    {
        return multicast(network.newEndpoint(), subscriberReceives ? network.newEndpoint() : null, network,
            multicastSettings, routes);
    }

    /** As {@link #multicast(LossyDatagramNetwork, MulticastSettings, String, boolean)}, with given endpoints. */
    TopicHarness multicast(
        final MulticastEndpoint publishing,
        final MulticastEndpoint receiving,
        final LossyDatagramNetwork network,
        final MulticastSettings multicastSettings,
        final String routes)
    {
        multicastNetwork = network;
        publishingEndpoint = publishing;
        receivingEndpoint = receiving;
        network.nowNs = nowNs;
        publisher.multicast(TopicGroups.parse(routes), publishing, null, multicastSettings.validate(), () -> { });
        if (receiving != null)
        {
            subscriberTopics.multicast(TopicGroups.none(), null, receiving, multicastSettings, () -> { });
        }
        return this;
    }

    /** The subscriber node's topic layer (its multicast receiving plane included). */
    TopicRegistry subscriberTopics()
    {
        return subscriberTopics;
    }

    /** A connection from a subscriber node to the publisher node. */
    final class Peer
    {
        final EngineSideConnection publisherSide;
        final EngineSideConnection subscriberSide;
        final MemoryLink publisherLink;
        final MemoryLink subscriberLink;
        /** The subscriber's process is hung: its engine does nothing. */
        boolean frozen;
        boolean publisherSideReleased;
        boolean subscriberSideReleased;

        Peer(final int linkCapacityFrames, final int subscriberMaxFrameLength)
        {
            publisherLink = new MemoryLink("publisher:1", "subscriber:" + (peers.size() + 2), linkCapacityFrames);
            subscriberLink = new MemoryLink("subscriber:" + (peers.size() + 2), "publisher:1", linkCapacityFrames);
            publisherLink.peer = subscriberLink;
            subscriberLink.peer = publisherLink;
            // The layers each node runs, in the node's order: topics, then topic data as datagrams.
            final List<NodeExtension> publisherLayers = new ArrayList<>(List.of(publisher));
            final List<NodeExtension> subscriberLayers = new ArrayList<>(List.of(subscriberTopics));
            if (publisherPlane != null)
            {
                publisherLayers.add(new TopicDatagrams(publisherPlane, NO_NETWORK, MAX_FRAME_LENGTH));
                if (subscriberOffersDatagrams)
                {
                    subscriberLayers.add(new TopicDatagrams(subscriberPlane, NO_NETWORK, subscriberMaxFrameLength));
                }
            }
            publisherSide = newConnection(publisherLink, false, MAX_FRAME_LENGTH, publisherLayers);
            subscriberSide = newConnection(subscriberLink, true, subscriberMaxFrameLength, subscriberLayers);
            subscriberSide.sendSetup(new byte[0], new byte[0]);
        }

        Connection connection()
        {
            return subscriberSide;
        }
    }

    private EngineSideConnection newConnection(
        final MemoryLink link, final boolean client, final int maxFrameLength, final List<NodeExtension> layers)
    {
        final NodeCounters counters = new NodeCounters();
        final ProtocolSettings settings = new ProtocolSettings(maxFrameLength, protocolSettings.maxMessageLength(),
            protocolSettings.streamWindow(), protocolSettings.keepaliveIntervalNs(), protocolSettings.keepaliveTimeoutNs(),
            protocolSettings.frameLimit()).withKeepalivePolicy(protocolSettings.maxKeepaliveTimeoutNs(),
            protocolSettings.idleTimeoutNs());
        final Outbound outbound = new Outbound(256 * 1024, maxFrameLength, counters.backPressureEvents);
        return new EngineSideConnection(new ProtocolConnection(link, outbound, settings, counters.connectionCounters(),
            client, Responder.none(), null, layers, MemoryBudget.unlimited(),
            ReassemblyPool.forNode(settings.maxMessageLength(), Long.MAX_VALUE, System::nanoTime), commands::add,
            errors::add, nowNs));
    }

    /** Two subscriber connections, each with a subscription joined to one BLOCK publication. */
    record JoinedPair(Publication publication, Peer first, Peer second, Collector firstItems, Collector secondItems)
    {
    }

    /**
     * Publishes {@code topic}, connects two subscribers and joins both, then lets every acknowledgement come
     * back (with datagram planes, each channel's next expected sequence is then settled).
     */
    JoinedPair joinTwo(final String topic)
    {
        final Publication publication = publisher.publication(topic, TopicOptions.block());
        final Peer first = connect();
        final Peer second = connect();
        final Collector firstItems = new Collector(Long.MAX_VALUE);
        final Collector secondItems = new Collector(Long.MAX_VALUE);
        first.connection().subscribe(topic).subscribe(firstItems);
        second.connection().subscribe(topic).subscribe(secondItems);
        advanceUntil("both joined", TimeUnit.MICROSECONDS.toNanos(5), TimeUnit.SECONDS.toNanos(5),
            () -> firstItems.count(TopicMessage.Kind.JOINED) == 1 && secondItems.count(TopicMessage.Kind.JOINED) == 1);
        advance(TimeUnit.MILLISECONDS.toNanos(5));
        settle();
        return new JoinedPair(publication, first, second, firstItems, secondItems);
    }

    /** @return a new subscriber connection whose links hold any number of frames. */
    Peer connect()
    {
        return connect(Integer.MAX_VALUE);
    }

    /** @return a new subscriber connection whose links refuse frames beyond a capacity (a full socket). */
    Peer connect(final int linkCapacityFrames)
    {
        return connect(linkCapacityFrames, MAX_FRAME_LENGTH);
    }

    /** @return a new subscriber connection whose side accepts frames of at most the given length. */
    Peer connect(final int linkCapacityFrames, final int subscriberMaxFrameLength)
    {
        final Peer peer = new Peer(linkCapacityFrames, subscriberMaxFrameLength);
        peers.add(peer);
        settle();
        return peer;
    }

    long nowNs()
    {
        return nowNs;
    }

    /** One engine duty cycle at the current time. */
    int step()
    {
        int work = 0;
        if (datagramClock != null)
        {
            datagramClock.accept(nowNs);
        }
        if (multicastNetwork != null)
        {
            multicastNetwork.nowNs = nowNs;
        }
        for (int i = 0; i < 256 && !commands.isEmpty(); i++)
        {
            commands.poll().run();
            work++;
        }
        if (!publisherFrozen)
        {
            work += topicSender.doWork();
        }
        work += subscriberTopicSender.doWork();
        for (int i = 0; i < peers.size(); i++)
        {
            final Peer peer = peers.get(i);
            if (!publisherFrozen)
            {
                work += drainRing(peer.publisherSide, peer.publisherLink, true, peer);
                work += peer.publisherSide.doWork(nowNs);
            }
            if (!peer.frozen)
            {
                work += drainRing(peer.subscriberSide, peer.subscriberLink, false, peer);
                work += peer.subscriberSide.doWork(nowNs);
            }
        }
        if (publisherPlane != null)
        {
            if (!publisherFrozen)
            {
                work += publisherPlane.doWork(nowNs);
            }
            work += subscriberPlane.doWork(nowNs);
        }
        if (!publisherFrozen)
        {
            work += publisher.doWork(nowNs);
        }
        work += subscriberTopics.doWork(nowNs);
        return work;
    }

    /** Moves the clock and runs one cycle. */
    int advance(final long deltaNs)
    {
        nowNs += deltaNs;
        return step();
    }

    /** Steps until nothing happens for a few cycles. */
    void settle()
    {
        int idle = 0;
        for (int i = 0; i < MAX_STEPS && idle < 3; i++)
        {
            idle = step() == 0 ? idle + 1 : 0;
        }
        if (idle < 3)
        {
            throw new AssertionError("did not settle within " + MAX_STEPS + " steps");
        }
    }

    /** Steps until the condition holds; fails after a bounded number of steps. */
    void stepUntil(final String what, final BooleanSupplier condition)
    {
        for (int i = 0; i < MAX_STEPS; i++)
        {
            if (condition.getAsBoolean())
            {
                return;
            }
            step();
        }
        if (!condition.getAsBoolean())
        {
            throw new AssertionError("not reached within " + MAX_STEPS + " steps: " + what);
        }
    }

    /** Advances time in steps of {@code stepNs} until the condition holds, at most {@code limitNs}. */
    void advanceUntil(final String what, final long stepNs, final long limitNs, final BooleanSupplier condition)
    {
        final long endNs = nowNs + limitNs;
        while (!condition.getAsBoolean())
        {
            if (nowNs >= endNs)
            {
                throw new AssertionError("not reached within " + TimeUnit.NANOSECONDS.toMillis(limitNs) + " ms: " + what);
            }
            advance(stepNs);
        }
    }

    private final ControlledMessageHandler[] ringHandler = new ControlledMessageHandler[1];
    private MemoryLink currentLink;

    /** What the Sender agent does for one connection. */
    private int drainRing(final EngineSideConnection connection, final MemoryLink link, final boolean publisherSide,
        final Peer peer)
    {
        if (publisherSide ? peer.publisherSideReleased : peer.subscriberSideReleased)
        {
            return 0;
        }
        final SendMode mode = connection.sendMode();
        final ManyToOneRingBuffer ring = connection.outboundRing().ring();
        if (mode == SendMode.RELEASE ||
            (mode == SendMode.DRAIN && ring.consumerPosition() == ring.producerPosition()))
        {
            if (publisherSide)
            {
                peer.publisherSideReleased = true;
            }
            else
            {
                peer.subscriberSideReleased = true;
            }
            connection.onSenderReleased();
            return 1;
        }
        currentLink = link;
        if (ringHandler[0] == null)
        {
            ringHandler[0] = (msgTypeId, buffer, index, length) -> currentLink.offer(buffer, index, length) ?
                ControlledMessageHandler.Action.CONTINUE : ControlledMessageHandler.Action.ABORT;
        }
        return ring.controlledRead(ringHandler[0], 256);
    }

    /** Collects a subscription's items, requesting only what the test asks for. */
    static final class Collector extends BaseSubscriber<TopicMessage>
    {
        final List<TopicMessage> items = new ArrayList<>();
        private final long initialRequest;
        Throwable error;
        boolean completed;

        Collector(final long initialRequest)
        {
            this.initialRequest = initialRequest;
        }

        @Override
        protected void hookOnSubscribe(final org.reactivestreams.Subscription subscription)
        {
            if (initialRequest > 0)
            {
                subscription.request(initialRequest);
            }
        }

        @Override
        protected void hookOnNext(final TopicMessage value)
        {
            items.add(value);
        }

        @Override
        protected void hookOnError(final Throwable throwable)
        {
            error = throwable;
        }

        @Override
        protected void hookOnComplete()
        {
            completed = true;
        }

        List<TopicMessage> ofKind(final TopicMessage.Kind kind)
        {
            return items.stream().filter(item -> item.kind() == kind).toList();
        }

        List<Long> dataSequences()
        {
            return items.stream().filter(item -> item.kind() == TopicMessage.Kind.DATA).map(TopicMessage::sequence)
                .toList();
        }

        long count(final TopicMessage.Kind kind)
        {
            return items.stream().filter(item -> item.kind() == kind).count();
        }
    }

    /**
     * One end of an in-memory link pair. Offers copy the frame into the peer's inbox, or fail once the inbox
     * holds {@code capacity} frames (a full socket). Frame types sent are counted; {@link #inject} delivers a
     * raw frame as if the peer had sent it.
     */
    static final class MemoryLink implements ReliableLink
    {
        private final String localAddress;
        private final String remoteAddress;
        private final int capacity;
        private final ArrayDeque<byte[]> inbox = new ArrayDeque<>();
        private final FrameReader reader = new FrameReader();
        final int[] sentByType = new int[32];
        /** Calls of {@link #offerRun}, and the frames they held (taken or not). */
        int runs;
        int framesInRuns;
        /** When positive, {@link #offerRun} claims this many bytes of a run and delivers nothing: a broken link. */
        int brokenRunTake;
        MemoryLink peer;
        boolean closed;

        MemoryLink(final String localAddress, final String remoteAddress, final int capacity)
        {
            this.localAddress = localAddress;
            this.remoteAddress = remoteAddress;
            this.capacity = capacity;
        }

        @Override
        public boolean offer(final DirectBuffer buffer, final int offset, final int length)
        {
            if (closed || peer.closed)
            {
                return true;
            }
            if (peer.inbox.size() >= capacity)
            {
                return false;
            }
            final byte[] frame = new byte[length];
            buffer.getBytes(offset, frame);
            if (!reader.wrap(new UnsafeBuffer(frame), 0, length))
            {
                throw new AssertionError("malformed frame sent: " + reader.error());
            }
            sentByType[reader.frameType()]++;
            peer.inbox.add(frame);
            return true;
        }

        @Override
        public int offerRun(final DirectBuffer buffer, final int offset, final int length)
        {
            runs++;
            if (brokenRunTake > 0)
            {
                return brokenRunTake;
            }
            for (int index = offset; index < offset + length; )
            {
                framesInRuns++;
                index += RUN_PREFIX_LENGTH + buffer.getInt(index, RUN_PREFIX_ORDER);
            }
            return ReliableLink.super.offerRun(buffer, offset, length); // frame by frame, each checked
        }

        @Override
        public int flush()
        {
            return 0;
        }

        @Override
        public boolean isFlushed()
        {
            return true;
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit) throws IOException
        {
            if (closed)
            {
                throw new IOException("closed");
            }
            int frames = 0;
            byte[] frame;
            while (frames < frameLimit && !closed && (frame = inbox.poll()) != null)
            {
                handler.onFrame(new UnsafeBuffer(frame), 0, frame.length);
                frames++;
            }
            if (frames == 0 && peer.closed)
            {
                throw new LinkClosedException("peer closed");
            }
            return frames;
        }

        void inject(final byte[] frame)
        {
            inbox.add(frame.clone());
        }

        int pending()
        {
            return inbox.size();
        }

        @Override
        public String remoteAddress()
        {
            return remoteAddress;
        }

        @Override
        public String localAddress()
        {
            return localAddress;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }
}
