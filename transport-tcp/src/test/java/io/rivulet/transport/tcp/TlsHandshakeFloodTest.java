package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.security.Authenticator;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19, finding 1: sockets that connect to a TLS server and send nothing must not keep a real client out. A
 * crowd of 600 silent sockets, from many loopback addresses or from one, connects first; then a real client from
 * 127.0.0.1, with the token the server asks for, must be connected within a second, and be served.
 *
 * <p>Before the fix the listener held 256 handshakes for 10 s each, advanced every one of them every duty cycle, and
 * left the rest of the crowd and the real client in the accept backlog: the client waited for the crowd to time out.
 * Now one address holds at most 8 handshakes (more are closed at once), a newcomer evicts the oldest handshake that
 * has sent nothing when all slots are taken, and only handshakes whose socket has something to read are advanced.
 */
class TlsHandshakeFloodTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int SILENT_SOCKETS = 600;
    private static final String TOKEN = "s3cret";
    private static final Responder ECHO = Responder.builder()
        .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
        .build();

    private final TestCertificates certificates = TestCertificates.get();
    private final List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final Set<Socket> seenClosed = new HashSet<>();
    private final List<Rivulet> nodes = new ArrayList<>();

    @AfterEach
    void closeEverything() throws IOException
    {
        for (final Socket socket : sockets)
        {
            socket.close();
        }
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @ParameterizedTest(name = "{0} silent sockets from {1} addresses, {2} handshakes per address")
    @CsvSource({
        // Many addresses, each under the per-address limit: only eviction of silent handshakes lets the client in.
        "600, 40, 16",
        // Many addresses and the default limit: some of the crowd refused per address, the rest evicted.
        "600, 40, 8",
        // One address: the per-address limit keeps the crowd to 8 slots.
        "600, 1, 8"})
    @ScaledTimeout(120)
    void shouldConnectARealClientWithinASecondPastSilentSockets(
        final int silentSockets, final int addresses, final int handshakesPerAddress) throws IOException
    {
        final Rivulet serverNode = launch(new Rivulet.Context()
            .transport(TcpTransport.tls(new TlsSettings()
                .keyStore(certificates.serverKeyStore, TestCertificates.PASSWORD)
                .maxHandshakesPerAddress(handshakesPerAddress)
                // Not what lets the client in (the crowd is evicted or refused, not timed out), and a cold JVM's
                // first handshake on a loaded machine may take longer than the 2 s default.
                .handshakeTimeout(TestTime.millis(10_000), TimeUnit.MILLISECONDS)))
            .authenticator(Authenticator.tokens(TOKEN))
            .errorHandler(serverErrors::add));
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);
        final Rivulet clientNode = launch(new Rivulet.Context()
            .transport(TcpTransport.tls(new TlsSettings().trustStore(certificates.trustStore, TestCertificates.PASSWORD)))
            .authToken(TOKEN));
        // A first connection warms both sides' TLS up (class loading, key material), so the second is timed alone.
        assertThat(echo(clientNode.connect(server.localAddress()).block(TIMEOUT), "warm")).isEqualTo("echo:warm");

        final String[] hostPort = server.localAddress().split(":");
        final InetSocketAddress serverAddress = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        for (int i = 0; i < silentSockets; i++)
        {
            connectSilently("127.0.0." + (2 + i % addresses), serverAddress);
        }

        final Connection connection = clientNode.connect(server.localAddress()).block(TestTime.seconds(1));
        assertThat(echo(connection, "past the crowd")).isEqualTo("echo:past the crowd");

        // Each silent socket beyond what the slots and the per-address limit hold was closed, and reported.
        final int held = Math.min(TcpLinkListener.MAX_HANDSHAKES, Math.min(addresses * handshakesPerAddress,
            silentSockets));
        Await.until(TIMEOUT, () -> serverNode.counters().linksRejected.get() > 0,
            () -> "the dropped silent sockets reported, saw " + serverErrors.size() + " errors");
        assertThat(serverErrors).allSatisfy(error -> assertThat(error.getMessage())
            .containsAnyOf("evicted: it had sent nothing", "refused", "more connections to"));
        final int[] closed = new int[1];
        Await.until(TIMEOUT, () -> (closed[0] = closedByServer()) >= silentSockets - held,
            () -> "silent sockets closed by the server: " + closed[0] + " of at least " + (silentSockets - held));
    }

    private int closedByServer() throws IOException
    {
        for (final Socket socket : sockets)
        {
            if (seenClosed.contains(socket))
            {
                continue;
            }
            socket.setSoTimeout(1);
            try
            {
                if (socket.getInputStream().read() < 0)
                {
                    seenClosed.add(socket);
                }
            }
            catch (final java.net.SocketTimeoutException stillOpen)
            {
                // held in a handshake slot: nothing to read, no end of stream
            }
            catch (final java.net.SocketException reset)
            {
                seenClosed.add(socket);
            }
        }
        return seenClosed.size();
    }

    private void connectSilently(final String sourceAddress, final InetSocketAddress server) throws IOException
    {
        final Socket socket = new Socket();
        sockets.add(socket);
        socket.setSoLinger(true, 0); // closed with a reset: thousands of test sockets leave no TIME_WAIT behind
        socket.bind(new InetSocketAddress(sourceAddress, 0));
        socket.connect(server, (int)TestTime.millis(10_000));
    }

    private static String echo(final Connection connection, final String text)
    {
        return connection.requestResponse(Message.of(text)).map(Message::dataUtf8).block(TIMEOUT);
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context
            .threadingMode(ThreadingMode.SHARED)
            .keepaliveInterval(TestTime.millis(10, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .keepaliveTimeout(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .connectTimeout(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS));
        nodes.add(node);
        return node;
    }
}
