package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.EngineFailure;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.codec.FrameReader;
import io.rivulet.counters.NodeFile;
import io.rivulet.counters.NodeStatus;
import io.rivulet.engine.FailStop;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.NodeExtension;
import io.rivulet.spi.Transport;
import io.rivulet.tck.Await;
import io.rivulet.tck.FailingLayer;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.tcp.ForwardingTransport.ForwardingLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fail-stop: an error that escapes one of a node's agents closes the node, in every threading mode, never leaving
 * it half-alive. Before, an {@link OutOfMemoryError} in the conductor killed its thread while the port still accepted
 * TCP and SETUP was never answered. Here a node holds a request pending on a peer and serves the peer's pending
 * request; then an error escapes its conductor (a node extension throws from its duty cycle) or its sender (a link
 * throws from {@code offer}). Its pending request fails naming the cause, the peer sees both connections end, the
 * node file says DEAD with the cause, the error handler got it, the listener refuses connections, later calls fail at
 * once, and with {@code rivulet.engineFailure=exit} the (injected) exit action ran with a non-zero status.
 */
class EngineFailureTest
{
    private static final Duration TIMEOUT = TestTime.seconds(20);

    @TempDir
    Path countersDirectory;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();
    private final AtomicInteger exitStatus = new AtomicInteger(-1);
    private InvokerThread invokerThread;

