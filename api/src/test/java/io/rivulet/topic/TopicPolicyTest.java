package io.rivulet.topic;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The three slow-consumer policies, deterministically: two fast subscribers and one that requests nothing,
 * a publisher that offers far more than the log holds, and the publisher's buffered bytes checked against
 * the log's capacity after every duty cycle.
 */
class TopicPolicyTest
{
    private static final int CAPACITY = 8 * 1024;
    private static final int COUNT = 3_000;
    private static final int KEYS = 16;
    private static final int MESSAGE_LENGTH = 16;

    /** Messages offered per duty cycle: a steady publisher the fast subscribers' credits keep up with. */
    private static final int PER_STEP = 8;

    private final TopicHarness harness = new TopicHarness(64);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
    private final TopicHarness.Collector fastA = new TopicHarness.Collector(Long.MAX_VALUE);
    private final TopicHarness.Collector fastB = new TopicHarness.Collector(Long.MAX_VALUE);
    private final TopicHarness.Collector slow = new TopicHarness.Collector(0);
    private Publication publication;
    private int backPressured;

    private void start(final TopicOptions options)
    {
        publication = harness.publisher.publication("md.quotes.EURUSD", options.logCapacity(CAPACITY));
        harness.connect().connection().subscribe("md.quotes.*").subscribe(fastA);
        harness.connect().connection().subscribe("md.quotes.EURUSD").subscribe(fastB);
        harness.connect().connection().subscribe("md.>").subscribe(slow);
        harness.settle();
        assertThat(publication.subscriberCount()).isEqualTo(3);
    }

    /** Offers value i with key i % KEYS; returns once all are in, or after giving up on a blocked publisher. */
    private int publish(final int from, final int to, final int maxBlockedSteps)
    {
        int value = from;
        int blocked = 0;
        int inStep = 0;
        while (value <= to && blocked <= maxBlockedSteps)
        {
            message.putLong(0, value % KEYS);
            message.putLong(8, value);
            final long result = publication.offer(message, 0, MESSAGE_LENGTH);
            if (result > 0)
            {
                assertThat(result).isEqualTo(value);
                value++;
                blocked = 0;
                if (++inStep == PER_STEP)
                {
                    inStep = 0;
                    step();
                }
                continue;
            }
            assertThat(result).isEqualTo(Publication.BACK_PRESSURED);
            backPressured++;
            blocked++;
            inStep = 0;
            step();
        }
        return value - 1;
    }

    private void step()
    {
        harness.step();
        assertThat(publication.bufferedBytes()).isLessThanOrEqualTo(CAPACITY);
    }

    @Test
    void blockShouldHoldThePublisherToTheSlowestAndLoseNothing()
    {
        start(TopicOptions.block().keyOf(TopicPublicationTest.KEY));

        final int published = publish(1, COUNT, 50);

        assertThat(published).as("the publisher is held back by the slow subscriber").isLessThan(COUNT);
        assertThat(backPressured).isPositive();
        assertThat(fastA.dataSequences().size()).isLessThanOrEqualTo(published);

        slow.request(Long.MAX_VALUE);
        assertThat(publish(published + 1, COUNT, 10_000)).isEqualTo(COUNT);
        harness.stepUntil("everyone has everything", () ->
            slow.dataSequences().size() == COUNT && fastA.dataSequences().size() == COUNT &&
            fastB.dataSequences().size() == COUNT);
        for (final TopicHarness.Collector collector : List.of(fastA, fastB, slow))
        {
            assertExactlyOnceInOrder(collector, COUNT);
            assertThat(collector.count(TopicMessage.Kind.GAP)).isZero();
            assertThat(collector.error).isNull();
        }
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(CAPACITY);
        assertThat(publication.slowConsumerEvents()).isZero();
    }

