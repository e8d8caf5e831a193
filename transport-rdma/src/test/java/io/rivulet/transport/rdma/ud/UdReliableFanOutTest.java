package io.rivulet.transport.rdma.ud;

import io.rivulet.protocol.datagram.DatagramMessageHandler;
import io.rivulet.protocol.datagram.DatagramPublisher;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.protocol.datagram.DatagramSubscriber;
import io.rivulet.protocol.datagram.ReliableReceiver;
import io.rivulet.protocol.datagram.ReliableSender;
import io.rivulet.spi.SwiftSettings;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftFaults;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reliable-datagram protocol over real (soft) UD queue pairs: one publisher and 8 subscribers, each node
 * its own device and one {@link UdDatagramEndpoint}, with seeded loss (0, 1, 5 and 20 %), 2 % duplication and 5 %
 * reordering on every device's egress. Every subscriber must get every message exactly once and in order, without
 * a retransmission storm. All agents run on the test thread; the loop is bounded by count and a deadline.
 *
 * <p>{@code -Drivulet.test.udFanOutMessages=1000000} runs the full matrix (8 x 1,000,000 per loss rate)
 * over the soft UD queue pairs instead of the 10,000 a normal build sends; the deadline grows with the count, and the
 * build's 120 s test timeout must be raised too
 * ({@code -Djunit.jupiter.execution.timeout.testtemplate.method.default=30m}): at 20 % loss it takes about 13 minutes
 * on a 2-core machine.
 */
class UdReliableFanOutTest
{
    private static final int SUBSCRIBERS = 8;
    private static final int MESSAGES = Integer.getInteger("rivulet.test.udFanOutMessages", 10_000);
    private static final int PAYLOAD = 16;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(60) + TimeUnit.MILLISECONDS.toNanos(MESSAGES);

    /** Timers for real time on a loaded 2-core box: generous, so slow scheduling is not taken for loss. */
    static DatagramSettings realTimeSettings()
    {
        return new DatagramSettings()
            .window(1024)
            .ringLength(4096)
            .maxPayload(PAYLOAD)
            .ackEvery(16)
            .ackIntervalNs(TimeUnit.MICROSECONDS.toNanos(200))
            .nakDelayNs(TimeUnit.MILLISECONDS.toNanos(2))
            .nakRetryNs(TimeUnit.MILLISECONDS.toNanos(10))
            .nakRetryMaxNs(TimeUnit.MILLISECONDS.toNanos(80))
            .rtoInitialNs(TimeUnit.MILLISECONDS.toNanos(50))
            .rtoMinNs(TimeUnit.MILLISECONDS.toNanos(20))
            .rtoMaxNs(TimeUnit.MILLISECONDS.toNanos(400))
            .swift(new SwiftSettings()
                .targetDelayNs(TimeUnit.MILLISECONDS.toNanos(20))
                .initialWindow(8)
                .maxWindow(256)
                .minWindow(0.5));
    }

