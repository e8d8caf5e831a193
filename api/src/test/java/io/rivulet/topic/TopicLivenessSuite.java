package io.rivulet.topic;

import io.rivulet.ConnectionClosedException;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.Transport;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.TopicFanOutSuite.Feed;
import io.rivulet.topic.TopicFanOutSuite.Nodes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rivulet.topic.TopicFanOutSuite.await;
import static io.rivulet.topic.TopicFanOutSuite.publish;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over a transport (run by each transport module through a subclass): a publisher that dies or hangs is
 * noticed by its subscribers within the topic heartbeat timeout; a restarted publication is a new session.
 */
public abstract class TopicLivenessSuite
{
    /*
     * Heartbeats, the detection window and its slack, all scaled alike: under a factor the engines run that much
     * slower, so the timing asserted on stretches with them and still tests the same thing.
     */
    private static final long INTERVAL_MS = TestTime.millis(50);
    private static final long TIMEOUT_MS = TestTime.millis(500);
    /** Scheduling allowance on a busy 2-core machine, on top of the detection delay itself. */
    private static final long SLACK_MS = TestTime.millis(500);
    /** Connection keepalive, far above the topic timeout at any factor: the topic layer must be what notices. */
    private static final long KEEPALIVE_INTERVAL_MS = TestTime.millis(2_000);
    private static final long KEEPALIVE_TIMEOUT_MS = TestTime.millis(30_000);

    private final Nodes nodes = new Nodes(this::bindAddress);

    /** @return the transport under test. */
    protected abstract Transport transport();

