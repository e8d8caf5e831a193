package io.rivulet.topic;

import io.rivulet.ProtocolViolationException;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.protocol.datagram.multicast.MulticastHeader;
import io.rivulet.spi.MulticastSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multicast frames from a peer, and a group's stream, are untrusted: a hand-over to a node that offered no multicast,
 * a second offer or hand-over, or a stream whose records are not the topic's data close that connection with a
 * protocol error; a hand-over the node cannot take (a log too large, an address it cannot reach) is answered with
 * TOPIC_MULTICAST_LEFT and the connection keeps serving the topic.
 */
class TopicMulticastHostileTest
{
    private static final String GROUP = "239.1.2.3:40456";
    private static final long STEP_NS = TimeUnit.MICROSECONDS.toNanos(20);

    private final TopicHarness harness = new TopicHarness(8);
    private final LossyDatagramNetwork network = new LossyDatagramNetwork(3, 1500, 1024);
    private final FrameWriter writer = new FrameWriter();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[4096]);
    private Publication publication;
    private TopicHarness.Peer peer;
    private TopicHarness.Collector collector;

    private void attach(final boolean subscriberReceives, final String routes)
    {
        harness.multicast(network, new MulticastSettings(), routes, subscriberReceives);
        publication = harness.publisher.publication("md.quotes.EURUSD", TopicOptions.block());
        peer = harness.connect();
        collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.quotes.*").subscribe(collector);
        harness.settle();
        harness.advance(STEP_NS);
    }

    @Test
    void shouldCloseOnAHandOverToANodeThatOfferedNoMulticast()
    {
        attach(false, "md.>=" + GROUP);
        toSubscriber(handOver(1, 1 << 16, "1"));
        harness.settle();
        assertSubscriberClosedWith("offered no multicast");
    }

    @Test
    void shouldCloseOnASecondMulticastOffer()
    {
        attach(true, "md.>=" + GROUP);
        toPublisher(writer.writeMulticastOffer(scratch, 0, 0, 1 << 20, utf8("2")));
        harness.settle();
        assertThat(peer.publisherSide.isOpen()).isFalse();
        assertThat(harness.errors).anySatisfy(error -> assertThat(error).hasMessageContaining("second MULTICAST_OFFER"));
    }

    @Test
    void shouldCloseOnASecondHandOverWithoutTakingTheFirstBack()
    {
        attach(true, "md.>=" + GROUP);
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_MULTICAST]).isEqualTo(1); // the real one
        toSubscriber(handOver(77, 1 << 16, "0"));
        harness.settle();
        assertSubscriberClosedWith("already comes from a group");
    }

    @Test
    void shouldAnswerAHandOverItCannotTakeWithLeftAndKeepTheTopicOnTheConnection()
    {
        attach(true, "md.none=" + GROUP); // the topic itself stays on the connection
        toSubscriber(handOver(5, 1 << 30, "0")); // a log larger than rivulet.multicast.maxImage
        harness.settle();
        toSubscriber(handOver(6, 1 << 16, "not-an-endpoint")); // an address the node cannot resolve
        harness.settle();

        assertThat(peer.subscriberSide.isOpen()).isTrue();
        assertThat(peer.subscriberLink.sentByType[FrameType.TOPIC_MULTICAST_LEFT]).isEqualTo(2);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
        assertThat(publication.offer(message, 0, 8)).isPositive();
        harness.settle();
        assertThat(collector.dataSequences()).containsExactly(1L);
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldCloseWhenTheGroupsStreamCarriesAFrameThatIsNotTheTopicsData()
    {
        attach(true, "md.none=" + GROUP); // no real stream: a forger plays the publisher's multicast endpoint
        final LossyDatagramNetwork.Endpoint forger = network.newEndpoint();
        toSubscriber(handOver(9, 1 << 16, forger.localAddress()));
        harness.settle();
        final int group = forger.joinGroup(GROUP, false);
        forger.poll((p, b, o, l) -> { }, 1);

        // A TOPIC_SNAPSHOT record where TOPIC_DATA belongs, at the stream's start.
        final UnsafeBuffer datagram = new UnsafeBuffer(new byte[512]);
        final int frame = writer.writeTopicSnapshot(datagram, MulticastHeader.DATA_HEADER_LENGTH + 4, 0,
            publication.topicId(), publication.sessionId(), 1, 0, new UnsafeBuffer(new byte[4]), 0, 4);
        datagram.putInt(MulticastHeader.DATA_HEADER_LENGTH, frame, java.nio.ByteOrder.LITTLE_ENDIAN);
        MulticastHeader.writeData(datagram, 0, 0, 4242, 0, 4 + frame, 1);
        assertThat(forger.send(group, datagram, 0, MulticastHeader.DATA_HEADER_LENGTH + 4 + frame)).isTrue();
        for (int i = 0; i < 10 && peer.subscriberSide.isOpen(); i++)
        {
            harness.advance(STEP_NS);
        }
        assertSubscriberClosedWith("in the stream of topic id");
    }

    private int handOver(final int receiverId, final int capacity, final String source)
    {
        return writer.writeTopicMulticast(scratch, 0, publication.topicId(), publication.sessionId(), receiverId, 4242,
            capacity, 0, utf8(GROUP), utf8(source));
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

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
