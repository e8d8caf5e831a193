package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import io.rivulet.transport.rdma.HardwareRdma;
import io.rivulet.transport.rdma.RdmaTransport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.BaseSubscriber;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Topics over a real UD queue pair through rdma-core: two nodes on the {@code ibverbs} provider with
 * {@code rivulet.topicDatagrams}, 100,000 messages (every 101st longer than any UD MTU, so it travels as several
 * datagrams) from one to the other, every one once, in order and with its bytes, over the nodes' UD queue pairs (the
 * node files show the UD path and a measured round trip). The datagram settings follow the port's active MTU (1024 on
 * Soft-RoCE over a 1500-byte interface). Skipped, with the reason, without the ibverbs provider or an RDMA address.
 *
 * <p>The nodes' liveness timeouts (keepalive, topic heartbeat, connect, SETUP) scale with {@link TestTime}, like the
 * waits. The reliable-datagram timers are the hardware defaults unless {@code rivulet.ud.*} says otherwise: in the
 * Soft-RoCE guest (emulated, two nodes sharing one emulated CPU) a round trip through both engines takes about 200 ms
 * against a 200µs target, so Swift keeps its window at the floor and paces the path to about one datagram every 100
 * round trips; run it there with timers for such round trips:
 *
 * <pre>
 * mvn -B -pl transport-rdma surefire:test -Dgroups=rdma-hardware -Dtest=IbverbsUdTopicHardwareTest \
 *     -Drivulet.rdma.address=&lt;ip of the RDMA interface&gt; [-Drivulet.test.udHardwareMessages=100000] \
 *     [-Drivulet.test.timeScale=20 -Drivulet.ud.targetDelay=2s -Drivulet.ud.rtoMin=1s -Drivulet.ud.rtoInitial=2s \
 *      -Drivulet.ud.rtoMax=10s -Drivulet.ud.nakDelay=100ms -Drivulet.ud.nakRetry=500ms -Drivulet.ud.nakRetryMax=4s \
 *      -Drivulet.ud.minWindow=1 -Drivulet.ud.initialWindow=16]
 * </pre>
 */
@Tag("rdma-hardware")
@Timeout(value = 60, unit = TimeUnit.MINUTES) // a backstop only: the scaled waits below fail first, saying what
class IbverbsUdTopicHardwareTest
{
    private static final int COUNT = Integer.getInteger("rivulet.test.udHardwareMessages", 100_000);
    private static final int LONG_MESSAGE = 9_000;

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

