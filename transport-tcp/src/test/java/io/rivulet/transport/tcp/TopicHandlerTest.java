package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicItem;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicOptions;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Connection.subscribe(pattern, TopicHandler)}, the zero-copy subscription (issue 16): the same items in the
 * same order as the flux (JOINED, the keyed snapshot, DATA without a gap across the seam, END), handed in place on
 * the engine's thread; {@link TopicItem#toMessage()} keeps an item beyond the call; a handler that throws is
 * cancelled and told; {@code dispose()} stops the items; an invalid pattern or a closed connection goes to
 * {@code onError}, as they end the flux.
 */
class TopicHandlerTest
{
    private static final Duration TIMEOUT = TestTime.seconds(20);
    private static final String TOPIC = "md.quotes.handler";

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();

    @AfterEach
    void closeNodes()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldHandTheItemsInOrderInPlaceOnTheEngine()
    {
        final Rivulet publisherNode = launch();
        final Server server = publisherNode.bind("127.0.0.1:0", Responder.builder().build()).block(TIMEOUT);
        // Keyed by the first byte: a late joiner gets the last value of each key, then the live stream.
        final Publication publication = publisherNode.publication(TOPIC,
            TopicOptions.block().keyOf((buffer, offset, length) -> buffer.getByte(offset)));
        offer(publication, "a1", "b1", "a2");
        final Connection connection = launch().connect(server.localAddress()).block(TIMEOUT);
        final Recorder recorder = new Recorder();

        final Disposable subscription = connection.subscribe("md.quotes.*", recorder);
        Await.until(TIMEOUT, () -> recorder.items.size() >= 3, () -> "joined and snapshot: " + recorder.items);
        offer(publication, "b2", "c1");
        Await.until(TIMEOUT, () -> recorder.items.size() >= 5, () -> "the live stream: " + recorder.items);
        publication.close();
        Await.until(TIMEOUT, () -> recorder.items.size() >= 6, () -> "the end: " + recorder.items);

        assertThat(recorder.items).extracting(TopicMessage::kind).containsExactly(TopicMessage.Kind.JOINED,
            TopicMessage.Kind.SNAPSHOT, TopicMessage.Kind.SNAPSHOT, TopicMessage.Kind.DATA, TopicMessage.Kind.DATA,
            TopicMessage.Kind.END);
        assertThat(recorder.items.get(0).sequence()).as("the snapshot reflects the third message").isEqualTo(3);
        assertThat(recorder.items.get(0).snapshotSize()).isEqualTo(2);
        assertThat(recorder.items.subList(1, 3)).extracting(TopicMessage::dataUtf8)
            .containsExactlyInAnyOrder("b1", "a2");
        assertThat(recorder.items.subList(3, 5)).extracting(TopicMessage::dataUtf8).containsExactly("b2", "c1");
        assertThat(recorder.items.subList(3, 5)).extracting(TopicMessage::sequence).containsExactly(4L, 5L);
        assertThat(recorder.items.subList(3, 5)).extracting(TopicMessage::key)
            .containsExactly((long)'b', (long)'c');
        assertThat(recorder.items).extracting(TopicMessage::topic).containsOnly(TOPIC);
        assertThat(recorder.inPlace).as("DATA items came in place, as views of the received bytes")
            .containsExactly("DATA{" + TOPIC + " session=" + recorder.items.get(3).sessionId() +
                " seq=4 key=98 data=2 in place}", "DATA{" + TOPIC + " session=" + recorder.items.get(4).sessionId() +
                " seq=5 key=99 data=2 in place}");
        assertThat(recorder.threads).as("every item on the subscribing node's engine thread").hasSize(1)
            .allMatch(name -> name.startsWith("[rivulet-"));
        assertThat(recorder.error.get()).isNull();
        subscription.dispose();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldCancelAndTellAHandlerThatThrows()
    {
        final Rivulet publisherNode = launch();
        final Server server = publisherNode.bind("127.0.0.1:0", Responder.builder().build()).block(TIMEOUT);
        final Publication publication = publisherNode.publication(TOPIC, TopicOptions.block());
        final Connection connection = launch().connect(server.localAddress()).block(TIMEOUT);
        final IllegalStateException thrown = new IllegalStateException("the handler's bug");
        final AtomicInteger data = new AtomicInteger();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final AtomicInteger joined = new AtomicInteger();

        connection.subscribe(TOPIC, new TopicHandler()
        {
            @Override
            public void onItem(final TopicItem item)
            {
                if (item.kind() == TopicMessage.Kind.JOINED)
                {
                    joined.incrementAndGet();
                }
                else if (data.incrementAndGet() == 2)
                {
                    throw thrown;
                }
            }

            @Override
            public void onError(final Throwable failure)
            {
                error.set(failure);
            }
        });
        Await.until(TIMEOUT, () -> joined.get() == 1 && publication.subscriberCount() == 1, () -> "joined");
        offer(publication, "m1", "m2", "m3", "m4");
        Await.until(TIMEOUT, () -> error.get() != null, () -> "the handler told of its own exception");
        // The cancel reaches the publisher, which then has no subscriber; nothing more reaches the handler.
        Await.until(TIMEOUT, () -> publication.subscriberCount() == 0, () -> "the subscription cancelled");
        offer(publication, "m5");

        assertThat(error.get()).isSameAs(thrown);
        assertThat(data.get()).as("items after the one that threw").isEqualTo(2);
        assertThat(connection.isOpen()).as("the connection serves on").isTrue();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(60)
    void shouldStopTheItemsOnDisposeAndReportABadPatternOrAClosedConnection()
    {
        final Rivulet publisherNode = launch();
        final Server server = publisherNode.bind("127.0.0.1:0", Responder.builder().build()).block(TIMEOUT);
        final Publication publication = publisherNode.publication(TOPIC, TopicOptions.block());
        final Connection connection = launch().connect(server.localAddress()).block(TIMEOUT);
        final Recorder recorder = new Recorder();

        final Disposable subscription = connection.subscribe(TOPIC, recorder);
        Await.until(TIMEOUT, () -> publication.subscriberCount() == 1, () -> "subscribed");
        offer(publication, "kept");
        Await.until(TIMEOUT, () -> recorder.items.size() == 2, () -> "joined and one item: " + recorder.items);
        subscription.dispose();
        Await.until(TIMEOUT, () -> publication.subscriberCount() == 0, () -> "the subscription cancelled");
        offer(publication, "after dispose");
        assertThat(subscription.isDisposed()).isTrue();

        final Recorder badPattern = new Recorder();
        final Disposable refused = connection.subscribe("md..bad", badPattern);
        assertThat(badPattern.error.get()).isInstanceOf(IllegalArgumentException.class);
        assertThat(refused.isDisposed()).isTrue();

        connection.close();
        final Recorder closed = new Recorder();
        connection.subscribe(TOPIC, closed);
        Await.until(TIMEOUT, () -> closed.error.get() != null, () -> "told the connection is closed");
        assertThat(closed.error.get()).isInstanceOf(ConnectionClosedException.class);
        assertThat(recorder.items).extracting(TopicMessage::dataUtf8).containsExactly("", "kept");
        assertThat(errors).isEmpty();
    }

    private static void offer(final Publication publication, final String... messages)
    {
        for (final String text : messages)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(text.getBytes(StandardCharsets.UTF_8));
            Await.until(TIMEOUT, () -> publication.offer(buffer, 0, buffer.capacity()) > 0,
                () -> "offered " + text);
        }
    }

    private Rivulet launch()
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport())
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }

    /** Keeps each item as a message of its own (the item itself is valid only during the call). */
    private static final class Recorder implements TopicHandler
    {
        final List<TopicMessage> items = new CopyOnWriteArrayList<>();
        final List<String> inPlace = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();

        @Override
        public void onItem(final TopicItem item)
        {
            if (item.toString().endsWith("in place}"))
            {
                inPlace.add(item.toString());
            }
            if (!threads.contains(Thread.currentThread().getName()))
            {
                threads.add(Thread.currentThread().getName());
            }
            items.add(item.toMessage());
        }

        @Override
        public void onError(final Throwable failure)
        {
            error.set(failure);
        }
    }
}
