package io.rivulet.topic;

import io.rivulet.ProtocolViolationException;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.protocol.datagram.DatagramChannel;
import io.rivulet.protocol.datagram.DatagramHeader;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.SwiftSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topic data as reliable datagrams, driven deterministically: the publisher and subscriber nodes of the
 * {@link TopicHarness} each get a datagram plane over a simulated network ({@link LossyDatagramNetwork}), the
 * connections agree with DATAGRAM_OFFER, and from then on every frame a cursor sends goes as datagrams (packed
 * into a stream of length-prefixed frames) while control frames stay on the link. Hostile datagram streams and
 * frames close the connection with a protocol violation; other connections keep going.
 */
class TopicDatagramTest
{
    private static final int MAX_PAYLOAD = 1024;
    private static final long STEP_NS = TimeUnit.MICROSECONDS.toNanos(5);
    private static final long LIMIT_NS = TimeUnit.SECONDS.toNanos(30);

    private final TopicHarness harness = new TopicHarness();
    private final LossyDatagramNetwork network = new LossyDatagramNetwork(42, MAX_PAYLOAD + 24, 4096);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[TopicHarness.MAX_FRAME_LENGTH]);
    private LossyDatagramNetwork.Endpoint publisherEndpoint;
    private LossyDatagramNetwork.Endpoint subscriberEndpoint;

    static DatagramSettings settings()
    {
        return new DatagramSettings()
            .window(64)
            .ringLength(256)
            .maxPayload(MAX_PAYLOAD)
            .ackEvery(8)
            .ackIntervalNs(TimeUnit.MICROSECONDS.toNanos(50))
            .nakDelayNs(TimeUnit.MICROSECONDS.toNanos(30))
            .nakRetryNs(TimeUnit.MICROSECONDS.toNanos(200))
            .nakRetryMaxNs(TimeUnit.MILLISECONDS.toNanos(2))
            .rtoInitialNs(TimeUnit.MILLISECONDS.toNanos(1))
            .rtoMinNs(TimeUnit.MICROSECONDS.toNanos(200))
            .rtoMaxNs(TimeUnit.MILLISECONDS.toNanos(20))
            .swift(new SwiftSettings().targetDelayNs(TimeUnit.MICROSECONDS.toNanos(100)).maxWindow(64).minWindow(1));
    }

    private TopicHarness withDatagrams()
    {
        return withDatagrams(settings());
    }

    private TopicHarness withDatagrams(final DatagramSettings subscriberSettings)
    {
        publisherEndpoint = network.newEndpoint();
        subscriberEndpoint = network.newEndpoint();
        return harness.datagrams(settings(), publisherEndpoint, subscriberSettings, subscriberEndpoint,
            nowNs -> network.nowNs = nowNs);
    }

    @Test
    void shouldSendEveryCursorFrameAsDatagramsAndKeepControlOnTheLink()
    {
        withDatagrams();
        final Publication publication = harness.publisher.publication("md.a", TopicOptions.block().keyOf(
            (buffer, offset, length) -> buffer.getLong(offset)));
        publishKeyed(publication, 1, 10); // a snapshot for the joiner
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.>").subscribe(collector);
        harness.advanceUntil("joined", STEP_NS, LIMIT_NS, () -> collector.count(TopicMessage.Kind.SNAPSHOT) == 10);
        publishKeyed(publication, 11, 500);
        harness.advanceUntil("500 delivered", STEP_NS, LIMIT_NS,
            () -> lastDataSequence(collector) == 500);
        harness.advance(TopicHarness.HEARTBEAT_INTERVAL_NS * 2); // heartbeats, as datagrams too
        harness.advanceUntil("quiet", STEP_NS, LIMIT_NS, () -> harness.step() == 0);

        assertInOrderOnce(collector, 11, 500);
        assertThat(peer.publisherLink.sentByType[FrameType.DATAGRAM_OFFER]).isEqualTo(1);
        assertThat(peer.subscriberLink.sentByType[FrameType.DATAGRAM_OFFER]).isEqualTo(1);
        for (final int type : new int[]{FrameType.TOPIC_DATA, FrameType.TOPIC_ATTACH, FrameType.TOPIC_SNAPSHOT,
            FrameType.TOPIC_HEARTBEAT, FrameType.TOPIC_GAP, FrameType.TOPIC_DETACH})
        {
            assertThat(peer.publisherLink.sentByType[type]).as(FrameType.name(type) + " on the link").isZero();
        }
        assertThat(peer.subscriberLink.sentByType[FrameType.SUBSCRIBE]).isEqualTo(1);
        assertThat(peer.subscriberLink.sentByType[FrameType.TOPIC_STATUS]).isPositive();
        final DatagramChannel channel = harness.publisherPlane.channel(0);
        // 500 small frames plus a snapshot travel in far fewer datagrams: frames share them.
        assertThat(channel.sender().datagramsSent()).isPositive().isLessThan(100);
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldDeliverInOrderOnceDespiteLossDuplicationAndReorderingIncludingFramesLongerThanADatagram()
    {
        network.faults(0.10, 0.05, 0.10);
        withDatagrams();
        final Publication publication = harness.publisher.publication("md.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.a").subscribe(collector);
        harness.advanceUntil("joined", STEP_NS, LIMIT_NS, () -> collector.count(TopicMessage.Kind.JOINED) == 1);

        final int count = 2_000;
        int sent = 0;
        final long endNs = harness.nowNs() + LIMIT_NS;
        while ((sent < count || lastDataSequence(collector) < count) && harness.nowNs() < endNs)
        {
            while (sent < count)
            {
                final int length = lengthOf(sent + 1);
                fill(sent + 1, length);
                if (publication.offer(message, 0, length) < 0)
                {
                    break;
                }
                sent++;
            }
            harness.advance(STEP_NS);
        }
        assertInOrderOnce(collector, 1, count);
        final List<TopicMessage> data = collector.ofKind(TopicMessage.Kind.DATA);
        for (final TopicMessage item : data)
        {
            final int sequence = (int)item.sequence();
            assertThat(item.dataLength()).isEqualTo(lengthOf(sequence));
            assertThat(item.data().getInt(0)).isEqualTo(sequence);
            assertThat(item.data().getByte(item.dataLength() - 1)).isEqualTo((byte)sequence);
        }
        final DatagramChannel channel = harness.publisherPlane.channel(0);
        assertThat(network.dataDrops).isPositive();
        assertThat(channel.sender().retransmits()).isPositive().isLessThanOrEqualTo(4 * network.dataDrops + 64);
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isZero();
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldCloseTheConnectionAsLostWhenThePeerStopsAcknowledgingForTheKeepaliveTimeout()
    {
        withDatagrams();
        final Publication publication = harness.publisher.publication("md.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.a").subscribe(collector);
        harness.advanceUntil("joined", STEP_NS, LIMIT_NS, () -> collector.count(TopicMessage.Kind.JOINED) == 1);
        final java.util.concurrent.atomic.AtomicReference<Throwable> closed = new java.util.concurrent.atomic.AtomicReference<>();
        peer.publisherSide.onClose().subscribe(null, closed::set);

        network.faults(1.0, 0, 0); // the UD path dies; the link (and TOPIC_STATUS on it) does not
        publishKeyed(publication, 1, 20);
        final long keepaliveTimeoutNs = TimeUnit.HOURS.toNanos(2); // the harness's
        harness.advanceUntil("the publisher side gives the path up", TimeUnit.MINUTES.toNanos(1),
            keepaliveTimeoutNs + TimeUnit.MINUTES.toNanos(10), () -> closed.get() != null);

        assertThat(closed.get()).isInstanceOf(io.rivulet.ConnectionLostException.class)
            .hasMessageContaining("no datagram acknowledged by").hasMessageContaining("in flight");
    }

    @Test
    void shouldKeepTopicDataOnTheLinkWhenThePeerDoesNotOfferDatagrams()
    {
        withDatagrams();
        harness.subscriberOffersDatagrams = false;
        final TopicHarness.Peer peer = subscribeAndDeliver(100);

        assertThat(peer.publisherLink.sentByType[FrameType.DATAGRAM_OFFER]).isEqualTo(1);
        assertThat(peer.subscriberLink.sentByType[FrameType.DATAGRAM_OFFER]).isZero();
        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isEqualTo(100);
        assertThat(network.dataSent).isZero();
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldKeepTopicDataOnTheLinkWhenTheTwoNodesDatagramSettingsDiffer()
    {
        withDatagrams(settings().window(128).swift(new SwiftSettings().maxWindow(64).minWindow(1)));
        final TopicHarness.Peer peer = subscribeAndDeliver(100);

        assertThat(peer.publisherLink.sentByType[FrameType.TOPIC_DATA]).isEqualTo(100);
        assertThat(network.dataSent).isZero();
        assertThat(harness.errors).isEmpty();
    }

    @Test
    void shouldCloseTheConnectionOnAFrameLengthOfZeroInTheStreamAndKeepServingTheOthers()
    {
        final UnsafeBuffer stream = new UnsafeBuffer(new byte[4]);
        stream.putInt(0, 0, ByteOrder.LITTLE_ENDIAN);
        assertHostileStreamClosesOnlyItsConnection(stream, "datagram frame length 0");
    }

    @Test
    void shouldCloseTheConnectionOnAFrameLengthBeyondTheMaximum()
    {
        final UnsafeBuffer stream = new UnsafeBuffer(new byte[4]);
        stream.putInt(0, TopicHarness.MAX_FRAME_LENGTH + 1, ByteOrder.LITTLE_ENDIAN);
        assertHostileStreamClosesOnlyItsConnection(stream, "outside [1, " + TopicHarness.MAX_FRAME_LENGTH + "]");
    }

    @Test
    void shouldCloseTheConnectionOnADatagramEndingInsideAFrameLength()
    {
        assertHostileStreamClosesOnlyItsConnection(new UnsafeBuffer(new byte[3]), "ends inside a frame length");
    }

    @Test
    void shouldCloseTheConnectionOnAFrameOtherThanTopicDataInADatagram()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);
        final int length = writer.writeRequestN(frame, 0, 1, 5);
        final UnsafeBuffer stream = new UnsafeBuffer(new byte[4 + length]);
        stream.putInt(0, length, ByteOrder.LITTLE_ENDIAN);
        stream.putBytes(4, frame, 0, length);
        assertHostileStreamClosesOnlyItsConnection(stream, "REQUEST_N frame in a datagram");
    }

    @Test
    void shouldCloseTheConnectionOnAMalformedFrameInADatagram()
    {
        final UnsafeBuffer stream = new UnsafeBuffer(new byte[4 + 12]);
        stream.putInt(0, 12, ByteOrder.LITTLE_ENDIAN);
        stream.putShort(4 + 2, (short)FrameType.TOPIC_DATA, ByteOrder.LITTLE_ENDIAN);
        assertHostileStreamClosesOnlyItsConnection(stream, "in a datagram");
    }

    @Test
    void shouldCloseTheConnectionOnCursorFramesOverTheLinkOnceDatagramsAreAgreed()
    {
        withDatagrams();
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.a").subscribe(collector);
        harness.settle();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[64]);
        final int length = new FrameWriter().writeTopicHeartbeat(frame, 0, 1, 7, 0);
        final byte[] bytes = new byte[length];
        frame.getBytes(0, bytes);
        peer.subscriberLink.inject(bytes);
        harness.settle();

        assertThat(harness.errors).hasSize(1);
        assertThat(harness.errors.get(0)).isInstanceOf(ProtocolViolationException.class)
            .hasMessageContaining("TOPIC_HEARTBEAT on the link while this connection's topic data goes as datagrams");
        assertThat(peer.subscriberSide.isOpen()).isFalse();
    }

    @Test
    void shouldCloseTheConnectionOnAnOfferWithABadAddressOrASecondOffer()
    {
        withDatagrams();
        harness.subscriberOffersDatagrams = false;
        final TopicHarness.Peer bad = harness.connect();
        bad.publisherLink.inject(offer(7, "not-an-endpoint"));
        harness.settle();
        assertThat(harness.errors).hasSize(1);
        assertThat(harness.errors.get(0)).isInstanceOf(ProtocolViolationException.class)
            .hasMessageContaining("DATAGRAM_OFFER with a bad address");
        assertThat(bad.publisherSide.isOpen()).isFalse();

        harness.subscriberOffersDatagrams = true;
        final TopicHarness.Peer twice = harness.connect();
        twice.publisherLink.inject(offer(9, "1"));
        harness.settle();
        assertThat(harness.errors).hasSize(2);
        assertThat(harness.errors.get(1)).hasMessageContaining("second DATAGRAM_OFFER on one connection");
        assertThat(twice.publisherSide.isOpen()).isFalse();
    }

    /** One subscriber connection to topic md.a; {@code count} messages published and received in order, once. */
    private TopicHarness.Peer subscribeAndDeliver(final int count)
    {
        final Publication publication = harness.publisher.publication("md.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.a").subscribe(collector);
        harness.advanceUntil("joined", STEP_NS, LIMIT_NS, () -> collector.count(TopicMessage.Kind.JOINED) == 1);
        publishKeyed(publication, 1, count);
        harness.advanceUntil(count + " delivered", STEP_NS, LIMIT_NS, () -> lastDataSequence(collector) == count);
        assertInOrderOnce(collector, 1, count);
        return peer;
    }

    private byte[] offer(final int sessionId, final String address)
    {
        final byte[] addressBytes = address.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameWriter.datagramOfferLength(addressBytes.length)]);
        final DatagramSettings settings = settings();
        final int length = new FrameWriter().writeDatagramOffer(frame, 0, sessionId, 0, settings.maxPayload(),
            settings.window(), addressBytes);
        final byte[] bytes = new byte[length];
        frame.getBytes(0, bytes);
        return bytes;
    }

    /**
     * Two subscriber connections; a forged DATA datagram with the given stream reaches the second one's channel
     * exactly where it expects its next datagram (its session and sequence, from the publisher's endpoint): that
     * connection closes with a protocol violation naming the problem, the first keeps receiving.
     */
    private void assertHostileStreamClosesOnlyItsConnection(final UnsafeBuffer stream, final String reason)
    {
        withDatagrams();
        final TopicHarness.JoinedPair pair = harness.joinTwo("md.a"); // every ACK back: the forged sequence is the next
        final Publication publication = pair.publication();
        final TopicHarness.Peer good = pair.first();
        final TopicHarness.Peer victim = pair.second();
        final TopicHarness.Collector goodCollector = pair.firstItems();

        final DatagramChannel target = harness.subscriberPlane.channel(1);
        final int length = stream.capacity();
        final UnsafeBuffer datagram = new UnsafeBuffer(new byte[DatagramHeader.DATA_HEADER_LENGTH + length]);
        DatagramHeader.writeData(datagram, 0, 0, target.receiveSessionId(), target.receiver().expectedSequence(), length,
            harness.nowNs());
        datagram.putBytes(DatagramHeader.DATA_HEADER_LENGTH, stream, 0, length);
        // From the publisher's own endpoint: the source is the peer the channel expects.
        publisherEndpoint.send(subscriberEndpoint.resolve(subscriberEndpoint.localAddress()), datagram, 0,
            datagram.capacity());
        harness.advance(TimeUnit.MILLISECONDS.toNanos(1));
        harness.settle();

        assertThat(harness.errors).hasSize(1);
        assertThat(harness.errors.get(0)).isInstanceOf(ProtocolViolationException.class).hasMessageContaining(reason);
        assertThat(victim.subscriberSide.isOpen()).isFalse();
        assertThat(good.subscriberSide.isOpen()).isTrue();

        publishKeyed(publication, 1, 50);
        harness.advanceUntil("the other connection still served", STEP_NS, LIMIT_NS,
            () -> lastDataSequence(goodCollector) == 50);
        assertInOrderOnce(goodCollector, 1, 50);
    }

    private void publishKeyed(final Publication publication, final long from, final long to)
    {
        for (long sequence = from; sequence <= to; sequence++)
        {
            message.putLong(0, sequence % 10);
            message.putLong(8, sequence);
            long result;
            int attempts = 0;
            while ((result = publication.offer(message, 0, 16)) < 0)
            {
                harness.advance(STEP_NS);
                assertThat(++attempts).as("offer back-pressured for too long").isLessThan(1_000_000);
            }
            assertThat(result).isEqualTo(sequence);
        }
    }

    private static int lengthOf(final int sequence)
    {
        // Mostly small, every 50th longer than two datagrams (frames span several, the stream packs the rest).
        return sequence % 50 == 0 ? 2 * MAX_PAYLOAD + 300 + sequence % 7 : 8 + sequence % 200;
    }

    private void fill(final int sequence, final int length)
    {
        message.setMemory(0, length, (byte)sequence);
        message.putInt(0, sequence);
    }

    private static long lastDataSequence(final TopicHarness.Collector collector)
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
        assertThat(collector.error).isNull();
    }
}
