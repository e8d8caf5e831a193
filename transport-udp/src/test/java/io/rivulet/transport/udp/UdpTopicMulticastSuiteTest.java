package io.rivulet.transport.udp;

import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.Rivulet;
import io.rivulet.tck.NetworkNamespace;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.SlowConsumerException;
import io.rivulet.topic.TopicOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Topic multicast over real UDP multicast: nodes in one JVM inside a network namespace of its own
 * ({@link NetworkNamespace}: {@code lo} up, multicast on, a route for 224.0.0.0/4), never on the host's interfaces;
 * skipped, saying why, where namespaces cannot be made. {@link InNamespace}: one stream to the group serves every
 * multicast subscriber node once and in order while a node that takes no multicast is served per path (unicast UDP) at
 * the same time; a late join; subscribers leaving while the others go on; a stalled subscriber cut off under DROP_SLOW
 * and subscribing again. The acceptance test with loss is {@link UdpTopicMulticastTest}.
 */
class UdpTopicMulticastSuiteTest
{
    @Test
    @ScaledTimeout(240)
    void shouldPassTheTopicMulticastSuiteInANamespace() throws Exception
    {
        final NetworkNamespace.Result result = NetworkNamespace.runTests(InNamespace.class, List.of(),
            TestTime.seconds(200));
        assertThat(result.passed()).as(result.describe()).isTrue();
        assertThat(result.output()).doesNotContain("ABORTED", "SKIPPED");
    }

    /** The suite proper, run by the outer test inside the namespace. */
    static class InNamespace extends UdpTopicNodes
    {
        private static final Duration TIMEOUT = TestTime.seconds(60);

        private String describe(final List<Checker> checkers, final List<LossyUdpDatagrams> datagrams)
        {
            final List<String> endpoints = new ArrayList<>();
            for (final LossyUdpDatagrams node : datagrams)
            {
                endpoints.add(node.multicast + " " + node.perPath);
            }
            return checkers + "; endpoints " + endpoints + "; errors " + errors;
        }

        private static void assertAllOnceInOrder(final Checker checker, final long from, final long to)
        {
            assertThat(checker.problems).as(checker.toString()).isEmpty();
            assertThat(checker.error).as(checker.toString()).isNull();
            assertThat(checker.first).as(checker.toString()).isEqualTo(from);
            assertThat(checker.last).as(checker.toString()).isEqualTo(to);
            assertThat(checker.count).as(checker.toString()).isEqualTo(to - from + 1);
        }

        @Test
        void shouldServeMulticastSubscribersFromOneStreamToTheGroupAndANodeWithoutMulticastPerPath()
        {
            final long count = 50_000;
            final LossyUdpDatagrams publisherDatagrams = new LossyUdpDatagrams(0, 1);
            final Rivulet publisherNode = publisher(publisherDatagrams);
            final Publication publication = publisherNode.publication("md.a", TopicOptions.block());
            final List<LossyUdpDatagrams> subscriberDatagrams = new ArrayList<>();
            final List<Checker> checkers = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                final LossyUdpDatagrams datagrams = new LossyUdpDatagrams(0, 10 + i);
                subscriberDatagrams.add(datagrams);
                checkers.add(subscribe(multicastSubscriber("multicast-" + i, datagrams), "md.a", Long.MAX_VALUE));
            }
            // Aeron's unicast channel beside the multicast one: a node that cannot take the group (say, across a
            // router) subscribes to the same topic and is served per path over UDP.
            final LossyUdpDatagrams unicastDatagrams = new LossyUdpDatagrams(0, 20);
            final Checker unicast = subscribe(unicastSubscriber("unicast", unicastDatagrams), "md.a", Long.MAX_VALUE);
            final List<Checker> all = new ArrayList<>(checkers);
            all.add(unicast);
            final List<LossyUdpDatagrams> allDatagrams = new ArrayList<>(subscriberDatagrams);
            allDatagrams.add(unicastDatagrams);
            allDatagrams.add(publisherDatagrams);

            publish(publication, 1, count, TIMEOUT, () -> describe(all, allDatagrams));
            awaitUntil("delivered", TIMEOUT, () -> all.stream().allMatch(c -> c.reached(count)),
                () -> describe(all, allDatagrams));

