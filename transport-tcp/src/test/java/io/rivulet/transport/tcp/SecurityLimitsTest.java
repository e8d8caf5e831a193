package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.LimitExceededException;
import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.security.Authenticator;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Token authentication, the SETUP timeout and each limit, end to end between nodes on loopback: crossing a
 * limit gives that peer a clear error, is counted, and leaves every other peer served.
 */
class SecurityLimitsTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final Responder SERVER = Responder.builder()
        .requestResponse(request -> "hang".equals(request.dataUtf8()) ? Mono.never() :
            Mono.just(Message.of("echo:" + request.dataUtf8())))
        .requestStream(request -> Flux.never())
        .build();

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
    @ScaledTimeout(120)
    void shouldAcceptValidTokenAndRejectBadOrMissingTokensCountingThem()
    {
        final Rivulet serverNode = launch(context -> context.authenticator(Authenticator.tokens("s3cret")));
        final Server server = serverNode.bind("127.0.0.1:0", SERVER).block(TIMEOUT);

        final Connection good = launch(context -> context.authToken("s3cret")).connect(server.localAddress())
            .block(TIMEOUT);
        assertThat(echo(good, "one")).isEqualTo("echo:one");

        final Rivulet wrongToken = launch(context -> context.authToken("guess"));
        assertThatThrownBy(() -> wrongToken.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("connection rejected by " + server.localAddress())
            .hasMessageContaining("token not accepted");
        final Rivulet noToken = launch(UnaryOperator.identity());
        assertThatThrownBy(() -> noToken.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("no token in SETUP");

        assertThat(serverNode.counters().setupsRejected.get()).isEqualTo(2);
        assertThat(errors).filteredOn(error -> error.getMessage().contains("refused: authentication")).hasSize(2);
        assertThat(echo(good, "two")).as("the authenticated peer is unaffected").isEqualTo("echo:two");
    }

    @Test
    @ScaledTimeout(120)
    void shouldRefuseConnectionsBeyondMaxConnectionsAndKeepServingTheOthers()
    {
        final Rivulet serverNode = launch(context -> context.maxConnections(2));
        final Server server = serverNode.bind("127.0.0.1:0", SERVER).block(TIMEOUT);
        final Rivulet clients = launch(UnaryOperator.identity());
        final Connection first = clients.connect(server.localAddress()).block(TIMEOUT);
        final Connection second = clients.connect(server.localAddress()).block(TIMEOUT);

        assertThatThrownBy(() -> clients.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("holds 2 connections already (rivulet.maxConnections)");
        assertThat(serverNode.counters().limitRejections.get()).isEqualTo(1);
        assertThat(echo(first, "a")).isEqualTo("echo:a");
        assertThat(echo(second, "b")).isEqualTo("echo:b");

        // A place freed is a place available again.
        first.close();
        Await.until("server dropped the closed connection", () -> serverNode.counters().connectionsClosed.get() == 1);
        final Connection third = clients.connect(server.localAddress()).block(TIMEOUT);
        assertThat(echo(third, "c")).isEqualTo("echo:c");
    }

    @Test
    @ScaledTimeout(120)
    void shouldFailConnectsBeyondMaxConnectionsLocally()
    {
        final Server server = launch(UnaryOperator.identity()).bind("127.0.0.1:0", SERVER).block(TIMEOUT);
        final Rivulet client = launch(context -> context.maxConnections(1));
        final Connection only = client.connect(server.localAddress()).block(TIMEOUT);

        assertThatThrownBy(() -> client.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(LimitExceededException.class)
            .hasMessageContaining("rivulet.maxConnections");
        assertThat(echo(only, "still")).isEqualTo("echo:still");
    }

    @Test
    @ScaledTimeout(120)
    void shouldCloseAConnectionThatSendsNoSetupInTimeAndCountIt() throws IOException
    {
        // Scaled, so that the well-behaved client's own SETUP still arrives in time on a slow machine.
        final long setupTimeoutMs = TestTime.millis(300);
        final Rivulet serverNode = launch(context -> context.setupTimeout(setupTimeoutMs, TimeUnit.MILLISECONDS));
        final Server server = serverNode.bind("127.0.0.1:0", SERVER).block(TIMEOUT);
        final Connection good = launch(UnaryOperator.identity()).connect(server.localAddress()).block(TIMEOUT);

        try (Socket silent = new Socket())
        {
            final String[] hostPort = server.localAddress().split(":");
            silent.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), (int)TestTime.millis(10_000));
            silent.setSoTimeout((int)TIMEOUT.toMillis());
            final String received = readUntilClosed(silent.getInputStream());
            assertThat(received).as("the ERROR frame's text").contains("no SETUP within " + setupTimeoutMs + " ms");
        }
        Await.until("server counted the set-up timeout", () -> serverNode.counters().setupTimeouts.get() == 1);
        assertThat(echo(good, "fine")).isEqualTo("echo:fine");
    }

    @Test
    @ScaledTimeout(120)
    void shouldRefuseStreamsBeyondMaxStreamsForThatPeerOnly()
    {
        final Rivulet serverNode = launch(context -> context.maxStreams(1));
        final Server server = serverNode.bind("127.0.0.1:0", SERVER).block(TIMEOUT);
        final Rivulet clients = launch(UnaryOperator.identity());
        final Connection greedy = clients.connect(server.localAddress()).block(TIMEOUT);
        final Connection other = clients.connect(server.localAddress()).block(TIMEOUT);

        final Disposable open = greedy.requestStream(Message.of("first")).subscribe();
        try
        {
            // Same connection, so the first REQUEST_STREAM reaches the server before the second.
            assertThatThrownBy(() -> greedy.requestStream(Message.of("second")).blockLast(TIMEOUT))
                .isInstanceOf(RejectedException.class)
                .hasMessageContaining("rivulet.maxStreams");
            assertThat(serverNode.counters().limitRejections.get()).isEqualTo(1);
            assertThat(greedy.isOpen()).as("the connection itself stays").isTrue();
            assertThat(echo(other, "unaffected")).isEqualTo("echo:unaffected");
        }
        finally
        {
            open.dispose();
        }
    }

    @Test
    @ScaledTimeout(120)
    void shouldFailRequestsBeyondMaxPendingRequestsLocallyPerConnection()
    {
        final Server server = launch(UnaryOperator.identity()).bind("127.0.0.1:0", SERVER).block(TIMEOUT);
        final Rivulet client = launch(context -> context.maxPendingRequests(1));
        final Connection busy = client.connect(server.localAddress()).block(TIMEOUT);
        final Connection other = client.connect(server.localAddress()).block(TIMEOUT);

        final Disposable hanging = busy.requestResponse(Message.of("hang")).subscribe();
        try
        {
            // Requests open on the conductor in the order they were subscribed: the hanging one is first.
            assertThatThrownBy(() -> busy.requestResponse(Message.of("hang")).block(TIMEOUT))
                .isInstanceOf(LimitExceededException.class)
                .hasMessageContaining("1 requests already open on this connection (rivulet.maxPendingRequests)");
            assertThat(echo(other, "other connection")).isEqualTo("echo:other connection");
        }
        finally
        {
            hanging.dispose();
        }
    }

    @Test
    @ScaledTimeout(120)
    void shouldCloseOnlyTheConnectionThatSendsAMessageBeyondMaxMessageLength()
    {
        final Rivulet serverNode = launch(context -> context.maxMessageLength(64 * 1024));
        final Server server = serverNode.bind("127.0.0.1:0", SERVER).block(TIMEOUT);
        final Rivulet clients = launch(context -> context.maxMessageLength(1024 * 1024));
        final Connection large = clients.connect(server.localAddress()).block(TIMEOUT);
        final Connection other = clients.connect(server.localAddress()).block(TIMEOUT);

        assertThatThrownBy(() -> large.requestResponse(Message.of(new byte[100_000])).block(TIMEOUT))
            .isInstanceOf(RivuletException.class)
            .hasMessageContaining("exceeds the maximum message length of 65536");
        assertThat(serverNode.counters().protocolErrors.get()).isEqualTo(1);
        assertThat(echo(other, "small")).isEqualTo("echo:small");
    }

    @Test
    @ScaledTimeout(120)
    void shouldRejectAClientWhoseFrameLengthExceedsTheServersAndServeOthers()
    {
        final Server server = launch(context -> context.maxFrameLength(16 * 1024)).bind("127.0.0.1:0", SERVER)
            .block(TIMEOUT);
        final Rivulet bigFrames = launch(context -> context.maxFrameLength(24 * 1024));
        assertThatThrownBy(() -> bigFrames.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("client max frame length 24576 exceeds this server's 16384");
        final Connection other = launch(UnaryOperator.identity()).connect(server.localAddress()).block(TIMEOUT);
        assertThat(echo(other, "fits")).isEqualTo("echo:fits");
    }

    private static String readUntilClosed(final InputStream in) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final byte[] chunk = new byte[1024];
        int read;
        while ((read = in.read(chunk)) >= 0 && bytes.size() < 64 * 1024)
        {
            bytes.write(chunk, 0, read);
        }
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }

    private static String echo(final Connection connection, final String text)
    {
        return connection.requestResponse(Message.of(text)).map(Message::dataUtf8).block(TIMEOUT);
    }

    private Rivulet launch(final UnaryOperator<Rivulet.Context> configure)
    {
        final Rivulet node = Rivulet.launch(configure.apply(new Rivulet.Context()
            .transport(TcpTransport.plain())
            .errorHandler(errors::add)));
        nodes.add(node);
        return node;
    }
}
