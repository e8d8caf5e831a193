package io.rivulet.topic;

import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.Transport;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Fan-out topics between two nodes over a transport, run by each transport module through a subclass (like
 * the transport compatibility suite): one publisher to eight subscribers, exactly once and in order; every
 * threading mode; a late join mid-stream; wildcard subscriptions. Nodes run SHARED with the default back-off
 * idle strategy unless a test says otherwise, as on a 2-core machine. The nested {@link Nodes} and
 * {@link Feed} serve the other topic suites too.
 */
public abstract class TopicFanOutSuite
{
    static final KeyExtractor KEY = (buffer, offset, length) -> buffer.getLong(offset);
    static final int MESSAGE_LENGTH = 16;

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

    @AfterEach
    void close()
    {
        nodes.close();
    }

    @Test
    @ScaledTimeout(180)
    void shouldDeliverEveryMessageToEightSubscribersInOrderExactlyOnce()
    {
        final int subscribers = 8;
        final int count = 100_000;
        final Rivulet publisherNode = nodes.launch(context());
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(context());
        final Publication publication = publisherNode.publication("md.quotes.EURUSD", TopicOptions.block());

        final List<Feed> feeds = new ArrayList<>();
        for (int i = 0; i < subscribers; i++)
        {
            final Feed feed = new Feed("subscriber-" + i, Long.MAX_VALUE);
            nodes.connect(subscriberNode, address).subscribe(i % 2 == 0 ? "md.quotes.EURUSD" : "md.quotes.*")
                .subscribe(feed);
            feeds.add(feed);
        }
        await("all joined", () -> feeds.stream().allMatch(Feed::joined));

        publish(publication, 1, count, value -> true);
        await("every subscriber has every message",
            () -> feeds.stream().allMatch(feed -> feed.dataCount() == count || feed.failed()));

        for (final Feed feed : feeds)
        {
            feed.assertExactlyOnceInOrder(count);
        }
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(publication.capacity());
        assertThat(publication.subscriberCount()).isEqualTo(subscribers);
        assertThat(nodes.errors).isEmpty();
    }