    @Test
    void shouldDeliverEveryMessageOnceInOrderOverAUdQueuePair() throws IOException
    {
        final IbverbsProvider provider = new IbverbsProvider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "ibverbs unavailable: " + availability.reason());
        final InetAddress address = HardwareRdma.address();
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -D" + HardwareRdma.ADDRESS_PROP +
            "=<ip>");

        final Rivulet publisherNode = launch("ud-hw-publisher", provider);
        final Rivulet subscriberNode = launch("ud-hw-subscriber", provider);
        final String bound = publisherNode.bind(address.getHostAddress() + ":0", Responder.none())
            .block(TestTime.seconds(30)).localAddress();
        final Publication publication = publisherNode.publication("md.hw", TopicOptions.block());
        final Connection connection = subscriberNode.connect(bound).block(TestTime.seconds(30));
        final Checker checker = new Checker();
        connection.subscribe("md.hw").subscribe(checker);
        Await.until(TestTime.seconds(30), () -> publication.subscriberCount() == 1, () -> "subscribed");

        final UnsafeBuffer message = new UnsafeBuffer(new byte[LONG_MESSAGE]);
        final long offerTimeoutNs = TestTime.nanos(30, TimeUnit.SECONDS);
        for (int sequence = 1; sequence <= COUNT; sequence++)
        {
            final int length = lengthOf(sequence);
            message.setMemory(0, length, (byte)sequence);
            message.putInt(0, sequence);
            final int current = sequence;
            Await.until(Duration.ofNanos(offerTimeoutNs),
                () -> publication.offer(message, 0, length) == current || !checker.problems.isEmpty(),
                () -> "offer " + current + " (delivered up to " + checker.last + "; " + udCounters() + ")");
            if (!checker.problems.isEmpty())
            {
                break;
            }
        }
        Await.until(TestTime.seconds(60), () -> checker.last == COUNT || !checker.problems.isEmpty(),
            () -> "every message delivered (up to " + checker.last + " of " + COUNT + "; " + udCounters() + ")");

        assertThat(checker.problems).as(() -> "delivered up to " + checker.last + "; " + udCounters()).isEmpty();
        assertThat(checker.last).isEqualTo(COUNT);
        try (NodeFile publisherFile = NodeFile.open(NodeDirectory.fileFor(counters, "ud-hw-publisher"));
            NodeFile subscriberFile = NodeFile.open(NodeDirectory.fileFor(counters, "ud-hw-subscriber")))
        {
            // The data took the UD path (one per connection and node), whose ACKs came back over UD too.
            assertThat(publisherFile.counters(CounterTypes.UD_CWND)).hasSize(1);
            assertThat(subscriberFile.counters(CounterTypes.UD_CWND)).hasSize(1);
            Await.until(TestTime.seconds(5), () -> publisherFile.sum(CounterTypes.UD_RTT_NS) > 0,
                () -> "the publisher's UD round trip sampled");
        }
        assertThat(errors).isEmpty();
    }

    /** @return each node's UD path counters, for a failure's message. */
    private String udCounters()
    {
        final StringBuilder text = new StringBuilder();
        for (final String name : new String[] {"ud-hw-publisher", "ud-hw-subscriber"})
        {
            try (NodeFile file = NodeFile.open(NodeDirectory.fileFor(counters, name)))
            {
                text.append(name).append(": paths ").append(file.counters(CounterTypes.UD_CWND).size())
                    .append(", cwnd ").append(file.sum(CounterTypes.UD_CWND))
                    .append(", rtt ns ").append(file.sum(CounterTypes.UD_RTT_NS))
                    .append(", retransmissions ").append(file.sum(CounterTypes.UD_RETRANSMISSIONS))
                    .append(", naks sent ").append(file.sum(CounterTypes.UD_NAKS_SENT))
                    .append(", naks received ").append(file.sum(CounterTypes.UD_NAKS_RECEIVED)).append("; ");
            }
            catch (final IOException | RuntimeException ex)
            {
                text.append(name).append(": ").append(ex).append("; ");
            }
        }
        return text.toString();
    }

    private Rivulet launch(final String name, final IbverbsProvider provider)
    {
        // Liveness timeouts scaled like the waits: under emulation a duty cycle can take what a second takes natively.
        final Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new RdmaTransport(provider))
            .nodeName(name)
            .countersDirectory(counters.toString())
            .topicDatagrams(true)
            .keepaliveTimeout(TestTime.millis(5, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .topicHeartbeatTimeout(TestTime.millis(5, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .connectTimeout(TestTime.millis(5, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .setupTimeout(TestTime.millis(5, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }

    private static int lengthOf(final int sequence)
    {
        // Mostly small (several frames share a datagram); every 101st longer than any UD MTU.
        return sequence % 101 == 0 ? LONG_MESSAGE - sequence % 7 : 16 + sequence % 200;
    }

    /** Checks each item as it arrives: DATA in order from 1, each with the bytes its sequence implies. */
    private static final class Checker extends BaseSubscriber<TopicMessage>
    {
        final List<String> problems = new CopyOnWriteArrayList<>();
        volatile long last;

        @Override
        protected void hookOnNext(final TopicMessage item)
        {
            if (item.kind() != TopicMessage.Kind.DATA)
            {
                return;
            }
            final long sequence = item.sequence();
            final int length = lengthOf((int)sequence);
            if (sequence != last + 1 || item.dataLength() != length || item.data().getInt(0) != (int)sequence ||
                item.data().getByte(length - 1) != (byte)sequence)
            {
                problems.add("message " + sequence + " (" + item.dataLength() + " bytes) after " + last);
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
