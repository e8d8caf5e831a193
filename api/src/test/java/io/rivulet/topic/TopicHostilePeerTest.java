package io.rivulet.topic;

import io.rivulet.ProtocolViolationException;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.GapReason;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topic frames from a peer are untrusted: anything that breaks the protocol (credits, sessions, snapshot
 * framing, subscription ids, patterns) closes that connection with a protocol error, and frames for topics
 * that already ended are ignored.
 */
class TopicHostilePeerTest
{
    private final TopicHarness harness = new TopicHarness(8);
    private final FrameWriter writer = new FrameWriter();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[4096]);
    private final UnsafeBuffer data = new UnsafeBuffer(new byte[8]);
    private Publication publication;
    private TopicHarness.Peer peer;
    private TopicHarness.Collector collector;

    @BeforeEach
    void attach()
    {
        publication = harness.publisher.publication("md.quotes.EURUSD", TopicOptions.block());
        peer = harness.connect();
        collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.quotes.*").subscribe(collector);
        harness.settle();
    }

    @Test
    void shouldCloseOnDataBeyondTheCreditsGranted()
    {
        for (int i = 1; i <= 9; i++) // a window of 8
        {
            toSubscriber(writer.writeTopicData(scratch, 0, publication.topicId(), publication.sessionId(), i, 0, data, 0, 8));
        }
        harness.settle();
        assertSubscriberClosedWith("beyond the credits granted");
        assertThat(collector.dataSequences()).hasSize(8);
    }

    @Test
    void shouldCloseOnAnotherSessionForTheSameTopic()
    {
        toSubscriber(writer.writeTopicData(scratch, 0, publication.topicId(), publication.sessionId() + 1, 1, 0, data, 0, 8));
        harness.settle();
        assertSubscriberClosedWith("while attached to session");
    }

    @Test
    void shouldCloseOnAnAttachThatTheSubscriptionsPatternDoesNotMatch()
    {
        toSubscriber(writer.writeTopicAttach(scratch, 0, 1, 99, 5, 0, 0, 0, utf8("md.trades.EURUSD")));
        harness.settle();
        assertSubscriberClosedWith("does not match");
    }

    @Test
    void shouldCloseOnAnOversizedSnapshotAnnouncement()
    {
        toSubscriber(writer.writeTopicAttach(scratch, 0, 1, 99, 5, 0, 0, TopicOptions.MAX_KEYS_LIMIT + 1,
            utf8("md.quotes.GBPUSD")));
        harness.settle();
        assertSubscriberClosedWith("snapshot of");
    }

    @Test
    void shouldCloseOnSnapshotFramesOutsideASnapshot()
    {
        toSubscriber(writer.writeTopicSnapshot(scratch, 0, 1, publication.topicId(), publication.sessionId(), 1, 0,
            data, 0, 8));
        harness.settle();
        assertSubscriberClosedWith("outside its snapshot");
    }

    @Test
    void shouldCloseOnCatchUpEntriesWithoutAGap()
    {
        toSubscriber(writer.writeTopicSnapshot(scratch, 0, 0, publication.topicId(), publication.sessionId(), 1, 0,
            data, 0, 8));
        harness.settle();
        assertSubscriberClosedWith("without a TOPIC_GAP");
    }

    @Test
    void shouldSignalANonContiguousSequenceAsALostGapRatherThanDropItSilently()
    {
        toSubscriber(writer.writeTopicGap(scratch, 0, publication.topicId(), publication.sessionId(), 1, 3,
            GapReason.LOST.value(), 0));
        toSubscriber(writer.writeTopicData(scratch, 0, publication.topicId(), publication.sessionId(), 4, 0, data, 0, 8));
        toSubscriber(writer.writeTopicData(scratch, 0, publication.topicId(), publication.sessionId(), 7, 0, data, 0, 8));
        harness.settle();
        assertThat(collector.items).extracting(TopicMessage::toString).containsExactly(
            collector.items.get(0).toString(),
            "GAP{md.quotes.EURUSD session=" + publication.sessionId() + " 1..3 LOST}",
            "DATA{md.quotes.EURUSD session=" + publication.sessionId() + " seq=4 key=0 data=8}",
            "GAP{md.quotes.EURUSD session=" + publication.sessionId() + " 5..6 LOST}",
            "DATA{md.quotes.EURUSD session=" + publication.sessionId() + " seq=7 key=0 data=8}");
        assertThat(peer.subscriberSide.isOpen()).isTrue();
    }

    @Test
    void shouldIgnoreFramesOfTopicsThatEnded()
    {
        toSubscriber(writer.writeTopicData(scratch, 0, 12345, 1, 1, 0, data, 0, 8));
        toSubscriber(writer.writeTopicHeartbeat(scratch, 0, 12345, 1, 1));
        toSubscriber(writer.writeTopicDetach(scratch, 0, 12345, 1, 1, 1, new byte[0]));
        harness.settle();
        assertThat(peer.subscriberSide.isOpen()).isTrue();
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldCloseOnAReusedSubscriptionId()
    {
        toPublisher(writer.writeSubscribe(scratch, 0, 1, 8, utf8("x.y")));
        harness.settle();
        assertPublisherClosedWith("already in use");
    }

    @Test
    void shouldCloseOnAnInvalidPattern()
    {
        toPublisher(writer.writeSubscribe(scratch, 0, 77, 8, utf8("md..quotes")));
        harness.settle();
        assertPublisherClosedWith("invalid pattern");
    }

    @Test
    void shouldCloseOnTooManySubscriptions()
    {
        for (int id = 100; id < 100 + TopicEndpoint.MAX_SUBSCRIPTIONS; id++)
        {
            toPublisher(writer.writeSubscribe(scratch, 0, id, 8, utf8("nothing." + id)));
        }
        harness.settle();
        assertPublisherClosedWith("more than " + TopicEndpoint.MAX_SUBSCRIPTIONS + " subscriptions");
    }

    @Test
    void shouldIgnoreStatusForUnknownTopicsAndUnsubscribeOfUnknownIds()
    {
        toPublisher(writer.writeTopicStatus(scratch, 0, 4242, 1, Integer.MAX_VALUE));
        toPublisher(writer.writeTopicStatus(scratch, 0, publication.topicId(), publication.sessionId() + 1,
            Integer.MAX_VALUE));
        toPublisher(writer.writeUnsubscribe(scratch, 0, 999));
        harness.settle();
        assertThat(peer.publisherSide.isOpen()).isTrue();
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldRejectEverySubscriptionOfAConnectionThatCannotTakeTheTopicsFrames()
    {
        final TopicHarness.Peer small = harness.connect(Integer.MAX_VALUE, 1024);
        final TopicHarness.Collector first = new TopicHarness.Collector(Long.MAX_VALUE);
        final TopicHarness.Collector second = new TopicHarness.Collector(Long.MAX_VALUE);
        small.connection().subscribe("md.quotes.EURUSD").subscribe(first);
        small.connection().subscribe("md.>").subscribe(second);
        harness.settle();

        for (final TopicHarness.Collector collector : java.util.List.of(first, second))
        {
            assertThat(collector.items).extracting(TopicMessage::kind).containsExactly(TopicMessage.Kind.JOINED);
            assertThat(collector.error).isInstanceOf(io.rivulet.RejectedException.class)
                .hasMessageContaining("this connection accepts 1024");
        }
        assertThat(small.subscriberSide.isOpen()).isTrue();
        assertThat(publication.subscriberCount()).isEqualTo(1); // the first peer's
    }

    private void toSubscriber(final int length)
    {
        peer.subscriberLink.inject(Arrays.copyOf(scratch.byteArray(), length));
    }

    private void toPublisher(final int length)
    {
        peer.publisherLink.inject(Arrays.copyOf(scratch.byteArray(), length));
    }

    private void assertSubscriberClosedWith(final String reason)
    {
        assertThat(peer.subscriberSide.isOpen()).isFalse();
        assertThat(collector.error).isInstanceOf(ProtocolViolationException.class).hasMessageContaining(reason);
        assertThat(harness.errors).anySatisfy(error -> assertThat(error).hasMessageContaining(reason));
    }

    private void assertPublisherClosedWith(final String reason)
    {
        assertThat(peer.publisherSide.isOpen()).isFalse();
        assertThat(harness.errors).anySatisfy(error -> assertThat(error).hasMessageContaining(reason));
        assertThat(publication.subscriberCount()).isZero();
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