    @ParameterizedTest(name = "publisher {0}, subscribers {1}")
    @CsvSource({ "DEDICATED, DEDICATED", "DEDICATED, SHARED", "SHARED, DEDICATED" })
    @ScaledTimeout(60)
    void shouldFanOutInEveryThreadingMode(final ThreadingMode publisherMode, final ThreadingMode subscriberMode)
    {
        // DEDICATED runs the topic data plane on the sender's own thread, apart from the conductor.
        final int count = 20_000;
        final Rivulet publisherNode = nodes.launch(context().threadingMode(publisherMode));
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(context().threadingMode(subscriberMode));
        final Publication publication = publisherNode.publication("md.trades.EURUSD", TopicOptions.dropSlow());
        final List<Feed> feeds = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            final Feed feed = new Feed("subscriber-" + i, Long.MAX_VALUE);
            nodes.connect(subscriberNode, address).subscribe("md.trades.>").subscribe(feed);
            feeds.add(feed);
        }
        await("all joined", () -> feeds.stream().allMatch(Feed::joined));
        publish(publication, 1, count, value ->
            value - feeds.stream().mapToLong(Feed::lastSequence).min().orElseThrow() < 1_000);
        await("delivered", () -> feeds.stream().allMatch(feed -> feed.dataCount() == count || feed.failed()));
        for (final Feed feed : feeds)
        {
            feed.assertExactlyOnceInOrder(count);
        }
        assertThat(nodes.errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldJoinLateWithASnapshotThenTheLiveStreamWithNoGapNorDuplicate()
    {
        final int keys = 50;
        final Rivulet publisherNode = nodes.launch(context());
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(context());
        final Publication publication = publisherNode.publication("md.quotes.EURUSD",
            TopicOptions.block().keyOf(KEY));
        final Feed early = new Feed("early", Long.MAX_VALUE);
        nodes.connect(subscriberNode, address).subscribe("md.quotes.EURUSD").subscribe(early);
        await("early joined", early::joined);

        publish(publication, 1, 20_000, keys);
        final Feed late = new Feed("late", Long.MAX_VALUE).keepItems();
        nodes.connect(subscriberNode, address).subscribe("md.quotes.*").subscribe(late);
        // Mid-stream: keep publishing while the late subscriber joins.
        publish(publication, 20_001, 40_000, keys);
        await("both have the last message", () -> early.dataCount() == 40_000 && late.lastSequence() == 40_000);

        early.assertExactlyOnceInOrder(40_000);
        final List<TopicMessage> items = late.items();
        final TopicMessage joined = items.get(0);
        assertThat(joined.kind()).isEqualTo(TopicMessage.Kind.JOINED);
        final long snapshotSequence = joined.sequence();
        assertThat(snapshotSequence).isPositive().isLessThan(40_000);
        assertThat(joined.snapshotSize()).isEqualTo(keys);
        long previous = 0;
        for (int i = 1; i <= keys; i++)
        {
            final TopicMessage entry = items.get(i);
            assertThat(entry.kind()).isEqualTo(TopicMessage.Kind.SNAPSHOT);
            assertThat(entry.sequence()).isGreaterThan(previous).isLessThanOrEqualTo(snapshotSequence)
                .isGreaterThan(snapshotSequence - keys);
            assertThat(entry.key()).isEqualTo(entry.sequence() % keys);
            assertThat(entry.data().getLong(8)).isEqualTo(entry.sequence());
            previous = entry.sequence();
        }
        final List<TopicMessage> live = items.subList(keys + 1, items.size());
        assertThat(live).hasSize((int)(40_000 - snapshotSequence));
        for (int i = 0; i < live.size(); i++)
        {
            assertThat(live.get(i).kind()).isEqualTo(TopicMessage.Kind.DATA);
            assertThat(live.get(i).sequence()).isEqualTo(snapshotSequence + 1 + i);
        }
        assertThat(late.problems).isEmpty();
    }

    @Test
    @ScaledTimeout(120) // beyond its awaits' 60 s, so that a stall fails with what each feed saw
    void shouldDeliverExactlyTheTopicsAWildcardMatches()
    {
        final Rivulet publisherNode = nodes.launch(context());
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(context());
        final List<String> names = List.of("md.quotes.EURUSD", "md.quotes.GBPUSD", "md.trades.EURUSD",
            "md.quotes.EURUSD.depth", "news.EURUSD");
        final List<Publication> publications = new ArrayList<>();
        for (final String name : names)
        {
            publications.add(publisherNode.publication(name, TopicOptions.block()));
        }
        final Connection connection = nodes.connect(subscriberNode, address);
        final Map<String, Feed> feeds = new HashMap<>();
        for (final String pattern : List.of("md.quotes.*", "md.*.EURUSD", "md.>", ">", "md.quotes.EURUSD", "fx.>"))
        {
            final Feed feed = new Feed(pattern, Long.MAX_VALUE);
            connection.subscribe(pattern).subscribe(feed);
            feeds.put(pattern, feed);
        }
        // A subscription joins each topic live from that moment, one join after another per topic and connection:
        // wait until every subscription joined every topic it matches, or the first messages may precede its join.
        awaitJoined(feeds, Map.of(
            "md.quotes.*", List.of("md.quotes.EURUSD", "md.quotes.GBPUSD"),
            "md.*.EURUSD", List.of("md.quotes.EURUSD", "md.trades.EURUSD"),
            "md.>", List.of("md.quotes.EURUSD", "md.quotes.GBPUSD", "md.trades.EURUSD", "md.quotes.EURUSD.depth"),
            ">", names,
            "md.quotes.EURUSD", List.of("md.quotes.EURUSD")));
        // A topic published after the subscriptions is matched too.
        publications.add(publisherNode.publication("md.quotes.USDJPY", TopicOptions.block()));
        awaitJoined(feeds, Map.of("md.quotes.*", List.of("md.quotes.USDJPY"), "md.>", List.of("md.quotes.USDJPY"),
            ">", List.of("md.quotes.USDJPY")));
        for (final Publication publication : publications)
        {
            publish(publication, 1, 100, value -> true);
        }
        // Each subscription is fed on its own: wait for all of them (3, 2, 5, 6, 1 and 0 topics of 100 messages),
        // not only for '>', before looking at what each got.
        await("delivered", () -> feeds.values().stream().mapToLong(Feed::dataCount).sum() == 1_700,
            () -> feeds.values() + ", engine errors " + nodes.errors);

        assertThat(feeds.get("md.quotes.*").dataByTopic()).containsOnlyKeys("md.quotes.EURUSD", "md.quotes.GBPUSD",
            "md.quotes.USDJPY");
        assertThat(feeds.get("md.*.EURUSD").dataByTopic()).containsOnlyKeys("md.quotes.EURUSD", "md.trades.EURUSD");
        assertThat(feeds.get("md.>").dataByTopic()).containsOnlyKeys("md.quotes.EURUSD", "md.quotes.GBPUSD",
            "md.trades.EURUSD", "md.quotes.EURUSD.depth", "md.quotes.USDJPY");
        assertThat(feeds.get(">").dataByTopic()).hasSize(6);
        assertThat(feeds.get("md.quotes.EURUSD").dataByTopic()).containsOnlyKeys("md.quotes.EURUSD");
        assertThat(feeds.get("fx.>").dataByTopic()).isEmpty();
        for (final Feed feed : feeds.values())
        {
            assertThat(feed.dataByTopic().values()).allMatch(n -> n == 100);
            assertThat(feed.problems).isEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------- support

    /** Waits until each feed named has joined (at least) the topics listed for it. */
    static void awaitJoined(final Map<String, Feed> feeds, final Map<String, List<String>> topicsByFeed)
    {
        await("the subscriptions joined " + topicsByFeed,
            () -> topicsByFeed.entrySet().stream()
                .allMatch(entry -> feeds.get(entry.getKey()).joinedTopics().containsAll(entry.getValue())),
            () -> feeds.values().toString());
    }

    /** Publishes values from..to, value v with key v % keys, waiting out back-pressure. */
    static void publish(final Publication publication, final long from, final long to, final int keys)
    {
        publish(publication, from, to, keys, value -> true);
    }

    static void publish(final Publication publication, final long from, final long to, final LongPredicate mayPublish)
    {
        publish(publication, from, to, 1, mayPublish);
    }

    /**
     * Publishes values from..to (value v with key v % keys), waiting out back-pressure and, before each
     * message, until {@code mayPublish} allows it (a pace set by the test, not by the publication).
     */
    static void publish(
        final Publication publication, final long from, final long to, final int keys, final LongPredicate mayPublish)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
        final long deadlineNs = System.nanoTime() + TestTime.nanos(120, TimeUnit.SECONDS);
        long value = from;
        int idle = 0;
        while (value <= to)
        {
            if (mayPublish.test(value))
            {
                buffer.putLong(0, value % keys);
                buffer.putLong(8, value);
                final long result = publication.offer(buffer, 0, MESSAGE_LENGTH);
                if (result > 0)
                {
                    assertThat(result).isEqualTo(value);
                    value++;
                    idle = 0;
                    continue;
                }
                assertThat(result).isEqualTo(Publication.BACK_PRESSURED);
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("publisher stuck at " + value + " of " + publication);
            }
            idle(idle++);
        }
    }

    /** Waits (see {@link Await}) until the condition holds, at most a scaled minute. */
    static void await(final String what, final BooleanSupplier condition)
    {
        await(what, condition, () -> "");
    }

    /** As {@link #await(String, BooleanSupplier)}, naming {@code state} (what the test saw) when it times out. */
    static void await(final String what, final BooleanSupplier condition, final Supplier<String> state)
    {
        Await.until(TestTime.seconds(60), condition::getAsBoolean, () ->
        {
            final String seen = state.get();
            return what + (seen.isEmpty() ? "" : ": " + seen);
        });
    }

    /** Spins briefly, then parks for 50 microseconds: neither burns a core for long nor sleeps. */
    static void idle(final int iteration)
    {
        if (iteration < 64)
        {
            Thread.onSpinWait();
        }
        else
        {
            LockSupport.parkNanos(50_000);
        }
    }

    /** Nodes started by a test over the suite's transport, all closed after it; engine errors collected. */
    static final class Nodes
    {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        private final List<Rivulet> launched = new ArrayList<>();
        private final Supplier<String> bindAddress;

        /**
         * @param bindAddress where publisher nodes listen.
         */
        Nodes(final Supplier<String> bindAddress)
        {
            this.bindAddress = bindAddress;
        }

        Rivulet launch(final Rivulet.Context context)
        {
            if (context.errorHandler() == null)
            {
                context.errorHandler(errors::add);
            }
            final Rivulet node = Rivulet.launch(context);
            launched.add(node);
            return node;
        }

        String bind(final Rivulet node)
        {
            final Server server = node.bind(bindAddress.get(), Responder.none()).block();
            return server.localAddress();
        }

        Connection connect(final Rivulet node, final String address)
        {
            return node.connect(address).block();
        }

        void close()
        {
            for (int i = launched.size() - 1; i >= 0; i--)
            {
                launched.get(i).close();
            }
        }
    }

    /**
     * A subscriber that checks what it receives as it goes (in order, once, values matching sequences) and
     * keeps counts rather than every item, unless asked to. Requests {@code initialRequest} at first; the
     * test may request more.
     */
    static final class Feed extends BaseSubscriber<TopicMessage>
    {
        final String name;
        final List<String> problems = new CopyOnWriteArrayList<>();
        private final long initialRequest;
        private final Map<String, Long> lastByTopic = new HashMap<>();
        private final Map<String, Integer> dataByTopic = new ConcurrentHashMap<>(); // read by a failing test
        private final List<String> joinedTopics = new CopyOnWriteArrayList<>();
        private final List<TopicMessage> signals = new CopyOnWriteArrayList<>();
        private List<TopicMessage> items;
        private volatile long dataCount;
        private volatile long lastSequence;
        private volatile Throwable error;

        Feed(final String name, final long initialRequest)
        {
            this.name = name;
            this.initialRequest = initialRequest;
        }

        Feed keepItems()
        {
            items = new CopyOnWriteArrayList<>();
            return this;
        }

        @Override
        protected void hookOnSubscribe(final Subscription subscription)
        {
            if (initialRequest > 0)
            {
                subscription.request(initialRequest);
            }
        }

        @Override
        protected void hookOnNext(final TopicMessage item)
        {
            if (items != null)
            {
                items.add(item);
            }
            switch (item.kind())
            {
                case JOINED:
                    joinedTopics.add(item.topic());
                    lastByTopic.put(item.topic(), item.sequence());
                    signals.add(item);
                    break;
                case DATA:
                {
                    final long last = lastByTopic.getOrDefault(item.topic(), -1L);
                    if (item.sequence() != last + 1)
                    {
                        problems.add(name + ": " + item.topic() + " sequence " + item.sequence() + " after " + last);
                    }
                    if (item.data().getLong(8) != item.sequence())
                    {
                        problems.add(name + ": value " + item.data().getLong(8) + " at sequence " + item.sequence());
                    }
                    lastByTopic.put(item.topic(), item.sequence());
                    dataByTopic.merge(item.topic(), 1, Integer::sum);
                    lastSequence = item.sequence();
                    dataCount = dataCount + 1; // one writer: the engine thread
                    break;
                }
                case SNAPSHOT:
                    lastSequence = item.sequence();
                    break;
                default:
                    signals.add(item);
            }
        }

        @Override
        protected void hookOnError(final Throwable throwable)
        {
            error = throwable;
        }

        boolean joined()
        {
            return !joinedTopics.isEmpty();
        }

        List<String> joinedTopics()
        {
            return joinedTopics;
        }

        long dataCount()
        {
            return dataCount;
        }

        long lastSequence()
        {
            return lastSequence;
        }

        Throwable error()
        {
            return error;
        }

        boolean failed()
        {
            return error != null;
        }

        List<TopicMessage> items()
        {
            return items;
        }

        @Override
        public String toString()
        {
            return name + ": " + dataCount + " messages " + new TreeMap<>(dataByTopic) + ", joined " + joinedTopics +
                (error == null ? "" : ", error " + error) + (problems.isEmpty() ? "" : ", problems " + problems);
        }

        /** @return JOINED, GAP and END items. */
        List<TopicMessage> signals()
        {
            return signals;
        }

        Map<String, Integer> dataByTopic()
        {
            return dataByTopic;
        }

        void assertExactlyOnceInOrder(final long count)
        {
            assertThat(error).as(name + " error").isNull();
            assertThat(problems).as(name).isEmpty();
            assertThat(dataCount).as(name + " messages").isEqualTo(count);
            assertThat(signals).as(name + " signals").allMatch(item -> item.kind() == TopicMessage.Kind.JOINED);
            assertThat(signals.get(0).sequence()).as(name + " joined before the first message").isZero();
        }
    }
}
