package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.EngineFailure;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.counters.NodeFile;
import io.rivulet.counters.NodeStatus;
import io.rivulet.tck.Await;
import io.rivulet.tck.FailingLayer;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Rivulet.close()} called from inside the engine's duty cycle: from a responder's handler on the engine (every
 * threading mode), from a reply's subscriber run by a caller that borrowed a sleeping engine's cycle (EngineLoan),
 * and from the error handler of a failed engine. The call returns at once, the engine runs on to close the node
 * gracefully (the request in flight gets its reply, the peer sees a close and not a loss), the node's threads end,
 * its port refuses, and a later {@code close()} from outside returns once the node has closed. Before, the engine's
 * thread waited for itself: 5 s, then Agrona's runner joined its own thread forever; an INVOKER cycle ran a nested
 * cycle and failed the node on return.
 */
class NodeCloseFromCycleTest
{
    private static final Duration TIMEOUT = TestTime.seconds(20);

    @TempDir
    Path countersDirectory;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();
    /** The threads made by the node under test's thread factory: its engine's and its closer's. */
    private final List<Thread> nodeThreads = new CopyOnWriteArrayList<>();
    private final ThreadFactory recordingThreads = runnable ->
    {
        final Thread thread = new Thread(runnable);
        thread.setDaemon(true);
        nodeThreads.add(thread);
        return thread;
    };
    private Thread invoking;
    private volatile boolean invoke = true;

