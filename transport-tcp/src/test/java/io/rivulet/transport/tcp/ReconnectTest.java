package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code Rivulet.connect(address, responder, retry)}: one cached connection while it is open, a new one on the next
 * subscription after it closes (the server node restarted on the same port), and failed attempts retried with the
 * back-off but never cached.
 */
@ScaledTimeout(120)
class ReconnectTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

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
