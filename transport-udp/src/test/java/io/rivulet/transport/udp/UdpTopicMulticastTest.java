package io.rivulet.transport.udp;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import io.rivulet.protocol.datagram.multicast.MulticastHeader;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.MulticastTransport;
import io.rivulet.spi.ReadinessWatch;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.Await;
import io.rivulet.tck.NetworkNamespace;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicGroups;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicItem;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import io.rivulet.transport.tcp.TcpTransport;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topics over UDP multicast, in a network namespace of their own ({@link NetworkNamespace}: loopback with multicast and
 * a route for 224.0.0.0/4), never on the host's interfaces; skipped where namespaces cannot be made. Nodes talk over
 * TCP on 127.0.0.1 and the publisher sends its topic once to a group. {@link InNamespace}: eight subscriber nodes take
 * 1,000,000 messages from the group exactly once and in order while every endpoint loses 20 % of what it receives
 * (data, NAKs and status messages alike, independently per endpoint), the publisher sending each byte about once
 * whatever the number of subscribers; a subscriber node without multicast is served per path (unicast UDP) at the same
 * time.
 */
class UdpTopicMulticastTest
{
    private static final String GROUP = "239.255.7.1:40123";

    @Test
    @ScaledTimeout(600)
    void shouldPassTheTopicMulticastTestsInANamespace() throws Exception
    {
        final NetworkNamespace.Result result = NetworkNamespace.runTests(InNamespace.class, List.of(),
            TestTime.seconds(540));
        assertThat(result.passed()).as(result.describe()).isTrue();
        assertThat(result.output()).doesNotContain("ABORTED", "SKIPPED");
    }

    /** The tests proper, in the child JVM inside the namespace. */
    static class InNamespace
    {
        private final List<Rivulet> nodes = new ArrayList<>();
        private final List<Throwable> errors = new CopyOnWriteArrayList<>();
        private Path counters;

        @BeforeEach
        void inside() throws IOException
        {
            NetworkNamespace.assumeInside();
            counters = Files.createTempDirectory("rivulet-udp-multicast");
        }

        @AfterEach
        void closeAll()
        {
            for (int i = nodes.size() - 1; i >= 0; i--)
            {
                nodes.get(i).close();
            }
        }

        private Rivulet launch(final String name, final Rivulet.Context context)
        {
            final Rivulet node = Rivulet.launch(context
                .transport(new TcpTransport())
                .nodeName(name)
                .countersDirectory(counters.toString())
                .threadingMode(ThreadingMode.SHARED)
                .errorHandler(errors::add));
            nodes.add(node);
            return node;
        }

        /**
         * UDP's multicast timers with repairs asked for sooner and a receiver window of 2 MiB: at 20 % loss on every
         * receiver one of the eight is nearly always waiting for a repair, the window is how far the others run ahead
         * meanwhile, and on loopback a repair round trip takes far less than UDP's default 20 ms retry (which is for
         * engines parked on a loaded LAN host). With the defaults the million messages take about 27 times longer.
         */
        private static MulticastSettings lossTolerant()
        {
            return UdpDatagramDefaults.adjust(new MulticastSettings())
                .receiverWindow(2 << 20)
                .nakBackoffNs(TimeUnit.MILLISECONDS.toNanos(1))
                .repairLingerNs(TimeUnit.MILLISECONDS.toNanos(1))
                .nakRetryNs(TimeUnit.MILLISECONDS.toNanos(4))
                .nakRetryMaxNs(TimeUnit.MILLISECONDS.toNanos(32))
                .validate();
        }

        private static UdpSettings loopback()
        {
            return new UdpSettings().bindAddress("127.0.0.1:0").multicastInterface("lo");
        }