    @AfterEach
    void closeNodes() throws InterruptedException
    {
        invoke = false;
        if (invoking != null)
        {
            invoking.join(TIMEOUT.toMillis());
        }
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @ParameterizedTest
    @EnumSource(ThreadingMode.class)
    @ScaledTimeout(60)
    void shouldCloseGracefullyWhenAResponderOnTheEngineClosesItsNode(final ThreadingMode mode) throws Exception
    {
        final AtomicReference<Rivulet> self = new AtomicReference<>();
        final AtomicReference<Thread> closedOn = new AtomicReference<>();
        final CountDownLatch closeReturned = new CountDownLatch(1);
        final Rivulet server = launch(new Rivulet.Context().threadingMode(mode).threadFactory(recordingThreads));
        self.set(server);
        if (mode == ThreadingMode.INVOKER)
        {
            invokeUntilTheEnd(server);
        }
        final Server bound = server.bind("127.0.0.1:0", Responder.builder().requestResponse(request ->
        {
            closedOn.set(Thread.currentThread());
            self.get().close();
            closeReturned.countDown();
            return Mono.just(request);
        }).build()).block(TIMEOUT);
        final Rivulet client = launch(new Rivulet.Context());
        final Connection connection = client.connect(bound.localAddress()).block(TIMEOUT);

        final Message reply = connection.requestResponse(Message.of("last words")).block(TIMEOUT);

        assertThat(closeReturned.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("close() returned").isTrue();
        assertThat(closedOn.get()).as("the handler ran on the engine (%s)", mode)
            .isIn(mode == ThreadingMode.INVOKER ? List.of(invoking) : nodeThreads);
        assertThat(reply.dataUtf8()).as("the request in flight is answered: the engine ran on").isEqualTo("last words");
        assertClosedGracefully(server, bound, connection);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseGracefullyWhenAReplySubscriberOnABorrowedCycleClosesItsNode() throws Exception
    {
        final Sinks.Empty<Void> holdTheLastReply = Sinks.empty();
        final Rivulet server = launch(new Rivulet.Context());
        final Server bound = server.bind("127.0.0.1:0", Responder.builder().requestResponse(request ->
            "last".equals(request.dataUtf8()) ? Mono.just(request).delayUntil(ignored -> holdTheLastReply.asMono()) :
                Mono.never()).build()).block(TIMEOUT);
        final Rivulet client = launch(new Rivulet.Context().threadFactory(recordingThreads));
        final Connection connection = client.connect(bound.localAddress()).block(TIMEOUT);
        final AtomicReference<Thread> closedOn = new AtomicReference<>();
        final CountDownLatch closeReturned = new CountDownLatch(1);
        connection.requestResponse(Message.of("last")).subscribe(reply ->
        {
            closedOn.set(Thread.currentThread());
            client.close();
            closeReturned.countDown();
        });
        final BlockedCaller caller = new BlockedCaller(TIMEOUT,
            () -> connection.requestResponse(Message.of("never answered")).block(TIMEOUT));
        caller.awaitIn("EngineLoan.runBorrowed"); // the client's engine lent its cycle to the caller

        holdTheLastReply.tryEmitEmpty(); // the borrower reads this reply, and runs its subscriber
        caller.join();

        assertThat(closeReturned.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("close() returned").isTrue();
        assertThat(closedOn.get().getName()).as("the subscriber ran in the borrowed cycle").isEqualTo("blocked-caller");
        assertThat(caller.thrown()).as("the caller's own request ended with the close")
            .isInstanceOf(ConnectionClosedException.class);
        // The client closed its connection gracefully: the server saw a close, not a loss.
        Await.until(TIMEOUT, () -> server.counters().connectionsClosed.get() == 1,
            () -> "the server closed " + server.counters().connectionsClosed.get() + " connections");
        assertThat(server.counters().connectionsLost.get()).isZero();
        client.close();
        assertThreadsEnded();
        assertThat(errors).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(ThreadingMode.class)
    @ScaledTimeout(60)
    void shouldCloseWhenTheErrorHandlerOfAFailedEngineClosesItsNode(final ThreadingMode mode) throws Exception
    {
        final FailingLayer bomb = new FailingLayer();
        final AtomicReference<Rivulet> self = new AtomicReference<>();
        final CountDownLatch closeReturned = new CountDownLatch(1);
        final OutOfMemoryError cause = new OutOfMemoryError("Java heap space (test: close from the error handler)");
        final Rivulet failing = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport())
            .countersDirectory(countersDirectory.toString()).threadingMode(mode).threadFactory(recordingThreads)
            .extension(executor -> bomb).engineFailure(EngineFailure.CLOSE).errorHandler(error ->
            {
                errors.add(error);
                self.get().close(); // "on a fatal error, close the node": the handler runs on the failed engine
                closeReturned.countDown();
            }));
        nodes.add(failing);
        self.set(failing);
        if (mode == ThreadingMode.INVOKER)
        {
            invokeUntilTheEnd(failing);
        }
        final Server bound = failing.bind("127.0.0.1:0", Responder.builder().requestResponse(Mono::just).build())
            .block(TIMEOUT);

        final AtomicReference<Throwable> endedWith = new AtomicReference<>();
        final CountDownLatch ended = new CountDownLatch(1);
        failing.onClose().subscribe(null, error ->
        {
            endedWith.set(error);
            ended.countDown();
        }, ended::countDown);

        bomb.arm(cause);

        assertThat(closeReturned.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("close() returned").isTrue();
        assertThat(errors).containsExactly(cause);
        assertThat(ended.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("onClose() ended").isTrue();
        assertThat(endedWith.get()).as("onClose() reports the failure, though the error handler closed the node")
            .isInstanceOf(RivuletException.class).hasMessageContaining("node failed").hasCause(cause);
        failing.close();
        assertThreadsEnded();
        assertRefused(bound);
        try (NodeFile nodeFile = NodeFile.open(failing.counters().nodeFile().file()))
        {
            assertThat(nodeFile.status()).isEqualTo(NodeStatus.DEAD);
        }
    }

    /** The server closed by its own handler: its client saw a close, its threads ended, its port refuses. */
    private void assertClosedGracefully(final Rivulet server, final Server bound, final Connection connection)
        throws InterruptedException
    {
        connection.onClose().block(TIMEOUT); // completes without an error: closed by the peer, not lost
        assertThat(connection.isOpen()).isFalse();
        server.onClose().block(TIMEOUT); // the node's end, without calling close() again: no error, it was a close
        assertRefused(bound);
        server.close(); // from outside the cycle: returns at once, the close begun in the handler has ended
        assertThreadsEnded();
        assertRefused(bound);
        assertThat(errors).isEmpty();
    }

    private void assertThreadsEnded() throws InterruptedException
    {
        assertThat(nodeThreads).as("the engine's threads, and the closer").isNotEmpty();
        for (final Thread thread : nodeThreads)
        {
            if (thread.getName().startsWith("rivulet-close-"))
            {
                thread.join(TIMEOUT.toMillis()); // its last step counts down what close() from outside waits for
            }
            assertThat(thread.isAlive()).as("%s ended", thread.getName()).isFalse();
        }
    }

    private static void assertRefused(final Server bound)
    {
        assertThat(TcpTestSupport.refuses(bound.localAddress()))
            .as("the closed node's port refuses: %s", bound.localAddress()).isTrue();
    }

    /** INVOKER mode: an application thread invokes the node, as such applications do, until the test ends. */
    private void invokeUntilTheEnd(final Rivulet node)
    {
        invoking = new Thread(() ->
        {
            final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos() * 3;
            final IdleStrategy idle = new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MILLISECONDS.toNanos(1));
            while (invoke && System.nanoTime() - deadlineNs < 0)
            {
                try
                {
                    idle.idle(node.invoke());
                }
                catch (final RuntimeException failed)
                {
                    idle.idle(0); // a failed node's invoke() says so each time: the test looks at it otherwise
                }
            }
        }, "app-invoker");
        invoking.setDaemon(true);
        invoking.start();
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.transport(new TcpTransport())
            .countersDirectory(countersDirectory.toString()).errorHandler(errors::add));
        nodes.add(node);
        return node;
    }
}
