package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.FrameHandler;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.tcp.ForwardingTransport.ForwardingLink;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The three threading modes of section 5 carry every interaction model between two nodes over TCP.
 * In INVOKER mode both nodes are driven by one test thread calling {@link Rivulet#invoke()}.
 */
class ThreadingModesTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int STREAM_LENGTH = 10_000;
    private static final int CHANNEL_LENGTH = 1_000;
    private static final long INVOKER_DEADLINE_NS = TestTime.nanos(120, TimeUnit.SECONDS);
    private static final int MAX_INVOKER_CYCLES = 1_000_000_000;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();
    private InvokerThread invokerThread;

    @AfterEach
    void closeNodes()
    {
        // The invoking thread stops first: close() then drives the engine from this thread alone.
        if (invokerThread != null)
        {
            invokerThread.stopAndJoin();
        }
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    static Stream<Arguments> modes()
    {
        return Stream.of(
            Arguments.of(ThreadingMode.DEDICATED, ThreadingMode.DEDICATED),
            Arguments.of(ThreadingMode.SHARED, ThreadingMode.SHARED),
            Arguments.of(ThreadingMode.INVOKER, ThreadingMode.INVOKER),
            Arguments.of(ThreadingMode.INVOKER, ThreadingMode.SHARED),
            Arguments.of(ThreadingMode.SHARED, ThreadingMode.DEDICATED));
    }

    @ParameterizedTest(name = "server {0}, client {1}")
    @MethodSource("modes")
    @ScaledTimeout(120)
    void shouldExchangeEveryInteractionModel(final ThreadingMode serverMode, final ThreadingMode clientMode)
    {
        final Rivulet serverNode = launch(serverMode);
        final Rivulet clientNode = launch(clientMode);
        final List<Rivulet> invoked = new ArrayList<>();
        for (final Rivulet node : nodes)
        {
            if (node.context().threadingMode() == ThreadingMode.INVOKER)
            {
                invoked.add(node);
            }
        }
        if (!invoked.isEmpty())
        {
            invokerThread = new InvokerThread(invoked.toArray(new Rivulet[0]));
            invokerThread.start();
        }

        final AtomicReference<Thread> handlerThread = new AtomicReference<>();
        final Server server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request ->
            {
                handlerThread.set(Thread.currentThread());
                return Mono.just(Message.of("re:" + request.dataUtf8()));
            })
            .requestStream(request -> Flux.range(0, STREAM_LENGTH).map(i -> Message.of(request.dataUtf8() + i)))
            .requestChannel(inbound -> Flux.from(inbound).map(message -> Message.of("ch:" + message.dataUtf8())))
            .build()).block(TIMEOUT);
        final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);

        StepVerifier.create(connection.requestResponse(Message.of("ping")).map(Message::dataUtf8))
            .expectNext("re:ping")
            .expectComplete()
            .verify(TIMEOUT);

        if (serverMode == ThreadingMode.INVOKER)
        {
            assertThat(handlerThread.get()).as("thread running the server's handler").isSameAs(invokerThread);
        }
        else
        {
            assertThat(handlerThread.get()).as("thread running the server's handler")
                .isNotNull().isNotSameAs(Thread.currentThread()).isNotSameAs(invokerThread);
        }

        final List<String> streamed = connection.requestStream(Message.of("s")).map(Message::dataUtf8)
            .collectList().block(TIMEOUT);
        assertThat(streamed).hasSize(STREAM_LENGTH);
        for (int i = 0; i < STREAM_LENGTH; i++)
        {
            assertThat(streamed.get(i)).isEqualTo("s" + i);
        }

        final List<String> channel = connection.requestChannel(
            Flux.range(0, CHANNEL_LENGTH).map(i -> Message.of(Integer.toString(i)))).map(Message::dataUtf8)
            .collectList().block(TIMEOUT);
        assertThat(channel).hasSize(CHANNEL_LENGTH);
        for (int i = 0; i < CHANNEL_LENGTH; i++)
        {
            assertThat(channel.get(i)).isEqualTo("ch:" + i);
        }

        if (invokerThread != null)
        {
            assertThat(invokerThread.failure.get()).as("failure on the invoking thread").isNull();
        }
        assertThat(errors).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = ThreadingMode.class, names = {"DEDICATED", "SHARED"})
    @ScaledTimeout(30)
    void shouldRefuseInvokeOutsideInvokerMode(final ThreadingMode mode)
    {
        final Rivulet node = launch(mode);

        assertThatThrownBy(node::invoke)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("INVOKER");
    }

    @Test
    @ScaledTimeout(30)
    void shouldDoNothingUntilInvokedInInvokerMode()
    {
        final Rivulet node = launch(ThreadingMode.INVOKER);
        final AtomicReference<Server> bound = new AtomicReference<>();
        node.bind("127.0.0.1:0", Responder.none()).subscribe(bound::set, errors::add);

        assertThat(bound.get()).as("bound before any invoke()").isNull();
        Await.until(TestTime.seconds(10), node::invoke, () -> bound.get() != null, () -> "bound, invoking the node");
        assertThat(bound.get()).as("bound after invoke()").isNotNull();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(30)
    void shouldSendWhatTheApplicationProducedBeforeTheCycleReadsInInvokerMode()
    {
        final Rivulet server = launch(ThreadingMode.SHARED);
        final Server bound = server.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("re:" + request.dataUtf8())))
            .build()).block(TIMEOUT);
        // The client's link, as its engine uses it: what was sent and polled, in order (the invoking thread only).
        final List<String> linkCalls = new ArrayList<>();
        final Rivulet client = Rivulet.launch(new Rivulet.Context()
            .transport(new ForwardingTransport(new TcpTransport(), link -> new ForwardingLink(link)
            {
                @Override
                public boolean offer(final DirectBuffer buffer, final int offset, final int length)
                {
                    linkCalls.add("offer");
                    return super.offer(buffer, offset, length);
                }

                @Override
                public int poll(final FrameHandler handler, final int frameLimit) throws IOException
                {
                    linkCalls.add("poll");
                    return super.poll(handler, frameLimit);
                }
            }))
            .threadingMode(ThreadingMode.INVOKER)
            .errorHandler(errors::add));
        nodes.add(client);
        final AtomicReference<Connection> connected = new AtomicReference<>();
        client.connect(bound.localAddress()).subscribe(connected::set, errors::add);
        Await.until(TIMEOUT, client::invoke, () -> connected.get() != null, () -> "connected, invoking the client");

        final AtomicReference<Message> reply = new AtomicReference<>();
        connected.get().requestResponse(Message.of("first out")).subscribe(reply::set, errors::add);
        linkCalls.clear();
        client.invoke();

        // The request, encoded on this thread before the cycle, leaves before the cycle's reads, not after them.
        assertThat(linkCalls).startsWith("offer").contains("poll");
        Await.until(TIMEOUT, client::invoke, () -> reply.get() != null, () -> "the reply, invoking the client");
        assertThat(reply.get().dataUtf8()).isEqualTo("re:first out");
        assertThat(errors).isEmpty();
    }

    private Rivulet launch(final ThreadingMode mode)
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(mode)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }

    /** Drives INVOKER nodes from one thread until stopped or a deadline passes; parks briefly when idle. */
    private static final class InvokerThread extends Thread
    {
        private final Rivulet[] nodes;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile boolean running = true;

        InvokerThread(final Rivulet... nodes)
        {
            super("rivulet-test-invoker");
            setDaemon(true);
            this.nodes = nodes;
        }

        @Override
        public void run()
        {
            final long deadlineNs = System.nanoTime() + INVOKER_DEADLINE_NS;
            try
            {
                for (int i = 0; running && i < MAX_INVOKER_CYCLES && System.nanoTime() - deadlineNs < 0; i++)
                {
                    int work = 0;
                    for (final Rivulet node : nodes)
                    {
                        work += node.invoke();
                    }
                    if (work == 0)
                    {
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
                    }
                }
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        }

        void stopAndJoin()
        {
            running = false;
            try
            {
                join(TestTime.millis(10, TimeUnit.SECONDS));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