        @Test
        void shouldDeliverAMillionMessagesToEightSubscribersExactlyOnceInOrderAtTwentyPercentLoss() throws Exception
        {
            final int subscribers = 8;
            final double loss = Double.parseDouble(System.getProperty("rivulet.test.udpMulticastLoss", "0.20"));
            final int count = Integer.getInteger("rivulet.test.udpMulticastMessages", 1_000_000);
            final LossyUdp publisherNetwork = new LossyUdp(loopback(), loss, 1);
            final Rivulet publisher = launch("mc-publisher", new Rivulet.Context()
                .datagrams(publisherNetwork)
                .multicastSettings(lossTolerant())
                .topicDatagrams(true)
                .topicMulticast(TopicGroups.parse("md.>=" + GROUP)));
            final String address = publisher.bind("127.0.0.1:0", Responder.none()).block().localAddress();
            final Publication publication = publisher.publication("md.ticks",
                TopicOptions.block().logCapacity(4 << 20));

            final List<LossyUdp> networks = new ArrayList<>();
            final List<Checker> checkers = new ArrayList<>();
            for (int i = 0; i < subscribers; i++)
            {
                final LossyUdp network = new LossyUdp(loopback(), loss, 100 + i);
                networks.add(network);
                final Rivulet node = launch("mc-subscriber-" + i, new Rivulet.Context()
                    .datagrams(network)
                    .multicastSettings(lossTolerant())
                    .topicMulticastReceive(true));
                checkers.add(subscribe(node.connect(address).block()));
            }
            // A node without multicast on the same topic, as across a router: served per path meanwhile, with
            // unicast UDP datagrams (lossless here).
            final Checker plain = subscribe(launch("unicast-subscriber", new Rivulet.Context()
                .datagrams(new UdpDatagrams(loopback()))
                .topicDatagrams(true))
                .connect(address).block());

            final long startNs = System.nanoTime();
            publish(publication, count, 32, TimeUnit.SECONDS.toNanos(400));
            final List<Checker> all = new ArrayList<>(checkers);
            all.add(plain);
            Await.until(TestTime.seconds(400),
                () -> all.stream().allMatch(c -> c.last.get() == count || !c.problems.isEmpty()),
                () -> "every subscriber has every message: " + all.stream().map(c -> c.last.get()).toList());
            final double seconds = (System.nanoTime() - startNs) / 1e9;

            for (final Checker checker : all)
            {
                assertThat(checker.problems).isEmpty();
                assertThat(checker.last.get()).isEqualTo(count);
            }
            assertThat(errors).isEmpty();

            try (NodeFile publisherFile = NodeFile.open(NodeDirectory.fileFor(counters, "mc-publisher")))
            {
                Await.until("the publisher's multicast counters sampled",
                    () -> publisherFile.sum(CounterTypes.MULTICAST_BYTES_SENT) > (long)count * 32);
                final long bytesSent = publisherFile.sum(CounterTypes.MULTICAST_BYTES_SENT);
                final long repairDatagrams = publisherFile.sum(CounterTypes.MULTICAST_REPAIR_DATAGRAMS);
                final long repairsToGroup = publisherFile.sum(CounterTypes.MULTICAST_REPAIRS_TO_GROUP);
                final long repairsToReceiver = publisherFile.sum(CounterTypes.MULTICAST_REPAIRS_TO_RECEIVER);
                final long naks = publisherFile.sum(CounterTypes.MULTICAST_NAKS_RECEIVED);
                final long dataDatagrams = publisherFile.sum(CounterTypes.MULTICAST_DATAGRAMS_SENT) - repairDatagrams;
                final long lostCopies = networks.stream().mapToLong(n -> n.droppedData.get()).sum();
                // Every subscriber took the stream from the group: the publisher sent the log's bytes once, plus
                // repairs, not eight copies (the per-path subscriber's copy goes over its TCP connection).
                final long logBytes = publisherFile.sum(CounterTypes.TOPIC_LOG_BYTES);
                assertThat(logBytes).isPositive();
                assertThat(bytesSent).isLessThan(2 * logBytes);
                assertThat(publisherFile.counters(CounterTypes.UD_CWND)).as("one unicast path").hasSize(1);
                assertThat(lostCopies > 0 || loss == 0).as("the network lost data").isTrue();
                System.out.printf("udp multicast: %,d messages x %d subscribers at %.0f %% loss in %.1f s; %,d data " +
                        "datagrams, %,d copies lost on receipt, %,d repair datagrams (%.2f per lost copy; %,d repairs " +
                        "to the group, %,d to one receiver), %,d NAKs received; bytes sent %.2f x the log%n",
                    count, subscribers, loss * 100, seconds, dataDatagrams, lostCopies, repairDatagrams,
                    repairDatagrams / (double)lostCopies, repairsToGroup, repairsToReceiver, naks,
                    bytesSent / (double)logBytes);
            }
            for (int i = 0; i < subscribers; i++)
            {
                try (NodeFile file = NodeFile.open(NodeDirectory.fileFor(counters, "mc-subscriber-" + i)))
                {
                    assertThat(file.sum(CounterTypes.MULTICAST_IMAGES)).as("subscriber %d took the group", i)
                        .isEqualTo(1);
                    assertThat(file.sum(CounterTypes.MULTICAST_BYTES_RECEIVED)).isPositive();
                }
            }
        }