    @Test
    void dropSlowShouldCutOffTheSlowSubscriberWithoutHoldingTheOthers()
    {
        start(TopicOptions.dropSlow());

        // Not blocked: every offer goes through, at most a duty cycle after back-pressure.
        assertThat(publish(1, COUNT, 1)).isEqualTo(COUNT);
        harness.stepUntil("the fast subscribers have everything", () ->
            fastA.dataSequences().size() == COUNT && fastB.dataSequences().size() == COUNT);
        harness.settle();

        assertExactlyOnceInOrder(fastA, COUNT);
        assertExactlyOnceInOrder(fastB, COUNT);
        assertThat(slow.items).isEmpty(); // it asked for nothing
        // The cut-off needs no demand: it arrived at once, and what the subscriber had not requested went with it.
        assertThat(slow.error).isInstanceOf(SlowConsumerException.class);
        final SlowConsumerException cut = (SlowConsumerException)slow.error;
        assertThat(cut.topic()).isEqualTo("md.quotes.EURUSD");
        assertThat(cut.sessionId()).isEqualTo(publication.sessionId());
        assertThat(cut.lastSequence()).isPositive().isLessThan(COUNT);
        assertThat(cut.discardedItems()).as("JOINED and every DATA sent").isEqualTo((int)cut.lastSequence() + 1);
        assertThat(cut).hasMessageContaining("DROP_SLOW").hasMessageContaining("behind");
        slow.request(Long.MAX_VALUE);
        harness.settle();
        assertThat(slow.items).as("nothing after the end").isEmpty();
        assertThat(publication.slowConsumerEvents()).isEqualTo(1);
        assertThat(publication.subscriberCount()).isEqualTo(2);
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(CAPACITY);

        // It may rejoin: a fresh subscription gets the live stream from where the topic is.
        final TopicHarness.Collector rejoined = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.peers.get(2).connection().subscribe("md.>").subscribe(rejoined);
        harness.settle();
        assertThat(rejoined.items.get(0).kind()).isEqualTo(TopicMessage.Kind.JOINED);
        assertThat(rejoined.items.get(0).sequence()).isEqualTo(COUNT);
        publish(COUNT + 1, COUNT + 10, 2);
        harness.settle();
        assertThat(rejoined.dataSequences()).containsExactly(3001L, 3002L, 3003L, 3004L, 3005L, 3006L, 3007L, 3008L,
            3009L, 3010L);
    }

    @Test
    void conflateShouldGiveTheLaggingSubscriberTheLatestValuePerKeyAndNeverAStaleOne()
    {
        start(TopicOptions.conflate(TopicPublicationTest.KEY));

        assertThat(publish(1, COUNT, 1)).isEqualTo(COUNT);
        harness.stepUntil("the fast subscribers have everything", () ->
            fastA.dataSequences().size() == COUNT && fastB.dataSequences().size() == COUNT);
        assertExactlyOnceInOrder(fastA, COUNT);
        assertExactlyOnceInOrder(fastB, COUNT);
        assertThat(publication.slowConsumerEvents()).isPositive();
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(CAPACITY);
        assertThat(publication.retainedBytes()).isEqualTo((long)KEYS * MESSAGE_LENGTH);

        // The slow one now catches up at its own pace.
        for (int i = 0; i < 10_000 && !caughtUp(slow, COUNT); i++)
        {
            slow.request(7);
            step();
        }
        assertThat(caughtUp(slow, COUNT)).isTrue();
        assertThat(slow.error).isNull();

        final List<TopicMessage> items = slow.items;
        assertThat(items.get(0).kind()).isEqualTo(TopicMessage.Kind.JOINED);
        assertThat(items.get(0).policy()).isEqualTo(SlowConsumerPolicy.CONFLATE);
        assertThat(slow.count(TopicMessage.Kind.GAP)).isPositive();
        assertThat(slow.ofKind(TopicMessage.Kind.GAP)).allMatch(gap -> gap.gapReason() == TopicMessage.GapReason.CONFLATED);

        // Sequences only go up; each GAP is followed by the latest value of the keys that changed in it.
        long last = 0;
        final Map<Long, Long> latest = new HashMap<>();
        for (final TopicMessage item : items)
        {
            if (item.kind() == TopicMessage.Kind.GAP)
            {
                assertThat(item.gapFrom()).isEqualTo(last + 1);
                assertThat(item.gapTo()).isGreaterThanOrEqualTo(item.gapFrom());
                continue;
            }
            if (!item.hasData())
            {
                continue;
            }
            assertThat(item.sequence()).as("never a stale value after a fresher one").isGreaterThan(last);
            last = item.sequence();
            assertThat(item.data().getLong(8)).isEqualTo(item.sequence());
            assertThat(item.key()).isEqualTo(item.sequence() % KEYS);
            latest.put(item.key(), item.sequence());
        }
        assertThat(last).isEqualTo(COUNT);
        for (long key = 0; key < KEYS; key++)
        {
            final long expected = COUNT - ((COUNT - key) % KEYS);
            assertThat(latest.get(key)).as("latest value of key %d", key).isEqualTo(expected);
        }
    }

    private static boolean caughtUp(final TopicHarness.Collector collector, final long sequence)
    {
        return !collector.items.isEmpty() && collector.items.get(collector.items.size() - 1).sequence() == sequence &&
            collector.items.get(collector.items.size() - 1).hasData();
    }

    private static void assertExactlyOnceInOrder(final TopicHarness.Collector collector, final int count)
    {
        final List<TopicMessage> data = collector.ofKind(TopicMessage.Kind.DATA);
        assertThat(data).hasSize(count);
        for (int i = 0; i < count; i++)
        {
            assertThat(data.get(i).sequence()).isEqualTo(i + 1);
            assertThat(data.get(i).data().getLong(8)).isEqualTo(i + 1);
        }
    }
}
