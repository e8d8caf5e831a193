package io.rivulet.transport.tcp;

import io.rivulet.tck.Await;
import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicMessage.Kind;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A topic publisher restarted mid-stream (ARCHITECTURE section 17): while messages flow, the publishing thread
 * closes its publication and publishes the same name again. A wildcard subscriber sees the first session end
 * (END, after a GAP(ENDED) if the close cut off sequences it had not received) and the new session arrive as JOINED
 * with another session id, then every message published after it joined; every sequence of either session after
 * its JOINED is delivered once or covered by the GAP. The two sessions' items may interleave (JOINED of the new one
 * can come before END of the old one). Subscribing again afterwards joins the new session.
 */
@ScaledTimeout(120)
class PublisherRestartTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final String TOPIC = "md.restart";
    private static final int BEFORE_RESTART = 200;
    private static final int AFTER_RESTART = 100;

    @Test
    void subscriberSeesEndThenTheNewSessionAndCanResubscribe() throws Exception
    {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (Rivulet publisherNode = launch(errors); Rivulet subscriberNode = launch(errors))
        {
            final Server server = publisherNode.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT);
            final Publication first = publisherNode.publication(TOPIC);
            final Connection connection = subscriberNode.connect(server.localAddress()).block(TIMEOUT);
            final List<TopicMessage> items = new CopyOnWriteArrayList<>();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Disposable subscription = connection.subscribe("md.>").subscribe(items::add, failure::set);
            Await.until("JOINED", () -> count(items, Kind.JOINED) == 1);

            final AtomicBoolean restart = new AtomicBoolean();
            final AtomicReference<Publication> second = new AtomicReference<>();
            final Thread publisher = new Thread(() ->
            {
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Long.BYTES]);
                final long deadlineNs = System.nanoTime() + TestTime.nanos(60, TimeUnit.SECONDS);
                long n = 0;
                // Publish until asked to restart, mid-stream; then close and publish the name again.
                while (!restart.get() && System.nanoTime() - deadlineNs < 0)
                {
                    buffer.putLong(0, ++n);
                    while (first.offer(buffer, 0, Long.BYTES) < 0 && System.nanoTime() - deadlineNs < 0)
                    {
                        LockSupport.parkNanos(10_000);
                    }
                }
                first.close();
                final Publication next = publisherNode.publication(TOPIC);
                second.set(next);
                // A BLOCK topic has no snapshot: what the new session publishes before the subscriber has joined it
                // is before its JOINED sequence and not for it. Publish once it has joined.
                while (count(items, Kind.JOINED) < 2 && System.nanoTime() - deadlineNs < 0)
                {
                    LockSupport.parkNanos(1_000_000);
                }
                for (int i = 1; i <= AFTER_RESTART && System.nanoTime() - deadlineNs < 0; i++)
                {
                    buffer.putLong(0, i);
                    while (next.offer(buffer, 0, Long.BYTES) < 0 && System.nanoTime() - deadlineNs < 0)
                    {
                        LockSupport.parkNanos(10_000);
                    }
                }
            }, "publisher");
            publisher.start();

            Await.until("data before the restart", () -> count(items, Kind.DATA) >= BEFORE_RESTART);
            restart.set(true);
            publisher.join(TestTime.millis(60, TimeUnit.SECONDS));
            assertThat(publisher.isAlive()).isFalse();
            Await.until(summary(items), () -> count(items, Kind.JOINED) == 2 && count(items, Kind.END) == 1 &&
                count(items, Kind.DATA) >= dataOfFirstSession(items) + AFTER_RESTART);
            assertThat(failure.get()).as("the subscription did not fail").isNull();

            final int firstSession = first.sessionId();
            final int secondSession = second.get().sessionId();
            assertThat(secondSession).isNotEqualTo(firstSession);
            final List<TopicMessage> ofFirst = new ArrayList<>();
            final List<TopicMessage> ofSecond = new ArrayList<>();
            for (final TopicMessage item : items)
            {
                (item.sessionId() == firstSession ? ofFirst : ofSecond).add(item);
            }
            assertSession(ofFirst, true);
            assertSession(ofSecond, false);
            assertThat(ofSecond).filteredOn(item -> item.kind() == Kind.DATA).hasSize(AFTER_RESTART);
            // Each session's items are in order; across sessions they are not: the old session's cursor drains its
            // last messages and END while the new session's cursor already sends JOINED, so JOINED may come first.

            subscription.dispose();
            final TopicMessage rejoined = connection.subscribe(TOPIC).take(1).blockLast(TIMEOUT);
            assertThat(rejoined.kind()).isEqualTo(Kind.JOINED);
            assertThat(rejoined.sessionId()).isEqualTo(secondSession);
            assertThat(rejoined.sequence()).isEqualTo(AFTER_RESTART);
            second.get().close();
        }
        assertThat(errors).isEmpty();
    }

    /** JOINED, then DATA with consecutive sequences (each carrying its own number), then, if ended, GAP(ENDED)? END. */
    private static void assertSession(final List<TopicMessage> session, final boolean ended)
    {
        assertThat(session.get(0).kind()).isEqualTo(Kind.JOINED);
        long expected = session.get(0).sequence() + 1;
        int index = 1;
        for (; index < session.size() && session.get(index).kind() == Kind.DATA; index++)
        {
            final TopicMessage data = session.get(index);
            assertThat(data.sequence()).isEqualTo(expected);
            assertThat(data.data().getLong(0)).isEqualTo(expected);
            expected++;
        }
        if (!ended)
        {
            assertThat(index).as("only JOINED and DATA in the live session").isEqualTo(session.size());
            return;
        }
        if (session.get(index).kind() == Kind.GAP)
        {
            final TopicMessage gap = session.get(index++);
            assertThat(gap.gapReason()).isEqualTo(TopicMessage.GapReason.ENDED);
            assertThat(gap.gapFrom()).isEqualTo(expected);
            expected = gap.gapTo() + 1;
        }
        final TopicMessage end = session.get(index);
        assertThat(end.kind()).isEqualTo(Kind.END);
        assertThat(end.sequence()).as("END names the last sequence, every one before it accounted for")
            .isEqualTo(expected - 1);
        assertThat(index).isEqualTo(session.size() - 1);
    }

    /** @return how many DATA items the session that has ended delivered. */
    private static long dataOfFirstSession(final List<TopicMessage> items)
    {
        final int ended = items.stream().filter(item -> item.kind() == Kind.END).findFirst()
            .map(TopicMessage::sessionId).orElse(0);
        return items.stream().filter(item -> item.kind() == Kind.DATA && item.sessionId() == ended).count();
    }

    /** Kinds and sessions of the items, runs of DATA collapsed: for failure messages. */
    private static Object summary(final List<TopicMessage> items)
    {
        return new Object()
        {
            @Override
            public String toString()
            {
                final StringBuilder text = new StringBuilder();
                Kind previous = null;
                for (final TopicMessage item : items)
                {
                    if (item.kind() != Kind.DATA || previous != Kind.DATA)
                    {
                        text.append(item.kind()).append('(').append(item.sessionId()).append(' ').append(item.sequence())
                            .append(") ");
                    }
                    previous = item.kind();
                }
                return "the new session's JOINED and data, the old one's END; got " + text;
            }
        };
    }

    private static long count(final List<TopicMessage> items, final Kind kind)
    {
        return items.stream().filter(item -> item.kind() == kind).count();
    }

    private static Rivulet launch(final List<Throwable> errors)
    {
        return Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .errorHandler(errors::add));
    }
}
