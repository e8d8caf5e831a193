package io.rivulet.tck;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.Transport;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leaks, run by every transport through a subclass that names it (like {@link TransportCompatibilitySuite}): 1,000
 * connect/close cycles, 1,000 request-stream subscribe/cancel cycles and 1,000 topic subscribe/cancel cycles must
 * leave file descriptors, threads, direct buffers (count and bytes) and the transport's own resources (registered
 * memory) where they were after a short warm-up: none may grow beyond a small tolerance ({@link ResourceSnapshot}).
 * The server
 * side must also have let go: every connection closed, every stream's producer cancelled.
 */
@ScaledTimeout(300)
public abstract class ResourceLeakSuite
{
    protected static final int CYCLES = 1_000;
    private static final int WARM_UP = 50;
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final long SETTLE_MS = TestTime.millis(30_000);
    /** A few descriptors, threads and buffers of slack for the JVM's own comings and goings; a leak per cycle is 1,000. */
    private static final Map<String, Long> TOLERANCES = Map.of(
        ResourceSnapshot.FILE_DESCRIPTORS, 2L,
        ResourceSnapshot.THREADS, 2L,
        ResourceSnapshot.DIRECT_BUFFERS, 4L,
        ResourceSnapshot.DIRECT_BYTES, 1024L * 1024);
    private static final String TOPIC = "leak.topic";

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final AtomicInteger openStreams = new AtomicInteger();
    private Rivulet serverNode;
    private Rivulet clientNode;
    private Publication publication;
    private String address;

    /** @return the transport under test (a new instance per call is fine). */
    protected abstract Transport transport();

    /**
     * @return the transport's own resources that must not grow, e.g. live memory registrations and registered bytes;
     * compared exactly.
     */
    protected Map<String, Long> transportResources()
    {
        return Map.of();
    }

    @BeforeEach
    void launchNodes()
    {
        serverNode = Rivulet.launch(context());
        clientNode = Rivulet.launch(context());
        final Server server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(Mono::just)
            .requestStream(request -> Flux.<Message>generate(sink -> sink.next(Message.of("item")))
                .doOnSubscribe(subscription -> openStreams.incrementAndGet())
                .doFinally(signal -> openStreams.decrementAndGet()))
            .build()).block(TIMEOUT);
        address = server.localAddress();
        publication = serverNode.publication(TOPIC);
    }

    @AfterEach
    void closeNodes()
    {
        publication.close();
        clientNode.close();
        serverNode.close();
    }

    @Test
    void connectCloseCyclesLeaveResourcesWhereTheyWere() throws Exception
    {
        for (int i = 0; i < WARM_UP; i++)
        {
            connectRequestClose(i);
        }
        final ResourceSnapshot before = settledSnapshot();

        for (int i = 0; i < CYCLES; i++)
        {
            connectRequestClose(i);
        }
        Await.until("server closed every connection", () -> serverNode.counters().connectionsOpened.get() ==
            serverNode.counters().connectionsClosed.get() + serverNode.counters().connectionsLost.get());

        assertNoLeak(before);
        assertThat(serverNode.counters().connectionsOpened.get()).isEqualTo(WARM_UP + CYCLES);
    }

    @Test
    void streamSubscribeCancelCyclesLeaveResourcesWhereTheyWere() throws Exception
    {
        final Connection connection = clientNode.connect(address).block(TIMEOUT);
        for (int i = 0; i < WARM_UP; i++)
        {
            subscribeCancelStream(connection);
        }
        Await.until("warm-up streams cancelled on the server", () -> openStreams.get() == 0);
        final ResourceSnapshot before = settledSnapshot();

        for (int i = 0; i < CYCLES; i++)
        {
            subscribeCancelStream(connection);
        }
        Await.until("every producer cancelled on the server", () -> openStreams.get() == 0);

        assertNoLeak(before);
        assertThat(connection.isOpen()).isTrue();
        connection.close();
    }

    @Test
    void topicSubscribeCancelCyclesLeaveResourcesWhereTheyWere() throws Exception
    {
        final Connection connection = clientNode.connect(address).block(TIMEOUT);
        for (int i = 0; i < WARM_UP; i++)
        {
            subscribeCancelTopic(connection);
        }
        final ResourceSnapshot before = settledSnapshot();

        for (int i = 0; i < CYCLES; i++)
        {
            subscribeCancelTopic(connection);
        }

        assertNoLeak(before);
        assertThat(connection.isOpen()).isTrue();
        connection.close();
    }

    private void connectRequestClose(final int cycle)
    {
        final Connection connection = clientNode.connect(address).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("c" + cycle)).block(TIMEOUT).dataUtf8()).isEqualTo("c" + cycle);
        connection.close();
        connection.onClose().onErrorResume(error -> Mono.empty()).block(TIMEOUT);
    }

    private static void subscribeCancelStream(final Connection connection)
    {
        assertThat(connection.requestStream(Message.of("s")).take(1).map(Message::dataUtf8).blockLast(TIMEOUT))
            .isEqualTo("item");
    }

    private static void subscribeCancelTopic(final Connection connection)
    {
        final TopicMessage first = connection.subscribe(TOPIC).take(1).blockLast(TIMEOUT);
        assertThat(first).isNotNull();
        assertThat(first.kind()).isEqualTo(TopicMessage.Kind.JOINED);
    }

    private ResourceSnapshot settledSnapshot() throws InterruptedException
    {
        // Let the warm-up's garbage go first, so the reference is what the nodes hold, not what is in flight:
        // snapshots until two in a row are equal (bounded).
        ResourceSnapshot previous = ResourceSnapshot.take(transportResources());
        for (int i = 0; i < 20; i++)
        {
            System.gc();
            Thread.sleep(TestTime.millis(100));
            final ResourceSnapshot next = ResourceSnapshot.take(transportResources());
            if (next.equals(previous))
            {
                return next;
            }
            previous = next;
        }
        return previous;
    }

    private void assertNoLeak(final ResourceSnapshot before) throws InterruptedException
    {
        final ResourceSnapshot after = ResourceSnapshot.awaitWithin(before, TOLERANCES, this::transportResources, SETTLE_MS);
        System.out.println(getClass().getSimpleName() + ": before " + before.values() + "\n  after " + after.values());
        assertThat(after.differencesFrom(before, TOLERANCES)).as("resources that moved after %d cycles", CYCLES).isEmpty();
        assertThat(errors).as("errors reported by the nodes").isEmpty();
    }

    private Rivulet.Context context()
    {
        return new Rivulet.Context().transport(transport()).threadingMode(ThreadingMode.SHARED).errorHandler(errors::add);
    }
}