    @AfterEach
    void closeNodes()
    {
        if (invokerThread != null)
        {
            invokerThread.stopAndJoin();
        }
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    static Stream<Arguments> modesAndPolicies()
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final ThreadingMode mode : ThreadingMode.values())
        {
            for (final EngineFailure policy : EngineFailure.values())
            {
                arguments.add(Arguments.of(mode, policy));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0}, engineFailure={1}")
    @MethodSource("modesAndPolicies")
    @ScaledTimeout(90)
    void shouldCloseTheNodeWhenAnOutOfMemoryErrorEscapesTheConductor(
        final ThreadingMode mode, final EngineFailure policy) throws Exception
    {
        final FailingLayer bomb = new FailingLayer();
        final Scene scene = new Scene(mode, policy, new Rivulet.Context().extension(executor -> bomb),
            new TcpTransport());
        final OutOfMemoryError cause = new OutOfMemoryError("Java heap space (test: reassembly)");

        bomb.arm(cause);

        scene.assertFailedStopped(cause, policy);
    }

    @Test
    @ScaledTimeout(90)
    void shouldCloseTheNodeWhenTheErrorEscapesACycleThatABlockedCallerRuns() throws Exception
    {
        final FailingLayer bomb = new FailingLayer();
        final Scene scene = new Scene(ThreadingMode.SHARED, EngineFailure.CLOSE,
            new Rivulet.Context().extension(executor -> bomb), new TcpTransport());
        final BlockedCaller caller = new BlockedCaller(TIMEOUT,
            () -> scene.toPeer.requestResponse(Message.of("blocked on the peer")).block(TIMEOUT));
        // The failing node's engine has nothing to do: it lends its duty cycle to the blocked caller (EngineLoan).
        caller.awaitIn("EngineLoan.runBorrowed");
        final OutOfMemoryError cause = new OutOfMemoryError("Java heap space (test: a borrowed cycle)");

        bomb.arm(cause);

        caller.join();
        assertThat(caller.thrown()).as("the caller's own request ends with the node's failure")
            .isInstanceOf(RivuletException.class).hasMessageContaining("node failed: ").hasCause(cause);
        scene.assertFailedStopped(cause, EngineFailure.CLOSE);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ThreadingMode.class)
    @ScaledTimeout(90)
    void shouldCloseTheNodeWhenARuntimeExceptionEscapesTheSender(final ThreadingMode mode) throws Exception
    {
        // TCP whose outgoing links' offer (the sender's thread) throws the exception it is armed with, once.
        final AtomicReference<RuntimeException> armed = new AtomicReference<>();
        final Transport transport = new ForwardingTransport(new TcpTransport(), link -> new ForwardingLink(link)
        {
            @Override
            public boolean offer(final DirectBuffer buffer, final int offset, final int length)
            {
                final RuntimeException error = armed.getAndSet(null);
                if (error != null)
                {
                    throw error;
                }
                return super.offer(buffer, offset, length);
            }
        });
        final Scene scene = new Scene(mode, EngineFailure.CLOSE, new Rivulet.Context(), transport);
        final IllegalStateException cause = new IllegalStateException("a bug in a link's offer (test)");

        armed.set(cause);
        scene.toPeer.fireAndForget(Message.of("through the sender")).subscribe(null, error -> { });

        scene.assertFailedStopped(cause, EngineFailure.CLOSE);
    }

    /** A failing node F and a healthy peer P, with a request pending each way and both listening. */
    private final class Scene
    {
        final Rivulet failing;
        final Rivulet peer;
        final Server failingServer;
        final Connection toPeer;
        final Connection fromPeer;
        final CompletableFuture<Message> pendingOnPeer;
        final CompletableFuture<Message> peerPendingOnFailing;

        Scene(final ThreadingMode mode, final EngineFailure policy, final Rivulet.Context context,
            final Transport transport)
        {
            final AtomicInteger peerReceived = new AtomicInteger();
            final AtomicInteger failingReceived = new AtomicInteger();
            peer = launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
                .nodeName("peer").errorHandler(error -> { }));
            final Server peerServer = peer.bind("127.0.0.1:0", holding(peerReceived)).block(TIMEOUT);

            failing = launch(context.transport(transport).threadingMode(mode).nodeName("failing")
                .idleStrategy("backoff").engineFailure(policy).engineFailureExit(exitStatus::set)
                .errorHandler(errors::add));
            if (mode == ThreadingMode.INVOKER)
            {
                invokerThread = new InvokerThread(failing);
                invokerThread.start();
            }
            failingServer = failing.bind("127.0.0.1:0", holding(failingReceived)).block(TIMEOUT);
            toPeer = failing.connect(peerServer.localAddress()).block(TIMEOUT);
            pendingOnPeer = toPeer.requestResponse(Message.of("held by the peer")).toFuture();
            fromPeer = peer.connect(failingServer.localAddress()).block(TIMEOUT);
            peerPendingOnFailing = fromPeer.requestResponse(Message.of("held by the failing node")).toFuture();
            Await.until(TIMEOUT, () -> peerReceived.get() == 1 && failingReceived.get() == 1,
                () -> "both requests pending: peer got " + peerReceived + ", failing node got " + failingReceived);
            assertThat(errors).isEmpty();
        }

        void assertFailedStopped(final Throwable cause, final EngineFailure policy) throws Exception
        {
            final String named = cause.getClass().getName() + ": " + cause.getMessage();

            // The node's own pending request fails at once, naming the failure and carrying it as its cause.
            final ExecutionException pending = catchExecution(pendingOnPeer);
            assertThat(pending.getCause()).isInstanceOf(RivuletException.class)
                .hasMessageContaining("node failed: " + named).hasCause(cause);
            toPeer.onClose().onErrorResume(error -> Mono.empty()).block(TIMEOUT);
            assertThat(toPeer.isOpen()).isFalse();

            // The error handler got the cause itself; the node knows it, and its onClose() fails with it before
            // anyone closes the node.
            Await.until(TIMEOUT, () -> errors.contains(cause), () -> "the error handler got " + errors);
            assertThat(failing.failureCause()).isSameAs(cause);
            assertThatThrownBy(() -> failing.onClose().block(TIMEOUT)).isInstanceOf(RivuletException.class)
                .hasMessageContaining("node failed: " + named).hasCause(cause);

            // The peer sees both connections end: its own request to the failing node fails, and its server side of
            // the failing node's connection closes.
            assertThat(catchExecution(peerPendingOnFailing).getCause()).isInstanceOf(RivuletException.class);
            fromPeer.onClose().onErrorResume(error -> Mono.empty()).block(TIMEOUT);
            Await.until(TIMEOUT, () -> peer.counters().connectionsClosed.get() == 2,
                () -> "the peer closed " + peer.counters().connectionsClosed.get() + " of 2 connections");

            // The node file says DEAD, with the cause.
            final Path file = failing.counters().nodeFile().file();
            try (NodeFile nodeFile = NodeFile.open(file))
            {
                assertThat(nodeFile.status()).isEqualTo(NodeStatus.DEAD);
                assertThat(nodeFile.failureCause()).isEqualTo(named);
                assertThat(nodeFile.failureTimeMs()).isPositive();
                assertThat(nodeFile.isAlive(System.currentTimeMillis(), 60_000)).isFalse();
            }

            // Nothing is accepted any more, and later calls fail at once.
            final String address = failingServer.localAddress();
            Await.until(TIMEOUT, () -> TcpTestSupport.refuses(address),
                () -> "the failing node's port still accepts " + address);
            assertThatThrownBy(() -> failing.connect(failingServer.localAddress()).block(TIMEOUT))
                .isInstanceOf(RivuletException.class).hasMessageContaining("node failed: " + named);
            assertThatThrownBy(() -> failing.bind("127.0.0.1:0", Responder.none()).block(TIMEOUT))
                .isInstanceOf(RivuletException.class).hasMessageContaining("node failed");
            assertThatThrownBy(() -> failing.publication("after.failure"))
                .isInstanceOf(RivuletException.class).hasMessageContaining("node failed");

            // Exit only when asked, after the rest, with a non-zero status.
            if (policy == EngineFailure.EXIT)
            {
                Await.until(TIMEOUT, () -> exitStatus.get() != -1, () -> "the exit action did not run");
                assertThat(exitStatus.get()).isEqualTo(FailStop.EXIT_STATUS).isNotZero();
            }
            else
            {
                assertThat(exitStatus.get()).as("exit status").isEqualTo(-1);
            }
            if (invokerThread != null)
            {
                Await.until(TIMEOUT, () -> invokerThread.failure.get() != null, () -> "invoke() never failed");
                assertThat(invokerThread.failure.get()).isInstanceOf(RivuletException.class)
                    .hasMessageContaining("node failed");
            }

            // Closing the failed node is quick and keeps its file, which still says why it died.
            failing.close();
            assertThat(errors).as("the cause, once: stopping the engine's threads is no error of its own")
                .containsExactly(cause);
            assertThat(Files.exists(file)).isTrue();
            try (NodeFile nodeFile = NodeFile.open(file))
            {
                assertThat(nodeFile.status()).isEqualTo(NodeStatus.DEAD);
            }
        }
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.countersDirectory(countersDirectory.toString()));
        nodes.add(node);
        return node;
    }

    /** Holds every request pending (never answers), counting them. */
    private static Responder holding(final AtomicInteger received)
    {
        return Responder.builder().requestResponse(request ->
        {
            received.incrementAndGet();
            return Mono.never();
        }).build();
    }

    private static ExecutionException catchExecution(final CompletableFuture<Message> future)
    {
        try
        {
            future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException ex)
        {
            return ex;
        }
        catch (final Exception ex)
        {
            throw new AssertionError("the request did not fail: " + ex, ex);
        }
        throw new AssertionError("the request succeeded");
    }

    /** Drives an INVOKER node until its engine fails (recording what {@code invoke()} threw), or until stopped. */
    private static final class InvokerThread extends Thread
    {
        private final Rivulet node;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile boolean running = true;

        InvokerThread(final Rivulet node)
        {
            super("rivulet-test-invoker");
            setDaemon(true);
            this.node = node;
        }

        @Override
        public void run()
        {
            final long deadlineNs = System.nanoTime() + TestTime.nanos(90, TimeUnit.SECONDS);
            final IdleStrategy idle = new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MILLISECONDS.toNanos(1));
            try
            {
                while (running && System.nanoTime() - deadlineNs < 0)
                {
                    idle.idle(node.invoke());
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
                join(TimeUnit.SECONDS.toMillis(30));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
