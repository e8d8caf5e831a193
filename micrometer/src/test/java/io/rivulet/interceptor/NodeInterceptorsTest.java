package io.rivulet.interceptor;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.Transports;
import io.rivulet.tck.Await;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node applies its interceptors to every connection, client and server side, and wraps nothing without them.
 * (Here rather than in api's tests, which have no transport to connect two nodes with.)
 */
class NodeInterceptorsTest
{
    private static final Duration BLOCK = Duration.ofSeconds(10);

    @Test
    void withoutInterceptorsTheApplicationGetsTheNodesOwnConnection() throws Exception
    {
        try (Rivulet server = Rivulet.launch(context("plain-server"));
             Rivulet client = Rivulet.launch(context("plain-client")))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder().requestResponse(Mono::just).build())
                .block(BLOCK);
            final Connection connection = client.connect(bound.localAddress()).block(BLOCK);
            assertThat(connection).isNotInstanceOf(ForwardingConnection.class);
            assertThat(connection.requestResponse(Message.of("x")).block(BLOCK).dataUtf8()).isEqualTo("x");
        }
    }

    @Test
    void everyConnectionIsInterceptedOnBothSides() throws Exception
    {
        final Recording serverSide = new Recording();
        final Recording clientSide = new Recording();
        try (Rivulet server = Rivulet.launch(context("intercepted-server").interceptor(serverSide));
             Rivulet client = Rivulet.launch(context("intercepted-client").interceptor(clientSide)))
        {
            final Server bound = server.bind("127.0.0.1:0", Responder.builder().requestResponse(Mono::just).build())
                .block(BLOCK);
            final Connection connection = client.connect(bound.localAddress()).block(BLOCK);

            assertThat(connection).isInstanceOf(Recording.Counted.class);
            assertThat(connection.requestResponse(Message.of("x")).block(BLOCK).dataUtf8()).isEqualTo("x");
            assertThat(clientSide.requests).hasValue(1);
            assertThat(serverSide.served).hasValue(1);

            // Each side's responder hook saw its end of the connection.
            Await.until(BLOCK, () -> serverSide.connections.size() == 1, () -> "the server's hook called");
            final ConnectionInfo accepted = serverSide.connections.get(0);
            final ConnectionInfo connected = clientSide.connections.get(0);
            assertThat(accepted.client()).isFalse();
            assertThat(connected.client()).isTrue();
            assertThat(accepted.localAddress()).isEqualTo(connected.remoteAddress());
            assertThat(accepted.remoteAddress()).isEqualTo(connected.localAddress());
            assertThat(clientSide.connections).hasSize(1);
            // The server's acceptor is handed the connection (to call the client back): wrapped like a client's.
            assertThat(serverSide.requesters).hasValue(1);
        }
    }

    private static Rivulet.Context context(final String name)
    {
        return new Rivulet.Context().transport(Transports.tcp()).nodeName(name).countersFile(false);
    }

    /** Counts what it wraps and what goes through the wrappers. */
    private static final class Recording implements Interceptor
    {
        final List<ConnectionInfo> connections = new CopyOnWriteArrayList<>();
        final AtomicInteger requesters = new AtomicInteger();
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger served = new AtomicInteger();

        @Override
        public Connection requester(final Connection connection)
        {
            requesters.incrementAndGet();
            return new Counted(connection);
        }

        @Override
        public Responder responder(final Responder responder, final ConnectionInfo connection)
        {
            connections.add(connection);
            return Responder.builder().requestResponse(message ->
            {
                served.incrementAndGet();
                return responder.requestResponse().apply(message);
            }).build();
        }

        /** A connection that counts its request-responses. */
        final class Counted extends ForwardingConnection
        {
            Counted(final Connection delegate)
            {
                super(delegate);
            }

            @Override
            public Mono<Message> requestResponse(final Message request)
            {
                requests.incrementAndGet();
                return super.requestResponse(request);
            }
        }
    }
}