    /** @return where the publisher node listens; port 0 for any. */
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }

    @AfterEach
    void close()
    {
        nodes.close();
    }

    /** @return a fresh context over the transport under test, with short topic heartbeats. */
    protected Rivulet.Context livenessContext()
    {
        return new Rivulet.Context()
            .transport(transport())
            .topicHeartbeatInterval(INTERVAL_MS, TimeUnit.MILLISECONDS)
            .topicHeartbeatTimeout(TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .keepaliveInterval(KEEPALIVE_INTERVAL_MS, TimeUnit.MILLISECONDS)
            .keepaliveTimeout(KEEPALIVE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    @Test
    @ScaledTimeout(60)
    void shouldEndSubscriptionsWhenThePublisherNodeIsKilled()
    {
        final Rivulet publisherNode = nodes.launch(livenessContext());
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(livenessContext());
        final Publication publication = publisherNode.publication("md.quotes.EURUSD", TopicOptions.block());
        final List<Feed> feeds = new ArrayList<>();
        for (int i = 0; i < 4; i++)
        {
            final Feed feed = new Feed("subscriber-" + i, Long.MAX_VALUE);
            nodes.connect(subscriberNode, address).subscribe("md.quotes.*").subscribe(feed);
            feeds.add(feed);
        }
        await("joined", () -> feeds.stream().allMatch(Feed::joined));
        publish(publication, 1, 1000, value -> true);
        await("delivered", () -> feeds.stream().allMatch(feed -> feed.dataCount() == 1000));

        final long killedNs = System.nanoTime();
        publisherNode.close();
        await("every subscriber ended", () -> feeds.stream().allMatch(Feed::failed));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);

        assertThat(elapsedMs).isLessThanOrEqualTo(TIMEOUT_MS + SLACK_MS);
        for (final Feed feed : feeds)
        {
            assertThat(feed.error()).isInstanceOf(RivuletException.class);
            assertThat(feed.dataCount()).isEqualTo(1000);
            assertThat(feed.problems).isEmpty();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldTimeOutAHungPublisherWithinTheHeartbeatTimeout()
    {
        // INVOKER mode: the publisher's engine runs only while this test drives it; stopping is a hung process.
        final Rivulet publisherNode = nodes.launch(livenessContext().threadingMode(ThreadingMode.INVOKER));
        final Rivulet subscriberNode = nodes.launch(livenessContext());
        final String[] address = new String[1];
        publisherNode.bind(bindAddress(), io.rivulet.Responder.none()).subscribe(server -> address[0] = server.localAddress());
        drive(publisherNode, () -> address[0] != null);
        final Publication publication = publisherNode.publication("md.quotes.EURUSD", TopicOptions.block());
        final Feed feed = new Feed("subscriber", Long.MAX_VALUE);
        final io.rivulet.Connection[] connection = new io.rivulet.Connection[1];
        subscriberNode.connect(address[0]).subscribe(c -> connection[0] = c);
        drive(publisherNode, () -> connection[0] != null);
        connection[0].subscribe("md.quotes.EURUSD").subscribe(feed);
        drive(publisherNode, feed::joined);
        final org.agrona.concurrent.UnsafeBuffer buffer = new org.agrona.concurrent.UnsafeBuffer(new byte[16]);
        buffer.putLong(8, 1);
        assertThat(publication.offer(buffer, 0, 16)).isEqualTo(1);
        drive(publisherNode, () -> feed.dataCount() == 1);
        // Keep it alive for a few heartbeat intervals: idle, but heartbeating.
        final long idleUntilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * INTERVAL_MS);
        drive(publisherNode, () -> System.nanoTime() - idleUntilNs > 0);
        assertThat(feed.failed()).isFalse();

        final long hungNs = System.nanoTime(); // from here on nobody drives the publisher
        await("the subscriber notices", feed::failed);
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - hungNs);

        assertThat(feed.error()).isInstanceOf(PublisherTimeoutException.class).hasMessageContaining("md.quotes.EURUSD");
        assertThat(elapsedMs).isGreaterThanOrEqualTo(TIMEOUT_MS - INTERVAL_MS).isLessThanOrEqualTo(TIMEOUT_MS + SLACK_MS);
        assertThat(connection[0].isOpen()).as("only the topic timed out, not the connection").isTrue();
    }

    @Test
    @ScaledTimeout(60)
    void shouldSeeARestartedPublicationAsANewSession()
    {
        final Rivulet publisherNode = nodes.launch(livenessContext());
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(livenessContext());
        final Publication first = publisherNode.publication("md.trades.EURUSD", TopicOptions.block());
        final Feed feed = new Feed("subscriber", Long.MAX_VALUE).keepItems();
        nodes.connect(subscriberNode, address).subscribe("md.trades.*").subscribe(feed);
        await("joined", feed::joined);
        publish(first, 1, 10, value -> true);
        await("delivered", () -> feed.dataCount() == 10);
        first.close();
        await("ended", () -> feed.signals().stream().anyMatch(item -> item.kind() == TopicMessage.Kind.END));
        final Publication second = publisherNode.publication("md.trades.EURUSD", TopicOptions.block());
        await("joined again", () -> feed.joinedTopics().size() == 2);
        publish(second, 1, 10, value -> true);
        await("delivered again", () -> feed.dataCount() == 20);

        final List<TopicMessage> signals = feed.signals();
        assertThat(signals).extracting(TopicMessage::kind).containsExactly(TopicMessage.Kind.JOINED,
            TopicMessage.Kind.END, TopicMessage.Kind.JOINED);
        assertThat(signals.get(1).sessionId()).isEqualTo(first.sessionId());
        assertThat(signals.get(1).sequence()).isEqualTo(10);
        assertThat(signals.get(2).sessionId()).isEqualTo(second.sessionId()).isNotEqualTo(first.sessionId());
        assertThat(feed.problems).isEmpty();
        assertThat(feed.error()).isNull();
    }

    @Test
    @ScaledTimeout(60)
    void shouldFailSubscribingOnAClosedConnection()
    {
        final Rivulet publisherNode = nodes.launch(livenessContext());
        final String address = nodes.bind(publisherNode);
        final Rivulet subscriberNode = nodes.launch(livenessContext());
        final io.rivulet.Connection connection = nodes.connect(subscriberNode, address);
        connection.close();
        await("closed", () -> !connection.isOpen());
        final Feed feed = new Feed("late", 1);
        connection.subscribe("md.>").subscribe(feed);
        await("failed", feed::failed);
        assertThat(feed.error()).isInstanceOf(ConnectionClosedException.class);
    }

    /** Runs the invoker node's duty cycle on this thread until the condition holds. */
    private static void drive(final Rivulet node, final java.util.function.BooleanSupplier condition)
    {
        Await.until(TestTime.seconds(20), node::invoke, condition::getAsBoolean, () -> "the invoker node, driven");
    }
}