        private static Checker subscribe(final Connection connection)
        {
            final Checker checker = new Checker();
            connection.subscribe("md.ticks", checker);
            Await.until("joined", () -> checker.joined);
            return checker;
        }

        /** Publishes {@code count} messages of {@code length} bytes, each carrying its sequence, within a deadline. */
        private static void publish(final Publication publication, final int count, final int length,
            final long limitNs)
        {
            final UnsafeBuffer message = new UnsafeBuffer(new byte[length]);
            final long endNs = System.nanoTime() + limitNs;
            int sequence = 1;
            while (sequence <= count)
            {
                message.putInt(0, sequence);
                message.putInt(length - 4, ~sequence);
                if (publication.offer(message, 0, length) > 0)
                {
                    sequence++;
                }
                else
                {
                    if (System.nanoTime() - endNs > 0)
                    {
                        throw new AssertionError("published only " + (sequence - 1) + " of " + count + " in time");
                    }
                    Thread.onSpinWait();
                    Thread.yield();
                }
            }
        }
    }

    /** Checks each item in place: DATA in order from 1, once, with the bytes its sequence implies; no gap. */
    static final class Checker implements TopicHandler
    {
        final List<String> problems = new CopyOnWriteArrayList<>();
        final AtomicLong last = new AtomicLong();
        volatile boolean joined;

        @Override
        public void onItem(final TopicItem item)
        {
            if (item.kind() == TopicMessage.Kind.JOINED)
            {
                joined = true;
                return;
            }
            if (!item.hasData())
            {
                problems.add("unexpected " + item);
                return;
            }
            final long sequence = item.sequence();
            final long expected = last.get() + 1;
            final DirectBuffer data = item.data();
            if (sequence != expected || data.getInt(0) != (int)sequence ||
                data.getInt(item.dataLength() - 4) != ~(int)sequence)
            {
                if (problems.size() < 10)
                {
                    problems.add("sequence " + sequence + " (bytes say " + data.getInt(0) + ") after " + (expected - 1));
                }
            }
            last.set(sequence);
        }

        @Override
        public void onError(final Throwable error)
        {
            problems.add("error " + error);
        }
    }

    /**
     * UDP datagrams whose endpoints lose a share of what they receive, drawn independently per endpoint from a seed:
     * data and repairs on a subscriber's node, NAKs and status messages on the publisher's.
     */
    static final class LossyUdp implements DatagramProvider
    {
        private final UdpDatagrams udp;
        private final double loss;
        private final long seed;
        final AtomicLong droppedData = new AtomicLong();

        LossyUdp(final UdpSettings settings, final double loss, final long seed)
        {
            this.udp = new UdpDatagrams(settings);
            this.loss = loss;
            this.seed = seed;
        }

