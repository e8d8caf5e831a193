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

    /** Publishes sequences up to {@code last}, stepping while the log is full, until every collector has them. */
    private void publishUntilDelivered(
        final Publication publication, final int count, final List<TopicHarness.Collector> collectors)
    {
        int sent = 0;
        final long endNs = harness.nowNs() + LIMIT_NS;
        while (harness.nowNs() < endNs)
        {
            while (sent < count)
            {
                final int length = 8 + (sent * 31) % 400;
                message.putInt(0, sent + 1);
                message.putByte(length - 1, (byte)(sent + 1));
                if (publication.offer(message, 0, length) < 0)
                {
                    break;
                }
                sent++;
            }
            harness.advance(STEP_NS);
            if (sent == count && collectors.stream().allMatch(c -> c.count(TopicMessage.Kind.DATA) >= count))
            {
                return;
            }
        }
        throw new AssertionError("not delivered in time: sent " + sent + ", delivered " +
            collectors.stream().map(c -> Long.toString(c.count(TopicMessage.Kind.DATA))).toList());
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
}
