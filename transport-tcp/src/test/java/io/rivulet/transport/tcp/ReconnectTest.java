package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.EngineFailure;
import io.rivulet.Message;
import io.rivulet.Reconnector;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.Await;
import io.rivulet.tck.FailingLayer;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code Rivulet.connect(address, responder, retry)}: one cached connection while it is open, a new one on the next
 * subscription after it closes (the server node restarted on the same port), and failed attempts retried with the
 * back-off but never cached; and a reconnect through a node that failed or was closed stops at once, failing with
 * the node's end, since no attempt through that node can succeed any more.
 */
@ScaledTimeout(120)
class ReconnectTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    /** Much shorter than {@link #TIMEOUT}: a loop that went on retrying would be seen making attempts. */
    private static final Duration RETRY_DELAY = Duration.ofMillis(20);

    private Rivulet client;
    private Rivulet server;

    @AfterEach
    void closeNodes()
    {
        if (client != null)
        {
            client.close();
        }
        if (server != null)
        {
            server.close();
        }
    }

    @Test
    void shouldCacheTheLiveConnectionAndReconnectAfterTheServerRestarts()
    {
        client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED));
        server = serverNode();
        final String address = bind(server, "127.0.0.1:0", "first");
        final Mono<Connection> connection = client.connect(address, Responder.none(),
            Retry.backoff(200, TestTime.ofMillis(20)).maxBackoff(TestTime.ofMillis(200)));

        final Connection first = connection.block(TIMEOUT);
        assertThat(connection.block(TIMEOUT)).as("the same connection while it is open").isSameAs(first);
        assertThat(echo(connection)).isEqualTo("first");

        server.close();
        first.onClose().onErrorResume(error -> Mono.empty()).block(TIMEOUT);
        assertThat(first.isOpen()).isFalse();

        server = serverNode();
        bind(server, address, "second");
        assertThat(echo(connection)).as("answered by the restarted server").isEqualTo("second");
        final Connection second = connection.block(TIMEOUT);
        assertThat(second).isNotSameAs(first);
        assertThat(second.isOpen()).isTrue();
    }

    @Test
    void shouldFailWhenRetriesAreExhaustedAndTryAgainOnTheNextSubscription()
    {
        client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED));
        final Rivulet probe = serverNode();
        final String address = bind(probe, "127.0.0.1:0", "unused");
        probe.close(); // the port is free again: nobody listens there now

        final Mono<Connection> connection = client.connect(address, Responder.none(),
            Retry.fixedDelay(2, Duration.ofMillis(10)));
        assertThatThrownBy(() -> connection.block(TIMEOUT))
            .hasMessageContaining("Retries exhausted: 2/2")
            .hasCauseInstanceOf(RivuletException.class);

        server = serverNode();
        bind(server, address, "late");
        assertThat(echo(connection)).as("the failure was not cached").isEqualTo("late");
    }

    @Test
    void shouldStopRetryingAndFailWithTheCauseWhenTheNodesEngineFails()
    {
        final FailingLayer bomb = new FailingLayer();
        client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .extension(executor -> bomb).engineFailure(EngineFailure.CLOSE).errorHandler(error -> { }));
        final AtomicInteger attempts = new AtomicInteger();
        final Reconnector reconnector = new Reconnector(client, () ->
        {
            attempts.incrementAndGet();
            return client.connect(nobodyListens());
        }, Retry.fixedDelay(Long.MAX_VALUE, RETRY_DELAY)); // without the node's end, this would retry for ever
        final CompletableFuture<Connection> pending = reconnector.connection().toFuture();
        Await.until(TIMEOUT, () -> attempts.get() >= 2, () -> "retrying: " + attempts + " attempts");
        final OutOfMemoryError cause = new OutOfMemoryError("Java heap space (test: reconnect)");

        bomb.arm(cause);

        final Throwable failed = awaitFailure(pending);
        assertThat(failed).isInstanceOf(RivuletException.class).hasMessageContaining("node failed: ")
            .hasMessageContaining(cause.getMessage()).hasCause(cause);
        assertNoMoreAttempts(attempts);
        assertThatThrownBy(() -> reconnector.connection().block(TIMEOUT)).as("a later subscription fails at once")
            .isInstanceOf(RivuletException.class).hasCause(cause);
        assertNoMoreAttempts(attempts);
    }

    @Test
    void shouldStopRetryingAndFailWhenTheNodeIsClosed()
    {
        client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED));
        final AtomicInteger attempts = new AtomicInteger();
        final Reconnector reconnector = new Reconnector(client, () ->
        {
            attempts.incrementAndGet();
            return client.connect(nobodyListens());
        }, Retry.fixedDelay(Long.MAX_VALUE, RETRY_DELAY));
        final CompletableFuture<Connection> pending = reconnector.connection().toFuture();
        Await.until(TIMEOUT, () -> attempts.get() >= 2, () -> "retrying: " + attempts + " attempts");

        client.close();

        assertThat(awaitFailure(pending)).isInstanceOf(RivuletException.class).hasMessageContaining("node is closed");
        assertNoMoreAttempts(attempts);
        assertThatThrownBy(() -> reconnector.connection().block(TIMEOUT)).as("a later subscription fails at once")
            .isInstanceOf(RivuletException.class).hasMessageContaining("node is closed");
        assertNoMoreAttempts(attempts);
    }

    @Test
    void shouldStopTheReconnectsOfTheNodesOwnConnectWithRetry()
    {
        final FailingLayer bomb = new FailingLayer();
        client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .extension(executor -> bomb).engineFailure(EngineFailure.CLOSE).errorHandler(error -> { }));
        final Mono<Connection> connection = client.connect(nobodyListens(), Responder.none(),
            Retry.fixedDelay(Long.MAX_VALUE, RETRY_DELAY));
        final CompletableFuture<Connection> pending = connection.toFuture();
        final IllegalStateException cause = new IllegalStateException("a bug in the conductor (test)");

        bomb.arm(cause);

        assertThat(awaitFailure(pending)).isInstanceOf(RivuletException.class).hasCause(cause);
        assertThatThrownBy(() -> connection.block(TIMEOUT)).isInstanceOf(RivuletException.class).hasCause(cause);
    }

    /** @return an address on loopback where nobody listens: every connect there is refused. */
    private static String nobodyListens()
    {
        final Rivulet probe = serverNode();
        try
        {
            return bind(probe, "127.0.0.1:0", "unused");
        }
        finally
        {
            probe.close(); // the port is free again
        }
    }

    /** @return the error the subscription ended with, which must come well within the timeout. */
    private static Throwable awaitFailure(final CompletableFuture<Connection> pending)
    {
        try
        {
            final Connection connected = pending.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("connected to an address nobody listens on: " + connected);
        }
        catch (final ExecutionException ex)
        {
            return ex.getCause();
        }
        catch (final Exception ex)
        {
            throw new AssertionError("the reconnect did not end within " + TIMEOUT, ex);
        }
    }

    /** Attempts made while the loop ended may still be counted; none may follow over many back-off periods. */
    private static void assertNoMoreAttempts(final AtomicInteger attempts)
    {
        final int ended = attempts.get();
        // Absence cannot be polled for: this waits ten back-off periods, in which a live loop makes ten attempts.
        LockSupport.parkNanos(RETRY_DELAY.multipliedBy(10).toNanos());
        assertThat(attempts.get()).as("connect attempts after the reconnect ended").isEqualTo(ended);
    }

    private static Rivulet serverNode()
    {
        return Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED));
    }

    /** Binds a responder that answers every request with the given name; returns the bound address. */
    private static String bind(final Rivulet node, final String address, final String name)
    {
        final Server bound = node.bind(address, Responder.builder()
            .requestResponse(request -> Mono.just(Message.of(name)))
            .build()).block(TIMEOUT);
        return bound.localAddress();
    }

    private static String echo(final Mono<Connection> connection)
    {
        return connection.flatMap(c -> c.requestResponse(Message.of("who"))).map(Message::dataUtf8).block(TIMEOUT);
    }
}
