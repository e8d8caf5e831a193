package io.rivulet.transport.udp;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import io.rivulet.transport.tcp.TcpTransport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.BaseSubscriber;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Topic data as reliable datagrams over UDP between two nodes whose connection runs over TCP, all on 127.0.0.1: every
 * message once and in order (frames longer than a datagram included), and proof that the data went as UDP datagrams
 * (the node files show one UD path per node with its RTT sampled, the subscriber's UDP endpoint received more bytes
 * than the data holds, in at least as many datagrams as the data needs, each datagram named by its sender); a peer
 * without datagrams keeps the link (no UD path, no datagram sent); settings that do not fit a UDP datagram are
 * refused.
 */
@ScaledTimeout(120)
class UdpTopicTest
{
    private static final int COUNT = 3_000;

    @TempDir
    Path counters;

    private final List<Rivulet> nodes = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @AfterEach
    void close()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    private Rivulet launch(final String name, final Capturing datagrams)
    {
        Rivulet.Context context = new Rivulet.Context()
            .transport(new TcpTransport())
            .nodeName(name)
            .countersDirectory(counters.toString())
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(errors::add);
        if (null != datagrams)
        {
            context = context.topicDatagrams(true).datagrams(datagrams);
        }
        final Rivulet node = Rivulet.launch(context);
        nodes.add(node);
        return node;
    }

