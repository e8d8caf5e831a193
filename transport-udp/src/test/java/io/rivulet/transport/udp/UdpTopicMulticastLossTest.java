package io.rivulet.transport.udp;

import io.rivulet.tck.NetworkNamespace;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicOptions;
import org.agrona.collections.LongHashSet;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acceptance test of topic multicast over UDP: {@value InNamespace#RECEIVERS} subscriber nodes take
 * {@value InNamespace#COUNT} messages of {@value UdpTopicNodes#MESSAGE_LENGTH} bytes from one publisher through a UDP
 * group, each losing {@value InNamespace#LOSS_PERCENT} % of what it receives (DATA, repairs, LOST) and of what it sends
 * (NAKs, status messages) on its own seeded dice, and every one gets every message exactly once and in order. Runs in
 * a network namespace of its own ({@link NetworkNamespace}), never on the host's interfaces; skipped, saying why, where
 * namespaces cannot be made. Prints the run time, the losses and the repairs per lost datagram.
 */
class UdpTopicMulticastLossTest
{
    @Test
    @ScaledTimeout(300)
    void shouldDeliverAMillionMessagesToEightReceiversAtTwentyPercentLossInANamespace() throws Exception
    {
        final NetworkNamespace.Result result = NetworkNamespace.runTests(InNamespace.class, List.of(),
            TestTime.seconds(240));
        assertThat(result.passed()).as(result.describe()).isTrue();
        assertThat(result.output()).doesNotContain("ABORTED", "SKIPPED");
    }

    /** The test proper, run by the outer test inside the namespace. */
    static class InNamespace extends UdpTopicNodes
    {
        static final int RECEIVERS = 8;
        static final long COUNT = 1_000_000;
        static final int LOSS_PERCENT = 20;
        private static final double LOSS = LOSS_PERCENT / 100.0;
        private static final Duration TIMEOUT = TestTime.seconds(180);

        @Test
        void shouldDeliverEveryMessageOnceAndInOrderToEveryReceiverDespiteLossEachWay()
        {
            final LossyUdpDatagrams publisherDatagrams = new LossyUdpDatagrams(0, 7);
            // A log of 4 MB: repairs come from it, and at 20 % loss each way they take a few round trips.
            final Publication publication = publisher(publisherDatagrams).publication("md.loss",
                TopicOptions.block().logCapacity(1 << 22));
            final List<LossyUdpDatagrams> receivers = new ArrayList<>();
            final List<Checker> checkers = new ArrayList<>();
            for (int i = 0; i < RECEIVERS; i++)
            {
                final LossyUdpDatagrams datagrams = new LossyUdpDatagrams(LOSS, 1_000 + i);
                receivers.add(datagrams);
                checkers.add(subscribe(multicastSubscriber("receiver-" + i, datagrams), "md.loss", Long.MAX_VALUE));
            }
            final long startNs = System.nanoTime();

            publish(publication, 1, COUNT, TIMEOUT, () -> describe(checkers, publisherDatagrams, receivers));
            awaitUntil("every receiver has every message", TIMEOUT,
                () -> checkers.stream().allMatch(c -> c.reached(COUNT)),
                () -> describe(checkers, publisherDatagrams, receivers));
            final long elapsedNs = System.nanoTime() - startNs;

            for (final Checker checker : checkers)
            {
                assertThat(checker.problems).as(checker.toString()).isEmpty();
                assertThat(checker.error).as(checker.toString()).isNull();
                assertThat(checker.first).as(checker.toString()).isEqualTo(1);
                assertThat(checker.last).as(checker.toString()).isEqualTo(COUNT);
                assertThat(checker.count).as(checker.toString()).isEqualTo(COUNT);
            }
            report(elapsedNs, publisherDatagrams.onlyMulticast(), receivers);
            final LossyMulticastEndpoint sent = publisherDatagrams.onlyMulticast();
            assertThat(sent.discontiguousSends).isZero();
            assertThat(sent.repairsToGroup + sent.repairsToPeer).as("repairs").isPositive();
            for (final LossyUdpDatagrams datagrams : receivers)
            {
                final LossyMulticastEndpoint received = datagrams.onlyMulticast();
                // The loss happened, both ways, at about the rate asked for ...
                final long dataSeen = received.dataReceived + received.dataDropped;
                assertThat((double)received.dataDropped / dataSeen).as(received.toString()).isBetween(0.15, 0.25);
                assertThat(received.naksDropped).as(received.toString()).isPositive();
                assertThat(received.statusDropped).as(received.toString()).isPositive();
                // ... and every message still came from the group, not over the connection.
                assertThat(received.dataBytesReceived + received.repairBytesReceived).as(received.toString())
                    .isGreaterThanOrEqualTo(COUNT * MESSAGE_LENGTH);
            }
            assertThat(errors).isEmpty();
        }

        private static String describe(final List<Checker> checkers, final LossyUdpDatagrams publisher,
            final List<LossyUdpDatagrams> receivers)
        {
            final List<String> endpoints = new ArrayList<>();
            receivers.forEach(datagrams -> endpoints.add(datagrams.multicast.toString()));
            return checkers + "; publisher " + publisher.multicast + "; receivers " + endpoints;
        }

        /** Prints what the loss cost: the figures the report quotes. */
        private static void report(final long elapsedNs, final LossyMulticastEndpoint sent,
            final List<LossyUdpDatagrams> receivers)
        {
            final LongHashSet lostSomewhere = new LongHashSet();
            long dataDropped = 0;
            long repairsDropped = 0;
            long naksSent = 0;
            long naksDropped = 0;
            long statusSent = 0;
            long statusDropped = 0;
            for (final LossyUdpDatagrams datagrams : receivers)
            {
                final LossyMulticastEndpoint received = datagrams.onlyMulticast();
                lostSomewhere.addAll(received.droppedPositions());
                dataDropped += received.dataDropped;
                repairsDropped += received.repairsDropped;
                naksSent += received.naksSent;
                naksDropped += received.naksDropped;
                statusSent += received.statusSent;
                statusDropped += received.statusDropped;
            }
            final long repairs = sent.repairsToGroup + sent.repairsToPeer;
            System.out.println(String.format(Locale.ROOT,
                "UDP multicast, %d receivers x %,d messages of %d bytes at %d %% loss each way: %.1f s%n" +
                "  publisher: %,d first sends to the group (%.1f messages each), %,d heartbeats, repairs %,d to the " +
                "group + %,d to one receiver%n" +
                "  receivers: %,d first sends dropped (%,d distinct datagrams lost by at least one), %,d repairs " +
                "dropped; NAKs %,d sent + %,d dropped, status %,d sent + %,d dropped%n" +
                "  repairs per lost datagram: %.3f per distinct datagram lost, %.3f per receiver's loss",
                receivers.size(), COUNT, MESSAGE_LENGTH, LOSS_PERCENT, elapsedNs / (double)TimeUnit.SECONDS.toNanos(1),
                sent.firstDataToGroup, COUNT / (double)sent.firstDataToGroup, sent.heartbeatsSent, sent.repairsToGroup,
                sent.repairsToPeer, dataDropped, lostSomewhere.size(), repairsDropped, naksSent, naksDropped,
                statusSent, statusDropped, repairs / (double)Math.max(1, lostSomewhere.size()),
                repairs / (double)Math.max(1, dataDropped)));
        }
    }
}