        @Override
        public String name()
        {
            return udp.name();
        }

        @Override
        public OpenDatagrams open(final TransportSettings settings)
        {
            final UdpDatagramTransport transport = udp.open(settings);
            return new LossyTransport(transport);
        }

        private final class LossyTransport implements OpenDatagrams, MulticastTransport
        {
            private final UdpDatagramTransport transport;
            private long endpoints;

            LossyTransport(final UdpDatagramTransport transport)
            {
                this.transport = transport;
            }

            @Override
            public DatagramEndpoint openDatagramEndpoint(final int maxDatagramLength, final int receiveSlots,
                final int sendSlots) throws IOException
            {
                return transport.openDatagramEndpoint(maxDatagramLength, receiveSlots, sendSlots);
            }

            @Override
            public MulticastEndpoint openMulticastEndpoint(final int maxDatagramLength, final int receiveSlots,
                final int sendSlots) throws IOException
            {
                return new LossyEndpoint(transport.openMulticastEndpoint(maxDatagramLength, receiveSlots, sendSlots),
                    new SplittableRandom(seed * 31 + endpoints++));
            }

            @Override
            public io.rivulet.spi.DatagramSettings defaultDatagramSettings(final io.rivulet.spi.DatagramSettings defaults)
            {
                return transport.defaultDatagramSettings(defaults);
            }

            @Override
            public MulticastSettings defaultMulticastSettings(final MulticastSettings defaults)
            {
                return transport.defaultMulticastSettings(defaults);
            }

            @Override
            public void close()
            {
                transport.close();
            }
        }

        /** A multicast endpoint that drops a share of the datagrams its poll reads. */
        private final class LossyEndpoint implements MulticastEndpoint, DatagramEndpoint.DatagramHandler
        {
            private final MulticastEndpoint endpoint;
            private final SplittableRandom random;
            private DatagramHandler handler;

            LossyEndpoint(final MulticastEndpoint endpoint, final SplittableRandom random)
            {
                this.endpoint = endpoint;
                this.random = random;
            }

            /** As the real endpoint: the engines sleep in their selectors, woken by datagrams, dropped ones included. */
            @Override
            public boolean wakeWhenReadable(final ReadinessWatch watch)
            {
                return endpoint.wakeWhenReadable(watch);
            }

            @Override
            public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
            {
                if (random.nextDouble() < loss)
                {
                    if (length > MulticastHeader.DATA_HEADER_LENGTH &&
                        buffer.getByte(offset + MulticastHeader.TYPE_OFFSET) == MulticastHeader.TYPE_DATA)
                    {
                        droppedData.incrementAndGet();
                    }
                    return;
                }
                handler.onDatagram(peer, buffer, offset, length);
            }

            @Override
            public int poll(final DatagramHandler handler, final int limit)
            {
                this.handler = handler;
                return endpoint.poll(this, limit);
            }

            @Override
            public int maxDatagramLength()
            {
                return endpoint.maxDatagramLength();
            }

            @Override
            public String localAddress()
            {
                return endpoint.localAddress();
            }

            @Override
            public int resolve(final String address)
            {
                return endpoint.resolve(address);
            }

            @Override
            public int resolve(final String address, final String remoteHost)
            {
                return endpoint.resolve(address, remoteHost);
            }

            @Override
            public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
            {
                return endpoint.send(peer, buffer, offset, length);
            }

            @Override
            public int joinGroup(final String group, final boolean receive)
            {
                return endpoint.joinGroup(group, receive);
            }

            @Override
            public int groupState(final int group)
            {
                return endpoint.groupState(group);
            }

            @Override
            public String groupFailure(final int group)
            {
                return endpoint.groupFailure(group);
            }

            @Override
            public void leaveGroup(final int group)
            {
                endpoint.leaveGroup(group);
            }

            @Override
            public void close()
            {
                endpoint.close();
            }
        }
    }
}