    @Test
    void shouldCarryTopicDataAsUdpDatagrams() throws IOException
    {
        final Capturing publisherDatagrams = new Capturing();
        final Capturing subscriberDatagrams = new Capturing();
        final Checker checker = publishAndReceive(launch("udp-publisher", publisherDatagrams),
            launch("udp-subscriber", subscriberDatagrams), COUNT);

        assertThat(checker.problems).isEmpty();
        assertThat(checker.last).isEqualTo(COUNT);
        final long dataBytes = dataBytes(COUNT);
        final UdpEndpoint publisher = publisherDatagrams.only();
        final UdpEndpoint subscriber = subscriberDatagrams.only();
        final long leastDatagrams = dataBytes / (UdpSettings.DEFAULT_MAX_DATAGRAM - DatagramSettings.DATA_HEADER_LENGTH);
        assertThat(publisher.maxDatagramLength()).isEqualTo(UdpSettings.DEFAULT_MAX_DATAGRAM);
        assertThat(publisher.datagramsSent()).as("DATA datagrams at least").isGreaterThanOrEqualTo(leastDatagrams);
        assertThat(subscriber.datagramsReceived()).isGreaterThanOrEqualTo(leastDatagrams);
        // The data's bytes themselves came as UDP datagrams (with headers and frame lengths on top).
        assertThat(subscriber.bytesReceived()).isGreaterThan(dataBytes);
        assertThat(publisher.bytesSent()).isGreaterThanOrEqualTo(subscriber.bytesReceived());
        // Each end resolved the other's offer: every datagram, DATA one way and ACKs the other, named by its sender.
        assertThat(publisher.datagramsReceived()).as("acknowledgements").isPositive();
        assertThat(publisher.unknownPeerDatagrams()).isZero();
        assertThat(subscriber.unknownPeerDatagrams()).isZero();
        assertThat(publisher.oversizeDatagrams() + subscriber.oversizeDatagrams()).isZero();
        try (NodeFile publisherFile = NodeFile.open(NodeDirectory.fileFor(counters, "udp-publisher"));
            NodeFile subscriberFile = NodeFile.open(NodeDirectory.fileFor(counters, "udp-subscriber")))
        {
            // One UD path each way per connection.
            assertThat(publisherFile.counters(CounterTypes.UD_CWND)).hasSize(1);
            assertThat(subscriberFile.counters(CounterTypes.UD_CWND)).hasSize(1);
            Await.until("the path's RTT sampled", () -> publisherFile.sum(CounterTypes.UD_RTT_NS) > 0);
            // With UDP sockets beside TCP the engines still sleep in the selector, woken by datagrams too.
            assertThat(publisherFile.sum(CounterTypes.NODE_ENGINE_SLEEPS)).isPositive();
            assertThat(subscriberFile.sum(CounterTypes.NODE_ENGINE_SLEEPS)).isPositive();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldKeepTopicDataOnTheLinkWhenThePeerHasNoDatagrams() throws IOException
    {
        final Capturing publisherDatagrams = new Capturing();
        final Checker checker = publishAndReceive(launch("udp-only-publisher", publisherDatagrams),
            launch("tcp-subscriber", null), 500);

        assertThat(checker.problems).isEmpty();
        assertThat(checker.last).isEqualTo(500);
        assertThat(publisherDatagrams.only().datagramsSent()).isZero();
        try (NodeFile publisherFile = NodeFile.open(NodeDirectory.fileFor(counters, "udp-only-publisher")))
        {
            assertThat(publisherFile.counters(CounterTypes.UD_CWND)).as("no UD path opened").isEmpty();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldRefuseGivenDatagramSettingsThatDoNotFitAUdpDatagram()
    {
        assertThatThrownBy(() -> Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .countersFile(false)
            .topicDatagrams(true)
            .datagrams(UdpTopics.datagrams())
            .datagramSettings(new DatagramSettings().maxPayload(4072))))
            .hasMessageContaining("datagrams of 4096 bytes do not fit rivulet.udp.maxDatagram 1472")
            .hasMessageContaining("set rivulet.ud.maxPayload to at most 1448");
    }

    /** The subscriber node subscribes to the publisher node's topic; {@code count} messages go out and are checked. */
    private static Checker publishAndReceive(final Rivulet publisherNode, final Rivulet subscriberNode, final int count)
    {
        final String address = publisherNode.bind("127.0.0.1:0", Responder.none()).block().localAddress();
        final Publication publication = publisherNode.publication("md.book", TopicOptions.block());
        final Connection connection = subscriberNode.connect(address).block();
        final Checker checker = new Checker();
        connection.subscribe("md.book").subscribe(checker);
        Await.until("joined", () -> checker.joined);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[12_000]);
        for (int sequence = 1; sequence <= count; sequence++)
        {
            final int length = lengthOf(sequence);
            message.setMemory(0, length, (byte)sequence);
            message.putInt(0, sequence);
            final int current = sequence;
            Await.until("offer " + sequence, () -> publication.offer(message, 0, length) == current);
        }
        Await.until("every message delivered", () -> checker.last == count || !checker.problems.isEmpty());
        return checker;
    }

    private static int lengthOf(final int sequence)
    {
        // Mostly a few hundred bytes (several frames per datagram); every 97th longer than six datagrams.
        return sequence % 97 == 0 ? 9_000 + sequence % 13 : 16 + sequence % 600;
    }

    private static long dataBytes(final int count)
    {
        long bytes = 0;
        for (int sequence = 1; sequence <= count; sequence++)
        {
            bytes += lengthOf(sequence);
        }
        return bytes;
    }

    /** UDP datagrams that keep the endpoints the node opens, to read their counters. */
    static final class Capturing implements DatagramProvider
    {
        private final UdpDatagrams udp = UdpTopics.datagrams();
        final List<UdpEndpoint> endpoints = new CopyOnWriteArrayList<>();

        @Override
        public String name()
        {
            return udp.name();
        }

        @Override
        public OpenDatagrams open(final TransportSettings settings)
        {
            final UdpDatagramTransport transport = udp.open(settings);
            return new OpenDatagrams()
            {
                @Override
                public DatagramEndpoint openDatagramEndpoint(final int maxDatagramLength, final int receiveSlots,
                    final int sendSlots) throws IOException
                {
                    final UdpEndpoint endpoint =
                        (UdpEndpoint)transport.openDatagramEndpoint(maxDatagramLength, receiveSlots, sendSlots);
                    endpoints.add(endpoint);
                    return endpoint;
                }

                @Override
                public DatagramSettings defaultDatagramSettings(final DatagramSettings defaults)
                {
                    return transport.defaultDatagramSettings(defaults);
                }

                @Override
                public void close()
                {
                    transport.close();
                }
            };
        }

        UdpEndpoint only()
        {
            assertThat(endpoints).hasSize(1);
            return endpoints.get(0);
        }
    }

    /** Checks each item as it arrives: DATA in order from 1, each with the bytes its sequence implies. */
    static final class Checker extends BaseSubscriber<TopicMessage>
    {
        final List<String> problems = new CopyOnWriteArrayList<>();
        volatile boolean joined;
        volatile long last;

        @Override
        protected void hookOnNext(final TopicMessage item)
        {
            if (item.kind() == TopicMessage.Kind.JOINED)
            {
                joined = true;
                return;
            }
            if (item.kind() != TopicMessage.Kind.DATA)
            {
                problems.add("unexpected " + item);
                return;
            }
            final long sequence = item.sequence();
            if (sequence != last + 1)
            {
                problems.add("sequence " + sequence + " after " + last);
            }
            if (item.dataLength() != lengthOf((int)sequence) || item.data().getInt(0) != (int)sequence ||
                item.data().getByte(item.dataLength() - 1) != (byte)sequence)
            {
                problems.add("wrong bytes at " + sequence);
            }
            last = sequence;
        }

        @Override
        protected void hookOnError(final Throwable throwable)
        {
            problems.add("error " + throwable);
        }
    }
}
