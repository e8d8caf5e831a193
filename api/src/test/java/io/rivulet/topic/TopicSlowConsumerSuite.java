package io.rivulet.topic;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.topic.TopicFanOutSuite.Feed;
import io.rivulet.topic.TopicFanOutSuite.Nodes;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.rivulet.topic.TopicFanOutSuite.KEY;
import static io.rivulet.topic.TopicFanOutSuite.MESSAGE_LENGTH;
import static io.rivulet.topic.TopicFanOutSuite.await;
import static io.rivulet.topic.TopicFanOutSuite.idle;
import static io.rivulet.topic.TopicFanOutSuite.publish;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each slow-consumer policy over a transport (run by each transport module through a subclass): three fast subscribers and one that requests nothing (it falls
 * behind on purpose). The publisher's buffered bytes are sampled throughout and stay within the log's
 * capacity. "The fast ones keep their full rate" is measured as "not blocked": under DROP_SLOW and
 * CONFLATE the publisher publishes far more than the log holds while the slow subscriber takes nothing,
 * paced only by the fast subscribers (so that they, too, stay within a log of the publisher).
 */
public abstract class TopicSlowConsumerSuite
{
    private static final int CAPACITY = 64 * 1024;
    private static final int WINDOW = 256;
    private static final int COUNT = 30_000;
    private static final int KEYS = 32;

    private final Nodes nodes = new Nodes(this::bindAddress);

    /** @return the transport under test. */
    protected abstract Transport transport();

