package io.rivulet.topic;

import io.rivulet.ConnectionClosedException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rivulet.topic.TopicHarness.HEARTBEAT_INTERVAL_NS;
import static io.rivulet.topic.TopicHarness.HEARTBEAT_TIMEOUT_NS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Liveness and sessions: heartbeats both ways, a dead publisher or subscriber detected within the heartbeat
 * timeout, a closed publication ending its subscribers' topic, and a restarted publisher recognised as a new
 * session.
 */
class TopicLivenessTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final TopicHarness harness = new TopicHarness(64);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[16]);

    @Test
    void shouldKeepAnIdleTopicAliveWithHeartbeats()
    {
        harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("t.a").subscribe(collector);
        harness.settle();

        for (int i = 0; i < 50; i++)
        {
            harness.advance(HEARTBEAT_INTERVAL_NS / 2); // 2.5 s of silence from the application
        }

        assertThat(collector.error).isNull();
        assertThat(peer.publisherLink.sentByType[io.rivulet.codec.FrameType.TOPIC_HEARTBEAT]).isGreaterThan(10);
        assertThat(peer.subscriberLink.sentByType[io.rivulet.codec.FrameType.TOPIC_STATUS]).isGreaterThan(10);
    }

    @Test
    void shouldSignalADeadPublisherWithinTheHeartbeatTimeout()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("t.a").subscribe(collector);
        harness.settle();
        assertThat(publication.offer(message, 0, 8)).isEqualTo(1);
        harness.settle();

        harness.publisherFrozen = true; // hung: no heartbeat, no frame, the connection stays open
        final long frozenAtNs = harness.nowNs();
        harness.advanceUntil("the subscriber notices", MS, HEARTBEAT_TIMEOUT_NS * 2, () -> collector.error != null);

        assertThat(collector.error).isInstanceOf(PublisherTimeoutException.class).hasMessageContaining("t.a");
        assertThat(((PublisherTimeoutException)collector.error).topic()).isEqualTo("t.a");
        assertThat(harness.nowNs() - frozenAtNs).isLessThanOrEqualTo(HEARTBEAT_TIMEOUT_NS + HEARTBEAT_INTERVAL_NS);
        assertThat(collector.dataSequences()).containsExactly(1L);
    }

    @Test
    void shouldDetachADeadSubscriberSoThatItNoLongerHoldsTheBlockingPublisher()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block().logCapacity(4096));
        final TopicHarness.Peer dead = harness.connect();
        final TopicHarness.Collector deadCollector = new TopicHarness.Collector(0);
        dead.connection().subscribe("t.a").subscribe(deadCollector);
        final TopicHarness.Collector alive = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("t.a").subscribe(alive);
        harness.settle();
        dead.frozen = true;

        int sent = 0;
        int blockedSteps = 0;
        final long startNs = harness.nowNs();
        while (sent < 2_000 && harness.nowNs() - startNs < 3 * HEARTBEAT_TIMEOUT_NS)
        {
            if (publication.offer(message, 0, 8) > 0)
            {
                sent++;
            }
            else
            {
                blockedSteps++;
                harness.advance(MS);
            }
        }
        assertThat(sent).isEqualTo(2_000);
        assertThat(blockedSteps).as("held by the dead subscriber until its timeout").isGreaterThan(100);
        assertThat(publication.subscriberCount()).isEqualTo(1);
        harness.settle();
        assertThat(alive.dataSequences()).hasSize(2_000);
    }

    @Test
    void shouldEndTheTopicWhenThePublicationClosesAndSeeARestartAsANewSession()
    {
        final Publication first = harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("t.*").subscribe(collector);
        harness.settle();
        for (int i = 0; i < 5; i++)
        {
            first.offer(message, 0, 8);
        }
        first.close();
        harness.settle();
        final Publication second = harness.publisher.publication("t.a", TopicOptions.block());
        harness.settle();
        second.offer(message, 0, 8);
        harness.settle();

        final List<TopicMessage> items = collector.items;
        assertThat(items).extracting(TopicMessage::kind).containsExactly(
            TopicMessage.Kind.JOINED, TopicMessage.Kind.DATA, TopicMessage.Kind.DATA, TopicMessage.Kind.DATA,
            TopicMessage.Kind.DATA, TopicMessage.Kind.DATA, TopicMessage.Kind.END, TopicMessage.Kind.JOINED,
            TopicMessage.Kind.DATA);
        assertThat(items.get(6).sequence()).isEqualTo(5);
        assertThat(items.get(6).sessionId()).isEqualTo(first.sessionId());
        assertThat(items.get(7).sessionId()).isEqualTo(second.sessionId()).isNotEqualTo(first.sessionId());
        assertThat(items.get(8).sequence()).isEqualTo(1);
        assertThat(collector.error).isNull();
    }

    @Test
    void shouldSignalTheSequencesAClosingPublicationCouldNotDeliver()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Collector stuck = new TopicHarness.Collector(5);
        harness.connect().connection().subscribe("t.a").subscribe(stuck);
        harness.settle();
        for (int i = 0; i < 200; i++)
        {
            publication.offer(message, 0, 8);
        }
        harness.settle();
        publication.close();
        harness.advanceUntil("the publication gives up on the subscriber", 10 * MS, 4 * HEARTBEAT_TIMEOUT_NS,
            () -> publication.subscriberCount() == 0);
        stuck.request(Long.MAX_VALUE);
        harness.settle();

        final List<TopicMessage> items = stuck.items;
        final TopicMessage end = items.get(items.size() - 1);
        final TopicMessage gap = items.get(items.size() - 2);
        assertThat(end.kind()).isEqualTo(TopicMessage.Kind.END);
        assertThat(end.sequence()).isEqualTo(200);
        assertThat(gap.kind()).isEqualTo(TopicMessage.Kind.GAP);
        assertThat(gap.gapReason()).isEqualTo(TopicMessage.GapReason.ENDED);
        assertThat(gap.gapTo()).isEqualTo(200);
        assertThat(gap.gapFrom()).isEqualTo(stuck.dataSequences().size() + 1);
    }

    @Test
    void shouldEndSubscriptionsWhenTheConnectionCloses()
    {
        harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("t.a").subscribe(collector);
        harness.settle();

        peer.connection().close();
        harness.settle();

        assertThat(collector.error).isInstanceOf(ConnectionClosedException.class);
        final TopicHarness.Collector late = new TopicHarness.Collector(1);
        peer.connection().subscribe("t.a").subscribe(late);
        harness.settle();
        assertThat(late.error).isInstanceOf(ConnectionClosedException.class);
    }

    @Test
    void shouldUnsubscribeOnCancelAndDetachTheTopic()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("t.a").subscribe(collector);
        harness.settle();
        assertThat(publication.subscriberCount()).isEqualTo(1);

        collector.cancel();
        harness.settle();
        assertThat(publication.subscriberCount()).isZero();
        assertThat(peer.subscriberLink.sentByType[io.rivulet.codec.FrameType.UNSUBSCRIBE]).isEqualTo(1);
        assertThat(peer.publisherLink.sentByType[io.rivulet.codec.FrameType.TOPIC_DETACH]).isEqualTo(1);

        // Subscribing again on the same connection attaches through a fresh cursor.
        final TopicHarness.Collector again = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("t.a").subscribe(again);
        harness.settle();
        publication.offer(message, 0, 8);
        harness.settle();
        assertThat(again.dataSequences()).containsExactly(1L);
        assertThat(collector.dataSequences()).isEmpty();
    }
}