            all.forEach(checker -> assertAllOnceInOrder(checker, 1, count));
            final LossyMulticastEndpoint sent = publisherDatagrams.onlyMulticast();
            System.out.println("publisher's multicast endpoint " + sent + "; its per-path endpoint: " +
                publisherDatagrams.onlyPerPath().datagramsSent() + " datagrams, " +
                publisherDatagrams.onlyPerPath().bytesSent() + " bytes; messages per group datagram " +
                count / Math.max(1, sent.firstDataToGroup));
            // Once to the group: the first sends to the group cover the stream's bytes, each exactly once, and no data
            // went to a receiver alone; three receivers did not triple anything.
            assertThat(sent.discontiguousSends).isZero();
            assertThat(sent.firstDataToGroup).isPositive();
            assertThat(sent.firstDataToPeer).isZero();
            assertThat(sent.firstDataBytesToGroup).isGreaterThanOrEqualTo(count * MESSAGE_LENGTH);
            // The per-path subscriber's data went as unicast datagrams; its stream is about as long as the group's
            // (framing aside), where per subscriber the group's would be three times it.
            assertThat(sent.firstDataBytesToGroup).isLessThan(2 * publisherDatagrams.onlyPerPath().bytesSent());
            assertThat(unicastDatagrams.multicast).isEmpty();
            assertThat(unicastDatagrams.onlyPerPath().bytesReceived()).isGreaterThan(count * MESSAGE_LENGTH);
            for (final LossyUdpDatagrams datagrams : subscriberDatagrams)
            {
                final LossyMulticastEndpoint received = datagrams.onlyMulticast();
                // Every message reached it from the group (first sends and any repair of what the kernel dropped).
                assertThat(received.dataBytesReceived + received.repairBytesReceived).as(received.toString())
                    .isGreaterThanOrEqualTo(count * MESSAGE_LENGTH);
                assertThat(received.dataReceived).as(received.toString()).isLessThanOrEqualTo(
                    sent.firstDataToGroup + sent.heartbeatsSent);
                assertThat(received.statusSent).as("status messages to the publisher").isPositive();
                assertThat(datagrams.perPath).as("no per-path endpoint without topicDatagrams").isEmpty();
            }
            assertThat(errors).isEmpty();
        }

        @Test
        void shouldJoinLateAndTakeTheLiveStreamFromTheGroup()
        {
            final LossyUdpDatagrams publisherDatagrams = new LossyUdpDatagrams(0, 2);
            final Publication publication = publisher(publisherDatagrams).publication("md.late", TopicOptions.block());
            final LossyUdpDatagrams earlyDatagrams = new LossyUdpDatagrams(0, 30);
            final Checker early = subscribe(multicastSubscriber("early", earlyDatagrams), "md.late", Long.MAX_VALUE);
            publish(publication, 1, 10_000, TIMEOUT, early::toString);
            awaitUntil("the early subscriber has the first half", TIMEOUT, () -> early.reached(10_000), early::toString);

            final LossyUdpDatagrams lateDatagrams = new LossyUdpDatagrams(0, 31);
            final Checker late = subscribe(multicastSubscriber("late", lateDatagrams), "md.late", Long.MAX_VALUE);
            publish(publication, 10_001, 20_000, TIMEOUT, () -> early + " " + late);
            awaitUntil("both have everything", TIMEOUT, () -> early.reached(20_000) && late.reached(20_000),
                () -> early + " " + late + " " + lateDatagrams.multicast);

            assertAllOnceInOrder(early, 1, 20_000);
            assertThat(late.joinedAt).isEqualTo(10_000);
            assertAllOnceInOrder(late, 10_001, 20_000); // no gap, no duplicate across the seam
            final LossyMulticastEndpoint lateEndpoint = lateDatagrams.onlyMulticast();
            assertThat(lateEndpoint.dataBytesReceived + lateEndpoint.repairBytesReceived).as(lateEndpoint.toString())
                .isGreaterThanOrEqualTo(10_000L * MESSAGE_LENGTH);
            assertThat(publisherDatagrams.onlyMulticast().firstDataToPeer).isZero();
            assertThat(errors).isEmpty();
        }

