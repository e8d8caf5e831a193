package io.rivulet.topic;

import io.rivulet.codec.FrameType;
import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topics over multicast, the topic layer and the multicast protocol together over in-memory links and a simulated
 * datagram network, stepped by hand: the hand-over after the join, one stream for every subscriber connection, the
 * slow-consumer policies, falling back to the connection, and nodes that take no multicast.
 */
class TopicMulticastTest
{
    private static final long STEP_NS = TimeUnit.MICROSECONDS.toNanos(20);
    private static final long LIMIT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final String GROUP = "239.1.2.3:40456";

    private final TopicHarness harness = new TopicHarness(256);
    private final LossyDatagramNetwork network = new LossyDatagramNetwork(21, 1500, 8192);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[2048]);
    private MulticastSettings settings;

    @BeforeEach
    void multicastSettings()
    {
        settings = new MulticastSettings().timeoutNs(TimeUnit.MILLISECONDS.toNanos(200));
    }

    private TopicHarness.Collector subscribe(final TopicHarness.Peer peer, final String pattern)
    {
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe(pattern).subscribe(collector);
        harness.advanceUntil("joined", STEP_NS, LIMIT_NS, () -> collector.count(TopicMessage.Kind.JOINED) == 1);
        return collector;
    }

    /** Sequences published so far, by every publication of the test (one at a time). */
    private int published;
    /** Most messages offered per step: a producer's pace, so that a log fills only when a subscriber lags. */
    private int perStep = Integer.MAX_VALUE;

    /**
     * Publishes {@code count} more messages, stepping while the log is full, until every collector has the last.
     */
    private void publishUntilDelivered(
        final Publication publication, final int count, final List<TopicHarness.Collector> collectors)
    {
        final int last = published + count;
        final long endNs = harness.nowNs() + LIMIT_NS;
        while (harness.nowNs() < endNs)
        {
            for (int offered = 0; published < last && offered < perStep; offered++)
            {
                final int length = 8 + (published * 31) % 400;
                message.putInt(0, published + 1);
                message.putByte(length - 1, (byte)(published + 1));
                if (publication.offer(message, 0, length) < 0)
                {
                    break;
                }
                published++;
            }
            harness.advance(STEP_NS);
            if (published == last && collectors.stream().allMatch(c -> lastData(c) >= last))
            {
                return;
            }
        }
        final PublicationMulticast multicast = publication.engine().multicast();
        throw new AssertionError("not delivered in time: published " + published + " of " + last + ", delivered up to " +
            collectors.stream().map(c -> Long.toString(lastData(c))).toList() + "; " +
            (multicast == null ? "" : multicast.stream() + " " + publication.engine().multicast().available()) +
            describeReceivers());
    }

    private String describeReceivers()
    {
        final io.rivulet.protocol.datagram.multicast.MulticastReceivers plane = harness.subscriberTopics().multicastReceivers();
        return plane == null ? "" : "; receiving plane: images " + plane.imageCount() + ", malformed " +
            plane.malformedDatagrams() + " (" + plane.lastError() + "), unknown sessions " + plane.unknownSessions() +
            ", foreign " + plane.foreignDatagrams();
    }

    private static long lastData(final TopicHarness.Collector collector)
    {
        final List<Long> sequences = collector.dataSequences();
        return sequences.isEmpty() ? 0 : sequences.get(sequences.size() - 1);
    }

    private static void assertInOrderOnce(final TopicHarness.Collector collector, final long from, final long to)
    {
        final List<Long> sequences = collector.dataSequences();
        assertThat(sequences).hasSize((int)(to - from + 1));
        for (int i = 0; i < sequences.size(); i++)
        {
            assertThat(sequences.get(i)).isEqualTo(from + i);
        }
        assertThat(collector.count(TopicMessage.Kind.GAP)).isZero();
    }

    @Test
    void shouldHandEverySubscriberOverToOneStreamToTheGroup()
    {
        harness.multicast(network, settings, "md.>=" + GROUP, true);
        final Publication publication = harness.publisher.publication("md.a", TopicOptions.block());
        final TopicHarness.Peer first = harness.connect();
        final TopicHarness.Peer second = harness.connect();
        final TopicHarness.Collector firstItems = subscribe(first, "md.a");
        final TopicHarness.Collector secondItems = subscribe(second, "md.>");

        publishUntilDelivered(publication, 5_000, List.of(firstItems, secondItems));

        assertInOrderOnce(firstItems, 1, 5_000);
        assertInOrderOnce(secondItems, 1, 5_000);
        for (final TopicHarness.Peer peer : List.of(first, second))
        {
            assertThat(peer.subscriberLink.sentByType[FrameType.MULTICAST_OFFER]).isEqualTo(1);
            assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isEqualTo(1);
            // Every message came from the group: none over the connection.
            assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isZero();
        }
        final PublicationMulticast multicast = publication.engine().multicast();
        assertThat(multicast.stream().receiverCount()).isEqualTo(2);
        // One stream: the log's bytes went to the group once, whatever the number of subscriber connections.
        assertThat(multicast.stream().bytesSent()).isEqualTo(multicast.available());
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldDeliverInOrderOnceOverALossyNetwork()
    {
        network.faults(0.10, 0.02, 0.05).groupDrop(0.05);
        harness.multicast(network, settings, "md.>=" + GROUP, true);
        final Publication publication = harness.publisher.publication("md.a", TopicOptions.block());
        final TopicHarness.Peer first = harness.connect();
        final TopicHarness.Peer second = harness.connect();
        final TopicHarness.Collector firstItems = subscribe(first, "md.a");
        final TopicHarness.Collector secondItems = subscribe(second, "md.a");

        publishUntilDelivered(publication, 20_000, List.of(firstItems, secondItems));

        assertInOrderOnce(firstItems, 1, 20_000);
        assertInOrderOnce(secondItems, 1, 20_000);
        for (final TopicMessage item : firstItems.ofKind(TopicMessage.Kind.DATA))
        {
            assertThat(item.data().getInt(0)).isEqualTo((int)item.sequence());
            assertThat(item.data().getByte(item.dataLength() - 1)).isEqualTo((byte)item.sequence());
        }
        assertThat(publication.engine().multicast().stream().repairDatagrams()).isPositive();
        assertThat(first.publisherLink.sentByType[FrameType.TOPIC_DATA]).isZero();
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldServeASubscriberNodeThatTakesNoMulticastOverItsConnection()
    {
        harness.multicast(network, settings, "md.>=" + GROUP, false);
        final Publication publication = harness.publisher.publication("md.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector items = subscribe(peer, "md.a");

        publishUntilDelivered(publication, 2_000, List.of(items));

        assertInOrderOnce(items, 1, 2_000);
        assertThat(peer.subscriberLink.sentByType[FrameType.MULTICAST_OFFER]).isZero();
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isZero();
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isEqualTo(2_000);
    }

    @Test
    void shouldJoinLateWithTheSnapshotThenTheGroupsStream()
    {
        harness.multicast(network, settings, "md.>=" + GROUP, true);
        final Publication publication = harness.publisher.publication("md.k", TopicOptions.block()
            .keyOf((buffer, offset, length) -> buffer.getInt(offset) % 10));
        final TopicHarness.Peer early = harness.connect();
        final TopicHarness.Collector earlyItems = subscribe(early, "md.k");
        publishUntilDelivered(publication, 1_000, List.of(earlyItems));

        final TopicHarness.Peer late = harness.connect();
        final TopicHarness.Collector lateItems = new TopicHarness.Collector(Long.MAX_VALUE);
        late.connection().subscribe("md.k").subscribe(lateItems);
        harness.advanceUntil("snapshot", STEP_NS, LIMIT_NS, () -> lateItems.count(TopicMessage.Kind.SNAPSHOT) == 10);
        final long snapshotSequence = lateItems.ofKind(TopicMessage.Kind.JOINED).get(0).sequence();
        int sent = 0;
        while (sent < 1_000)
        {
            message.putInt(0, 1_001 + sent);
            if (publication.offer(message, 0, 16) > 0)
            {
                sent++;
            }
            harness.advance(STEP_NS);
        }
        harness.advanceUntil("all", STEP_NS, LIMIT_NS, () -> lateItems.count(TopicMessage.Kind.DATA) >= 2_000 -
            snapshotSequence && earlyItems.count(TopicMessage.Kind.DATA) == 2_000);

        assertThat(snapshotSequence).isEqualTo(1_000);
        assertInOrderOnce(lateItems, snapshotSequence + 1, 2_000); // no gap, no duplicate across the seam
        assertThat(late.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isEqualTo(1);
        assertThat(late.publisherLink.sentByType[FrameType.TOPIC_DATA]).isZero();
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldCutOffASlowMulticastSubscriberUnderDropSlowAndLetItSubscribeAgain()
    {
        harness.multicast(network, settings, "md.>=" + GROUP, true);
        final Publication publication = harness.publisher.publication("md.d", TopicOptions.dropSlow().logCapacity(1 << 18));
        perStep = 20;
        final TopicHarness.Peer fast = harness.connect();
        final TopicHarness.Peer slow = harness.connect();
        final TopicHarness.Collector fastItems = subscribe(fast, "md.d");
        final TopicHarness.Collector slowItems = new TopicHarness.Collector(1);
        slow.connection().subscribe("md.d").subscribe(slowItems);
        harness.advanceUntil("joined", STEP_NS, LIMIT_NS, () -> slowItems.count(TopicMessage.Kind.JOINED) == 1);

        publishUntilDelivered(publication, 20_000, List.of(fastItems));

        assertInOrderOnce(fastItems, 1, 20_000);
        assertThat(slowItems.error).isInstanceOf(SlowConsumerException.class);
        assertThat(publication.engine().multicast().stream().receiverCount()).isEqualTo(1);
        final TopicHarness.Collector again = subscribe(slow, "md.d");
        publishUntilDelivered(publication, 100, List.of(again)); // sequences 20,001.. from the live stream
        assertThat(again.dataSequences().get(0)).isGreaterThan(20_000);
        assertThat(slow.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isEqualTo(2);
    }

    @Test
    void shouldConflateASlowMulticastSubscriberOnItsConnectionAndHandItOverAgain()
    {
        harness.multicast(network, settings, "md.>=" + GROUP, true);
        final Publication publication = harness.publisher.publication("md.c", TopicOptions.conflate(
            (buffer, offset, length) -> buffer.getInt(offset) % 16).logCapacity(1 << 18));
        perStep = 20;
        final TopicHarness.Peer fast = harness.connect();
        final TopicHarness.Peer slow = harness.connect();
        final TopicHarness.Collector fastItems = subscribe(fast, "md.c");
        final TopicHarness.Collector slowItems = new TopicHarness.Collector(0);
        slow.connection().subscribe("md.c").subscribe(slowItems);
        harness.advanceUntil("joined", STEP_NS, LIMIT_NS, () -> !slowItems.items.isEmpty() ||
            slow.publisherLink.sentByType[FrameType.TOPIC_MULTICAST] == 1);
        publishUntilDelivered(publication, 20_000, List.of(fastItems));
        slowItems.request(Long.MAX_VALUE);
        harness.advanceUntil("caught up", STEP_NS, LIMIT_NS, () -> !slowItems.dataSequences().isEmpty() &&
            slowItems.items.get(slowItems.items.size() - 1).sequence() == 20_000);

        assertInOrderOnce(fastItems, 1, 20_000);
        assertThat(slowItems.count(TopicMessage.Kind.GAP)).isPositive();
        assertThat(slowItems.ofKind(TopicMessage.Kind.GAP).get(0).gapReason()).isEqualTo(TopicMessage.GapReason.CONFLATED);
        // Taken back to its connection for the catch-up (receiver 0), then handed over again.
        assertThat(slow.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isGreaterThanOrEqualTo(3);
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldTakeTheDataBackToTheConnectionWhenTheGroupFallsSilentForTheSubscriber()
    {
        final FaultyMulticastEndpoint receiving = new FaultyMulticastEndpoint(network.newEndpoint());
        harness.multicast(network.newEndpoint(), receiving, network, settings, "md.>=" + GROUP);
        final Publication publication = harness.publisher.publication("md.s", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector items = subscribe(peer, "md.s");
        publishUntilDelivered(publication, 1_000, List.of(items));

        receiving.dropData = true; // the group's datagrams no longer reach this node; the connection still works
        publishUntilDelivered(publication, 2_000, List.of(items));

        assertInOrderOnce(items, 1, 3_000);
        assertThat(receiving.dropped).isPositive();
        assertThat(peer.subscriberLink.sentByType[FrameType.TOPIC_MULTICAST_LEFT]).isEqualTo(1);
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isPositive(); // the rest came over the link
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldServePerPathWhenTheGroupCannotBeJoined()
    {
        final FaultyMulticastEndpoint publishing = new FaultyMulticastEndpoint(network.newEndpoint());
        publishing.failJoins = true;
        harness.multicast(publishing, network.newEndpoint(), network, settings, "md.>=" + GROUP);
        final Publication publication = harness.publisher.publication("md.f", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector items = subscribe(peer, "md.f");

        publishUntilDelivered(publication, 2_000, List.of(items));

        assertInOrderOnce(items, 1, 2_000);
        assertThat(publication.engine().multicast().isFailed()).isTrue();
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isZero();
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isEqualTo(2_000);
    }

    @Test
    void shouldDetachAClosedPublicationOnlyAfterTheGroupDeliveredEverything()
    {
        network.faults(0.05, 0, 0);
        harness.multicast(network, settings, "md.>=" + GROUP, true);
        final Publication publication = harness.publisher.publication("md.e", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector items = subscribe(peer, "md.e");
        publishUntilDelivered(publication, 500, List.of(items));
        published += 500;
        for (int i = 0; i < 500; i++)
        {
            message.putInt(0, 501 + i);
            message.putByte(7, (byte)(501 + i));
            assertThat(publication.offer(message, 0, 8)).isPositive();
        }
        publication.close();
        harness.advanceUntil("ended", STEP_NS, LIMIT_NS, () -> items.count(TopicMessage.Kind.END) == 1);

        assertInOrderOnce(items, 1, 1_000);
        assertThat(items.items.get(items.items.size() - 1).kind()).isEqualTo(TopicMessage.Kind.END);
        harness.advance(TimeUnit.MILLISECONDS.toNanos(10));
        assertThat(harness.subscriberTopics().multicastReceivers().imageCount()).isZero();
    }

    @Test
    void shouldTakeASubscriberBackToItsConnectionWhenItsStatusMessagesStop()
    {
        final FaultyMulticastEndpoint receiving = new FaultyMulticastEndpoint(network.newEndpoint());
        harness.multicast(network.newEndpoint(), receiving, network, settings, "md.>=" + GROUP);
        final Publication publication = harness.publisher.publication("md.t", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector items = subscribe(peer, "md.t");
        publishUntilDelivered(publication, 1_000, List.of(items));

        receiving.dropSends = true; // its NAKs and status messages are lost; the group's data still arrives
        publishUntilDelivered(publication, 3_000, List.of(items));

        assertInOrderOnce(items, 1, 4_000);
        // The publisher timed the receiver out and said so (receiver 0): the first hand-over and that one.
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isEqualTo(2);
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isPositive();
        assertThat(publication.engine().multicast().stream().receiverCount()).isZero();
        assertThat(harness.errors).isEmpty();
    }
}
