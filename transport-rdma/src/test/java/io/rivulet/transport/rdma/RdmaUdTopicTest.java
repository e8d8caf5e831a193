package io.rivulet.transport.rdma;

import io.rivulet.ConfigurationException;
import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.LinkConnector;
import io.rivulet.spi.LinkListener;
import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
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
 * Topic data as reliable datagrams over the soft provider's UD queue pairs, end to end between two nodes:
 * every message once and in order with lost, duplicated and reordered datagrams (frames longer than a
 * datagram included), the UD path counters in both node files showing the recovery, and the fall-backs: a
 * peer that does not offer datagrams keeps the link, and a transport without datagrams refuses the setting.
 */
@ScaledTimeout(120)
class RdmaUdTopicTest
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

    private Rivulet launch(final String name, final boolean datagrams)
    {
        return launch(name, datagrams, io.rivulet.transport.rdma.soft.SoftVerbsProvider.DEFAULT_MTU);
    }

    private Rivulet launch(final String name, final boolean datagrams, final int mtu)
    {
        Rivulet.Context context = new Rivulet.Context()
            .transport(new RdmaTransport(RdmaTestSupport.provider().withMtu(mtu).withFaults(
                io.rivulet.transport.rdma.soft.SoftFaults.seeded(name.hashCode()).drop(0.05).duplicate(0.02).reorder(0.05))))
            .nodeName(name)
            .countersDirectory(counters.toString())
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(errors::add);
        if (datagrams)
        {
            context = UdTopics.over(context);
        }
        final Rivulet node = Rivulet.launch(context);
        nodes.add(node);
        return node;
    }

    @Test
    void shouldDeliverEveryMessageOnceInOrderOverLossyUdAndCountTheRecovery() throws IOException
    {
        final Checker checker = publishAndReceive(launch("ud-publisher", true), launch("ud-subscriber", true), COUNT);

        assertThat(checker.problems).isEmpty();
        assertThat(checker.last).isEqualTo(COUNT);
        try (NodeFile publisherFile = NodeFile.open(NodeDirectory.fileFor(counters, "ud-publisher"));
            NodeFile subscriberFile = NodeFile.open(NodeDirectory.fileFor(counters, "ud-subscriber")))
        {
            // One UD path each way per connection, sampled every ~100 ms.
            assertThat(publisherFile.counters(CounterTypes.UD_CWND)).hasSize(1);
            assertThat(subscriberFile.counters(CounterTypes.UD_CWND)).hasSize(1);
            Await.until("publisher retransmitted what the faults dropped",
                () -> publisherFile.sum(CounterTypes.UD_RETRANSMISSIONS) > 0);
            Await.until("subscriber NAKed the gaps", () -> subscriberFile.sum(CounterTypes.UD_NAKS_SENT) > 0);
            assertThat(publisherFile.sum(CounterTypes.UD_RTT_NS)).isPositive();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldFanOutToSeveralSubscriberNodesThroughThePublishersOneUdQueuePair() throws IOException
    {
        final int subscribers = 5;
        final int count = 2_000;
        final Rivulet publisherNode = launch("fan-publisher", true);
        final String address = publisherNode.bind("127.0.0.1:0", Responder.none()).block().localAddress();
        final Publication publication = publisherNode.publication("md.book", TopicOptions.block());
        final List<Checker> checkers = new ArrayList<>();
        for (int i = 0; i < subscribers; i++)
        {
            final Checker checker = new Checker();
            launch("fan-subscriber-" + i, true).connect(address).block().subscribe("md.book").subscribe(checker);
            checkers.add(checker);
        }
        Await.until("all joined", () -> checkers.stream().allMatch(checker -> checker.joined));
        final UnsafeBuffer message = new UnsafeBuffer(new byte[12_000]);
        for (int sequence = 1; sequence <= count; sequence++)
        {
            final int length = lengthOf(sequence);
            message.setMemory(0, length, (byte)sequence);
            message.putInt(0, sequence);
            final int current = sequence;
            Await.until("offer " + sequence, () -> publication.offer(message, 0, length) == current);
        }
        Await.until("every subscriber has every message",
            () -> checkers.stream().allMatch(checker -> checker.last == count || !checker.problems.isEmpty()));

        for (final Checker checker : checkers)
        {
            assertThat(checker.problems).isEmpty();
            assertThat(checker.last).isEqualTo(count);
        }
        try (NodeFile publisherFile = NodeFile.open(NodeDirectory.fileFor(counters, "fan-publisher")))
        {
            // One path per subscriber connection, all on the node's one UD queue pair (one endpoint per driver).
            assertThat(publisherFile.counters(CounterTypes.UD_CWND)).hasSize(subscribers);
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldCutDatagramsToASmallerUdPathMtu()
    {
        // RoCE over 1500-byte Ethernet carries 1024-byte UD payloads: the defaults follow the device.
        final Checker checker = publishAndReceive(launch("mtu-publisher", true, 1024),
            launch("mtu-subscriber", true, 1024), 500);
        assertThat(checker.problems).isEmpty();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldRefuseGivenDatagramSettingsThatDoNotFitTheUdPathMtu()
    {
        assertThatThrownBy(() -> Rivulet.launch(new Rivulet.Context()
            .transport(new RdmaTransport(RdmaTestSupport.provider().withMtu(1024)))
            .countersFile(false)
            .topicDatagrams(true)
            .datagramSettings(new io.rivulet.spi.DatagramSettings().maxPayload(4072))))
            .hasMessageContaining("do not fit the UD path MTU")
            .hasMessageContaining("set rivulet.ud.maxPayload to at most 1000");
    }

    @Test
    void shouldKeepTopicDataOnTheLinkWhenThePeerDoesNotOfferDatagrams() throws IOException
    {
        final Checker checker = publishAndReceive(launch("ud-publisher", true), launch("rc-subscriber", false), 500);

        assertThat(checker.problems).isEmpty();
        try (NodeFile publisherFile = NodeFile.open(NodeDirectory.fileFor(counters, "ud-publisher")))
        {
            assertThat(publisherFile.counters(CounterTypes.UD_CWND)).as("no UD path opened").isEmpty();
        }
        assertThat(errors).isEmpty();
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

    @Test
    void shouldRefuseTopicDatagramsOnATransportWithoutDatagrams()
    {
        final Transport noDatagrams = new Transport()
        {
            @Override
            public String name()
            {
                return "links-only";
            }

            @Override
            public TransportDriver open(final TransportSettings settings) throws IOException
            {
                final TransportDriver rdma = new RdmaTransport(RdmaTestSupport.provider()).open(settings);
                return new TransportDriver() // links only: not a DatagramTransport
                {
                    @Override
                    public LinkListener listen(final String address) throws IOException
                    {
                        return rdma.listen(address);
                    }

                    @Override
                    public LinkConnector connect(final String address) throws IOException
                    {
                        return rdma.connect(address);
                    }

                    @Override
                    public int doWork(final long nowNs)
                    {
                        return rdma.doWork(nowNs);
                    }

                    @Override
                    public void close()
                    {
                        rdma.close();
                    }
                };
            }
        };
        assertThatThrownBy(() -> Rivulet.launch(new Rivulet.Context().transport(noDatagrams).topicDatagrams(true)
            .countersFile(false)))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("rivulet.topicDatagrams needs datagrams");
    }

    private static int lengthOf(final int sequence)
    {
        // Mostly a few hundred bytes (several frames per datagram); every 97th longer than two datagrams.
        return sequence % 97 == 0 ? 9_000 + sequence % 13 : 16 + sequence % 600;
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
            if (item.data().getInt(0) != (int)sequence ||
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