    @ParameterizedTest(name = "loss {0}")
    @ValueSource(doubles = {0, 0.01, 0.05, 0.20})
    void everySubscriberReceivesEveryMessageExactlyOnceInOrderDespiteFaults(final double loss) throws IOException
    {
        final DatagramSettings settings = realTimeSettings().validate();
        final SoftVerbsProvider provider = new SoftVerbsProvider(new SoftFabric());
        final List<SoftVerbsContext> contexts = new ArrayList<>();
        final List<UdDatagramEndpoint> endpoints = new ArrayList<>();
        try
        {
            final UdDatagramEndpoint publisherEndpoint = node(provider, contexts, endpoints, settings, loss, 0, 1024, 256);
            final DatagramPublisher publisher = new DatagramPublisher(settings, publisherEndpoint);
            final DatagramSubscriber[] subscribers = new DatagramSubscriber[SUBSCRIBERS];
            final OrderCheck[] checks = new OrderCheck[SUBSCRIBERS];
            for (int i = 0; i < SUBSCRIBERS; i++)
            {
                final UdDatagramEndpoint endpoint = node(provider, contexts, endpoints, settings, loss, i + 1, 1024, 64);
                checks[i] = new OrderCheck();
                subscribers[i] = new DatagramSubscriber(settings, endpoint, checks[i]);
                final int initialSequence = -5_000 * (i + 1); // crosses the 32-bit wrap
                subscribers[i].addPublisher(endpoint.resolve(publisherEndpoint.localAddress()), 100 + i, initialSequence);
                publisher.addSubscriber(publisherEndpoint.resolve(endpoint.localAddress()), 100 + i, initialSequence);
            }

            final UnsafeBuffer message = new UnsafeBuffer(new byte[PAYLOAD]);
            final BackoffIdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 200_000);
            final long startNs = System.nanoTime();
            long offered = 0;
            while (!(offered == MESSAGES && publisher.ring().releasedPosition() == MESSAGES))
            {
                while (offered < MESSAGES)
                {
                    message.putLong(0, offered);
                    message.putLong(8, ~offered);
                    if (publisher.offer(message, 0, PAYLOAD) < 0)
                    {
                        break;
                    }
                    offered++;
                }
                final long nowNs = System.nanoTime();
                int work = publisher.doWork(nowNs);
                for (final DatagramSubscriber subscriber : subscribers)
                {
                    work += subscriber.doWork(nowNs);
                }
                idle.idle(work);
                if (nowNs - startNs > DEADLINE_NS)
                {
                    throw new AssertionError("deadline, offered " + offered + ", released " +
                        publisher.ring().releasedPosition());
                }
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

            long retransmits = 0;
            long timeouts = 0;
            for (int i = 0; i < SUBSCRIBERS; i++)
            {
                final ReliableSender sender = publisher.subscriber(i);
                final ReliableReceiver receiver = subscribers[i].publisher(0);
                assertThat(sender.isFailed()).as(sender::failureReason).isFalse();
                assertThat(checks[i].errors).as(() -> "order errors, first: " + checks[0].firstError).isZero();
                assertThat(checks[i].next).isEqualTo(MESSAGES);
                assertThat(receiver.delivered()).isEqualTo(MESSAGES);
                assertThat(subscribers[i].malformedDatagrams()).isZero();
                retransmits += sender.retransmits();
                timeouts += sender.timeouts();
            }
            assertThat(publisher.malformedDatagrams()).isZero();
            // Payloads posted from the ring itself, for every path and every retransmission: the ring released a
            // slot only after the device had read it, or a later message would have overwritten one in flight.
            assertThat(publisher.ring().isSentInPlace()).isTrue();
            assertThat(publisherEndpoint.regionSends()).isEqualTo(publisherEndpoint.datagramsSent()).isPositive();

            long faultDrops = 0;
            long duplicates = 0;
            long reorders = 0;
            long noReceiveDrops = 0;
            for (final SoftVerbsContext context : contexts)
            {
                faultDrops += context.faultDrops();
                duplicates += context.faultDuplicates();
                reorders += context.faultReorders();
                noReceiveDrops += context.datagramsDroppedNoReceive();
            }
            final long publisherDrops = contexts.get(0).faultDrops();
            if (loss > 0)
            {
                assertThat(publisherDrops).as("faults were injected on the data path").isPositive();
            }
            assertThat(duplicates).isPositive();
            assertThat(reorders).isPositive();
            final long drops = faultDrops + noReceiveDrops;
            System.out.printf(
                "ud over soft UD QPs, loss %.0f%%: %d subscribers x %,d messages in %,d ms; publisher data drops %,d, " +
                "all fault drops %,d, no-receive drops %,d, duplicated %,d, reordered %,d; retransmits %,d " +
                "(%.2f per drop), timeouts %d%n",
                loss * 100, SUBSCRIBERS, MESSAGES, elapsedMs, publisherDrops, faultDrops, noReceiveDrops, duplicates,
                reorders, retransmits, (double)retransmits / Math.max(1, drops), timeouts);
            // No storm: about one retransmission per lost datagram (a lost ACK or NAK can cost one more);
            // slack per path for timer-found tail losses on a slow, shared machine.
            assertThat(retransmits).isLessThanOrEqualTo(2 * drops + 64L * SUBSCRIBERS);
        }
        finally
        {
            endpoints.forEach(UdDatagramEndpoint::close);
            contexts.forEach(SoftVerbsContext::close);
        }
    }

    private static UdDatagramEndpoint node(
        final SoftVerbsProvider provider,
        final List<SoftVerbsContext> contexts,
        final List<UdDatagramEndpoint> endpoints,
        final DatagramSettings settings,
        final double loss,
        final int seed,
        final int receiveSlots,
        final int sendSlots) throws IOException
    {
        final SoftVerbsContext context = provider.open(InetAddress.getLoopbackAddress());
        contexts.add(context);
        context.faults(SoftFaults.seeded(0x0D_5EEDL + seed).drop(loss).duplicate(0.02).reorder(0.05));
        final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(
            context, settings.maxDatagramLength(), receiveSlots, sendSlots, UdDatagramEndpointTest.QKEY);
        endpoints.add(endpoint);
        return endpoint;
    }

    private static final class OrderCheck implements DatagramMessageHandler
    {
        long next;
        long errors;
        String firstError;

        @Override
        public void onMessage(final int sessionId, final DirectBuffer buffer, final int offset, final int length)
        {
            final long value = buffer.getLong(offset);
            if (length != PAYLOAD || value != next || buffer.getLong(offset + 8) != ~next)
            {
                if (errors++ == 0)
                {
                    firstError = "session " + sessionId + " expected " + next + " got " + value + " length " + length;
                }
            }
            next++;
        }
    }
}