    /** @return where the publisher node listens; port 0 for any. */
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }

    /** @return a fresh context over the transport under test. */
    protected Rivulet.Context context()
    {
        return new Rivulet.Context().transport(transport());
    }
    private final List<Feed> fast = new ArrayList<>();
    private Feed slow;
    private Publication publication;
    private long maxBufferedSampled;

    @AfterEach
    void close()
    {
        nodes.close();
    }

    private void start(final TopicOptions options)
    {
        final Rivulet publisherNode = nodes.launch(context().topicWindow(WINDOW));
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(context().topicWindow(WINDOW));
        publication = publisherNode.publication("md.quotes.EURUSD", options.logCapacity(CAPACITY));
        for (int i = 0; i < 3; i++)
        {
            final Feed feed = new Feed("fast-" + i, Long.MAX_VALUE);
            nodes.connect(subscriberNode, address).subscribe("md.quotes.*").subscribe(feed);
            fast.add(feed);
        }
        slow = new Feed("slow", 0).keepItems();
        nodes.connect(subscriberNode, address).subscribe("md.>").subscribe(slow);
        slow.request(1); // just the JOINED item
        await("all joined", () -> fast.stream().allMatch(Feed::joined) && slow.joined());
    }

    /** Lets the publisher run at most a quarter of the log ahead of the slowest fast subscriber. */
    private boolean fastOnesKeepUp(final long value)
    {
        sampleBuffered();
        final long lag = value - fast.stream().mapToLong(Feed::lastSequence).min().orElseThrow();
        return lag * 48 < CAPACITY / 4;
    }

    private void sampleBuffered()
    {
        final long buffered = publication.bufferedBytes();
        maxBufferedSampled = Math.max(maxBufferedSampled, buffered);
        assertThat(buffered).isLessThanOrEqualTo(CAPACITY);
    }

    @Test
    @ScaledTimeout(60)
    void blockShouldHoldThePublisherToTheSlowestSubscriberAndLoseNothing()
    {
        start(TopicOptions.block().keyOf(KEY));
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);

        // Publish until the publisher is stuck: the slow subscriber's credits and the log bound it.
        long published = 0;
        int backPressuredInARow = 0;
        for (int i = 0; i < 10_000_000 && backPressuredInARow < 2_000 && published < COUNT; i++)
        {
            buffer.putLong(0, (published + 1) % KEYS);
            buffer.putLong(8, published + 1);
            final long result = publication.offer(buffer, 0, MESSAGE_LENGTH);
            sampleBuffered();
            if (result > 0)
            {
                published = result;
                backPressuredInARow = 0;
            }
            else
            {
                assertThat(result).isEqualTo(Publication.BACK_PRESSURED);
                idle(backPressuredInARow++);
            }
        }
        final long bound = WINDOW + CAPACITY / 48;
        assertThat(published).as("held back by the slow subscriber").isLessThanOrEqualTo(bound).isLessThan(COUNT);
        final long stuckAt = published;
        await("the fast ones got what was published", () -> fast.stream().allMatch(f -> f.dataCount() == stuckAt));

        slow.request(Long.MAX_VALUE);
        publish(publication, published + 1, COUNT, KEYS, value ->
        {
            sampleBuffered();
            return true;
        });
        await("everyone has everything", () -> slow.dataCount() == COUNT && fast.stream().allMatch(f -> f.dataCount() == COUNT));
        for (final Feed feed : fast)
        {
            feed.assertExactlyOnceInOrder(COUNT);
        }
        slow.assertExactlyOnceInOrder(COUNT);
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(CAPACITY);
        assertThat(publication.slowConsumerEvents()).isZero();
    }

    @Test
    @ScaledTimeout(60)
    void dropSlowShouldCutOffTheSlowSubscriberAndNotBlockTheOthers()
    {
        start(TopicOptions.dropSlow());

        publish(publication, 1, COUNT, 1, this::fastOnesKeepUp);
        await("the fast ones have everything", () -> fast.stream().allMatch(f -> f.dataCount() == COUNT));
        await("the slow one was cut off", () -> publication.slowConsumerEvents() == 1);
        for (final Feed feed : fast)
        {
            feed.assertExactlyOnceInOrder(COUNT);
        }

        // The cut-off needs no demand: the slow one, which requested only its JOINED, learns of it without asking
        // for more, and the data it had not requested is discarded with it.
        await("the slow one learns of it", () -> slow.failed());
        assertThat(slow.error()).isInstanceOf(SlowConsumerException.class).hasMessageContaining("DROP_SLOW");
        final SlowConsumerException cut = (SlowConsumerException)slow.error();
        assertThat(cut.topic()).isEqualTo("md.quotes.EURUSD");
        assertThat(cut.lastSequence()).isPositive().isLessThanOrEqualTo(WINDOW);
        assertThat(slow.dataCount()).isZero();
        assertThat(cut.discardedItems()).isEqualTo(cut.lastSequence());
        assertThat(slow.problems).isEmpty();
        assertThat(publication.slowConsumerEvents()).isEqualTo(1);
        assertThat(publication.subscriberCount()).isEqualTo(3);
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(CAPACITY);
        assertThat(maxBufferedSampled).isLessThanOrEqualTo(CAPACITY);
    }

    @Test
    @ScaledTimeout(60)
    void conflateShouldSkipTheSlowSubscriberAheadToTheLatestValuePerKey()
    {
        start(TopicOptions.conflate(KEY));

        publish(publication, 1, COUNT, KEYS, this::fastOnesKeepUp);
        await("the fast ones have everything", () -> fast.stream().allMatch(f -> f.dataCount() == COUNT));
        for (final Feed feed : fast)
        {
            feed.assertExactlyOnceInOrder(COUNT);
        }
        assertThat(publication.slowConsumerEvents()).isPositive();

        slow.request(Long.MAX_VALUE);
        await("the slow one caught up", () -> slow.lastSequence() == COUNT);

        assertThat(slow.error()).isNull();
        final List<TopicMessage> items = slow.items();
        assertThat(items.get(0).kind()).isEqualTo(TopicMessage.Kind.JOINED);
        assertThat(items.get(0).policy()).isEqualTo(SlowConsumerPolicy.CONFLATE);
        final List<TopicMessage> gaps = items.stream().filter(item -> item.kind() == TopicMessage.Kind.GAP).toList();
        assertThat(gaps).isNotEmpty().allMatch(gap -> gap.gapReason() == TopicMessage.GapReason.CONFLATED);
        long last = 0;
        final Map<Long, Long> latest = new HashMap<>();
        for (final TopicMessage item : items)
        {
            if (item.kind() == TopicMessage.Kind.GAP)
            {
                assertThat(item.gapFrom()).as("the gap starts right after what it had").isEqualTo(last + 1);
                continue;
            }
            if (item.hasData())
            {
                assertThat(item.sequence()).as("never a stale value after a fresher one").isGreaterThan(last);
                assertThat(item.data().getLong(8)).isEqualTo(item.sequence());
                last = item.sequence();
                latest.put(item.key(), item.sequence());
            }
        }
        for (long key = 0; key < KEYS; key++)
        {
            assertThat(latest.get(key)).as("key %d", key).isEqualTo(COUNT - ((COUNT - key) % KEYS));
        }
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(CAPACITY);
        assertThat(publication.retainedBytes()).isEqualTo((long)KEYS * MESSAGE_LENGTH);
    }
}
