package io.rivulet.topic;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Late join: the snapshot (last value per key, at sequence S) then the live stream from S + 1, with no gap
 * and no duplicate across the seam, whether the joiner gets a connection of its own or shares one whose
 * cursor is behind the keeper; and wildcard subscriptions receive exactly the matching topics.
 */
class TopicSnapshotSeamTest
{
    private static final int KEYS = 10;

    private final TopicHarness harness = new TopicHarness(64);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[16]);

    private void offer(final Publication publication, final long value)
    {
        message.putLong(0, value % KEYS);
        message.putLong(8, value);
        for (int i = 0; i < 1000; i++)
        {
            final long result = publication.offer(message, 0, 16);
            if (result > 0)
            {
                assertThat(result).isEqualTo(value);
                return;
            }
            harness.step();
        }
        throw new AssertionError("publisher blocked at " + value);
    }

    @Test
    void shouldJoinMidStreamWithASnapshotThenTheLiveStream()
    {
        final Publication publication = harness.publisher.publication("md.quotes.EURUSD",
            TopicOptions.block().keyOf(TopicPublicationTest.KEY));
        final TopicHarness.Collector early = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("md.quotes.EURUSD").subscribe(early);
        harness.settle();
        for (long value = 1; value <= 1234; value++)
        {
            offer(publication, value);
            if (value % 7 == 0)
            {
                harness.step();
            }
        }
        final TopicHarness.Collector late = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("md.quotes.*").subscribe(late);
        harness.settle(); // joined at the keeper's sequence, with the publisher mid-stream
        for (long value = 1235; value <= 2000; value++)
        {
            offer(publication, value);
        }
        harness.settle();

        assertSnapshotThenLive(late, 2000);
        assertThat(early.dataSequences()).hasSize(2000);
    }

    @Test
    void shouldJoinASharedConnectionWhoseCursorIsBehind()
    {
        final Publication publication = harness.publisher.publication("md.quotes.EURUSD",
            TopicOptions.block().keyOf(TopicPublicationTest.KEY));
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector first = new TopicHarness.Collector(10); // holds the shared cursor back
        peer.connection().subscribe("md.quotes.EURUSD").subscribe(first);
        harness.settle();
        for (long value = 1; value <= 500; value++)
        {
            offer(publication, value);
            if (value == 300)
            {
                harness.settle();
            }
        }
        harness.settle();
        assertThat(first.dataSequences()).hasSize(9); // JOINED used one of its ten

        // A second subscription on the same connection joins while the connection's cursor is far behind.
        final TopicHarness.Collector second = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe("md.>").subscribe(second);
        harness.settle();
        first.request(Long.MAX_VALUE);
        for (long value = 501; value <= 800; value++)
        {
            offer(publication, value);
        }
        harness.settle();

        assertSnapshotThenLive(second, 800);
        assertThat(first.dataSequences()).hasSize(800).isSorted().doesNotHaveDuplicates();
        assertThat(first.count(TopicMessage.Kind.GAP)).isZero();
    }

    @Test
    void shouldStartAnUnkeyedTopicAtTheLiveStream()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block());
        for (long value = 1; value <= 50; value++)
        {
            offer(publication, value);
        }
        harness.settle();
        final TopicHarness.Collector late = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("t.a").subscribe(late);
        harness.settle();
        offer(publication, 51);
        harness.settle();
        assertThat(late.items).hasSize(2);
        assertThat(late.items.get(0).kind()).isEqualTo(TopicMessage.Kind.JOINED);
        assertThat(late.items.get(0).sequence()).isEqualTo(50);
        assertThat(late.items.get(0).snapshotSize()).isZero();
        assertThat(late.items.get(1).sequence()).isEqualTo(51);
    }

    @Test
    void shouldReceiveExactlyTheMatchingTopicsIncludingOnesPublishedLater()
    {
        final Publication eurQuotes = harness.publisher.publication("md.quotes.EURUSD", TopicOptions.block());
        final Publication gbpQuotes = harness.publisher.publication("md.quotes.GBPUSD", TopicOptions.block());
        final Publication eurTrades = harness.publisher.publication("md.trades.EURUSD", TopicOptions.block());
        final Publication depth = harness.publisher.publication("md.quotes.EURUSD.depth", TopicOptions.block());
        final Publication news = harness.publisher.publication("news.EURUSD", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        final TopicHarness.Collector quotes = subscribe(peer, "md.quotes.*");
        final TopicHarness.Collector eur = subscribe(peer, "md.*.EURUSD");
        final TopicHarness.Collector all = subscribe(harness.connect(), "md.>");
        final TopicHarness.Collector exact = subscribe(harness.connect(), "md.quotes.EURUSD");
        harness.settle();
        final Publication jpyQuotes = harness.publisher.publication("md.quotes.USDJPY", TopicOptions.block());
        harness.settle();

        for (final Publication publication : List.of(eurQuotes, gbpQuotes, eurTrades, depth, news, jpyQuotes))
        {
            for (long value = 1; value <= 3; value++)
            {
                offer(publication, value);
            }
        }
        harness.settle();

        assertThat(topics(quotes)).containsOnlyKeys("md.quotes.EURUSD", "md.quotes.GBPUSD", "md.quotes.USDJPY");
        assertThat(topics(eur)).containsOnlyKeys("md.quotes.EURUSD", "md.trades.EURUSD");
        assertThat(topics(all)).containsOnlyKeys("md.quotes.EURUSD", "md.quotes.GBPUSD", "md.trades.EURUSD",
            "md.quotes.EURUSD.depth", "md.quotes.USDJPY");
        assertThat(topics(exact)).containsOnlyKeys("md.quotes.EURUSD");
        for (final TopicHarness.Collector collector : List.of(quotes, eur, all, exact))
        {
            assertThat(topics(collector).values()).allMatch(sequences -> sequences.equals(List.of(1L, 2L, 3L)));
        }
        // One connection, two subscriptions matching md.quotes.EURUSD: one cursor serves both.
        assertThat(eurQuotes.subscriberCount()).isEqualTo(3);
    }

    private static TopicHarness.Collector subscribe(final TopicHarness.Peer peer, final String pattern)
    {
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        peer.connection().subscribe(pattern).subscribe(collector);
        return collector;
    }

    private static Map<String, List<Long>> topics(final TopicHarness.Collector collector)
    {
        final Map<String, List<Long>> byTopic = new HashMap<>();
        for (final TopicMessage item : collector.ofKind(TopicMessage.Kind.DATA))
        {
            byTopic.computeIfAbsent(item.topic(), topic -> new java.util.ArrayList<>()).add(item.sequence());
        }
        return byTopic;
    }

    /** JOINED(S), one SNAPSHOT per key with the latest value at or before S in sequence order, then S+1 .. last. */
    private static void assertSnapshotThenLive(final TopicHarness.Collector collector, final long last)
    {
        final List<TopicMessage> items = collector.items;
        assertThat(items.get(0).kind()).isEqualTo(TopicMessage.Kind.JOINED);
        final long snapshotSequence = items.get(0).sequence();
        assertThat(snapshotSequence).isBetween(1L, last - 1);
        final int snapshotSize = items.get(0).snapshotSize();
        assertThat(snapshotSize).isEqualTo(KEYS);
        long previous = 0;
        for (int i = 1; i <= snapshotSize; i++)
        {
            final TopicMessage entry = items.get(i);
            assertThat(entry.kind()).isEqualTo(TopicMessage.Kind.SNAPSHOT);
            assertThat(entry.sequence()).isGreaterThan(previous).isLessThanOrEqualTo(snapshotSequence)
                .isGreaterThan(snapshotSequence - KEYS);
            assertThat(entry.data().getLong(8)).isEqualTo(entry.sequence());
            previous = entry.sequence();
        }
        final List<TopicMessage> live = items.subList(snapshotSize + 1, items.size());
        assertThat(live).allMatch(item -> item.kind() == TopicMessage.Kind.DATA);
        assertThat(live).hasSize((int)(last - snapshotSequence));
        for (int i = 0; i < live.size(); i++)
        {
            assertThat(live.get(i).sequence()).as("no gap, no duplicate across the seam").isEqualTo(snapshotSequence + 1 + i);
        }
    }
}