        @Test
        void shouldKeepServingTheOthersWhenSubscribersLeave()
        {
            final LossyUdpDatagrams publisherDatagrams = new LossyUdpDatagrams(0, 3);
            final Publication publication = publisher(publisherDatagrams).publication("md.leave", TopicOptions.block());
            final LossyUdpDatagrams stayingDatagrams = new LossyUdpDatagrams(0, 40);
            final LossyUdpDatagrams cancellingDatagrams = new LossyUdpDatagrams(0, 41);
            final LossyUdpDatagrams closingDatagrams = new LossyUdpDatagrams(0, 42);
            final Checker staying = subscribe(multicastSubscriber("staying", stayingDatagrams), "md.leave",
                Long.MAX_VALUE);
            final Checker cancelling = subscribe(multicastSubscriber("cancelling", cancellingDatagrams), "md.leave",
                Long.MAX_VALUE);
            final Checker closing = subscribe(multicastSubscriber("closing", closingDatagrams), "md.leave",
                Long.MAX_VALUE);
            final List<Checker> checkers = List.of(staying, cancelling, closing);
            publish(publication, 1, 10_000, TIMEOUT, checkers::toString);
            awaitUntil("all have the first half", TIMEOUT, () -> checkers.stream().allMatch(c -> c.reached(10_000)),
                checkers::toString);

            cancelling.dispose(); // the subscription ends; its node leaves the group
            final Rivulet closingNode = nodes.get(nodes.size() - 1);
            closingNode.close(); // the whole node goes, with its connection
            nodes.remove(closingNode);
            final UdpEndpoint cancelled = cancellingDatagrams.onlyMulticast().udp();
            awaitUntil("the cancelling node left the group", TIMEOUT, () -> cancelled.groupCount() == 0,
                cancelled::toString);
            publish(publication, 10_001, 20_000, TIMEOUT, checkers::toString);
            awaitUntil("the staying subscriber has everything", TIMEOUT, () -> staying.reached(20_000),
                checkers::toString);

            assertAllOnceInOrder(staying, 1, 20_000);
            assertAllOnceInOrder(cancelling, 1, cancelling.last);
            assertThat(closing.error).as(closing.toString()).isInstanceOf(ConnectionClosedException.class);
            assertThat(closing.problems).as(closing.toString()).isEmpty();
            assertThat(closing.count).isEqualTo(closing.last);
            assertThat(cancelling.last).isLessThan(20_000);
            assertThat(closing.last).isLessThan(20_000);
            assertThat(publisherDatagrams.onlyMulticast().discontiguousSends).isZero();
            assertThat(errors).isEmpty();
        }

        @Test
        void shouldCutOffAStalledSubscriberUnderDropSlowAndLetItSubscribeAgain()
        {
            final LossyUdpDatagrams publisherDatagrams = new LossyUdpDatagrams(0, 4);
            final Publication publication = publisher(publisherDatagrams).publication("md.slow",
                TopicOptions.dropSlow().logCapacity(1 << 20));
            final LossyUdpDatagrams fastDatagrams = new LossyUdpDatagrams(0, 50);
            final LossyUdpDatagrams slowDatagrams = new LossyUdpDatagrams(0, 51);
            final Checker fast = subscribe(multicastSubscriber("fast", fastDatagrams), "md.slow", Long.MAX_VALUE);
            final Connection slowConnection = multicastSubscriber("slow", slowDatagrams);
            final Checker slow = subscribe(slowConnection, "md.slow", 1); // takes one message, then stalls

            // At a producer's pace, as TopicMulticastTest, into a log of a megabyte: a multicast subscriber's position
            // is known from its status messages, and the stream waits for its slowest receiver (min flow control),
            // so a log that the producer fills between two status messages (a 64 kB one at this pace) gets the fast
            // subscriber cut as well.
            publish(publication, 1, 50_000, 20, TIMEOUT, () -> fast + " " + slow);
            awaitUntil("the fast subscriber has everything and the slow one is cut off", TIMEOUT,
                () -> fast.reached(50_000) && slow.error != null, () -> fast + " " + slow);
            assertThat(fast.error).as("the fast subscriber, beside " + slow + " (" + slowDatagrams.multicast + ")").isNull();

            assertAllOnceInOrder(fast, 1, 50_000);
            assertThat(slow.error).isInstanceOf(SlowConsumerException.class);
            assertThat(slow.count).isLessThanOrEqualTo(1);
            final Checker again = subscribe(slowConnection, "md.slow", Long.MAX_VALUE);
            publish(publication, 50_001, 51_000, TIMEOUT, () -> fast + " " + again);
            awaitUntil("both have the rest", TIMEOUT, () -> fast.reached(51_000) && again.reached(51_000),
                () -> fast + " " + again);

            assertAllOnceInOrder(fast, 1, 51_000);
            assertThat(again.joinedAt).isGreaterThanOrEqualTo(50_000);
            assertAllOnceInOrder(again, again.joinedAt + 1, 51_000); // from the live stream on
            final LossyMulticastEndpoint slowEndpoint = slowDatagrams.onlyMulticast();
            assertThat(slowEndpoint.dataReceived).as("the second subscription took the group's stream").isPositive();
            assertThat(errors).isEmpty();
        }
    }
}
