package io.rivulet.transport.tcp;

import io.rivulet.ConfigurationException;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.security.Authenticator;
import io.rivulet.spi.Transport;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * TLS and mutual TLS over the TCP transport, end to end between two nodes on loopback, with certificates
 * made at test time ({@link TestCertificates}). Mismatches (plaintext against TLS, either way round; a
 * client without a trusted certificate against a mutual-TLS server) must fail fast with an error naming
 * the cause, while the server keeps serving good clients.
 *
 * <p>Keepalive, set-up and connect timeouts are set to a minute, so a failure seen within the test's bounds
 * came from the handshake or the rejection, not from a timeout.
 */
class TlsTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final Responder ECHO = Responder.builder()
        .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
        .requestStream(request -> Flux.range(0, 3).map(i -> Message.of(request.dataBytes())))
        .build();

    private final TestCertificates certificates = TestCertificates.get();
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
    void shouldCarryRequestsAndFragmentedMessagesOverTls()
    {
        final Rivulet serverNode = launch(TcpTransport.tls(serverTls()), ThreadingMode.DEDICATED);
        final Rivulet clientNode = launch(TcpTransport.tls(clientTls()), ThreadingMode.DEDICATED);
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);
        final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);

        assertThat(connection.requestResponse(Message.of("ping")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:ping");
        // 200 KB: many TLS records and many 16 KiB frames each way, through the split sender/conductor threads.
        final byte[] large = new byte[200_000];
        for (int i = 0; i < large.length; i++)
        {
            large[i] = (byte)(i * 31);
        }
        final List<Message> replies = connection.requestStream(Message.of(large)).collectList().block(TIMEOUT);
        assertThat(replies).hasSize(3);
        for (final Message reply : replies)
        {
            assertThat(reply.dataBytes()).isEqualTo(large);
        }

        // A graceful close over TLS: CLOSE, then close_notify; the server sees a close, not a loss.
        connection.close();
        connection.onClose().block(TIMEOUT);
        Await.until("server closed its side", () -> serverNode.counters().connectionsClosed.get() == 1);
        assertThat(serverNode.counters().connectionsLost.get()).isZero();
        assertThat(errors).isEmpty();
    }

    @Test
    @ScaledTimeout(120)
    void shouldDropAConnectionThatDoesNotCompleteTheHandshakeInTime() throws Exception
    {
        // Scaled, so that the well-behaved client's own handshake still completes in time on a slow machine.
        final long handshakeTimeoutMs = TestTime.millis(300);
        final Rivulet serverNode = launch(
            TcpTransport.tls(serverTls().handshakeTimeout(handshakeTimeoutMs, TimeUnit.MILLISECONDS)), ThreadingMode.SHARED);
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);
        final String[] hostPort = server.localAddress().split(":");

        try (java.net.Socket silent = new java.net.Socket(hostPort[0], Integer.parseInt(hostPort[1])))
        {
            silent.setSoTimeout((int)TIMEOUT.toMillis());
            assertThat(silent.getInputStream().read()).as("closed by the server without a byte").isEqualTo(-1);
        }
        Await.until("server counted the handshake timeout", () -> serverNode.counters().linksRejected.get() == 1);
        assertThat(errors).anySatisfy(error -> assertThat(error).hasMessageContaining("not complete within " + handshakeTimeoutMs + " ms"));

        final Rivulet clientNode = launch(TcpTransport.tls(clientTls()), ThreadingMode.SHARED);
        final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("later")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:later");
    }

    @Test
    @ScaledTimeout(120)
    void shouldAuthenticateClientCertificateWithMutualTls()
    {
        final Rivulet serverNode = launch(TcpTransport.tls(serverTls().clientAuth(TlsSettings.ClientAuth.REQUIRED)),
            ThreadingMode.SHARED, new Rivulet.Context().authenticator(Authenticator.principals("CN=client")));
        final Rivulet clientNode = launch(TcpTransport.tls(clientTls()
            .keyStore(certificates.clientKeyStore, TestCertificates.PASSWORD)), ThreadingMode.SHARED);
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);

        final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("mtls")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:mtls");
        assertThat(serverNode.counters().setupsRejected.get()).isZero();
    }

    @Test
    @ScaledTimeout(120)
    void shouldRefuseClientsWithoutTrustedCertificateAndKeepServingOthers()
    {
        final Rivulet serverNode = launch(TcpTransport.tls(serverTls().clientAuth(TlsSettings.ClientAuth.REQUIRED)),
            ThreadingMode.SHARED);
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);

        final Rivulet anonymous = launch(TcpTransport.tls(clientTls()), ThreadingMode.SHARED);
        assertThatThrownBy(() -> anonymous.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RivuletException.class)
            .hasMessageContaining("TLS handshake with " + server.localAddress() + " failed");

        final Rivulet rogue = launch(TcpTransport.tls(clientTls()
            .keyStore(certificates.rogueKeyStore, TestCertificates.PASSWORD)), ThreadingMode.SHARED);
        assertThatThrownBy(() -> rogue.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RivuletException.class)
            .hasMessageContaining("TLS handshake with " + server.localAddress() + " failed");

        Await.until("server counted both refused handshakes", () -> serverNode.counters().linksRejected.get() == 2);
        assertThat(errors).anySatisfy(error -> assertThat(error).hasMessageContaining("TLS handshake with")
            .hasMessageContaining("failed"));

        final Rivulet trusted = launch(TcpTransport.tls(clientTls()
            .keyStore(certificates.clientKeyStore, TestCertificates.PASSWORD)), ThreadingMode.SHARED);
        final Connection connection = trusted.connect(server.localAddress()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("after")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:after");
        assertThat(serverNode.counters().connectionsOpened.get()).isEqualTo(1);
    }

    @Test
    @ScaledTimeout(120)
    void shouldFailFastWhenPlaintextClientMeetsTlsServer()
    {
        final Rivulet serverNode = launch(TcpTransport.tls(serverTls()), ThreadingMode.SHARED);
        final Rivulet clientNode = launch(TcpTransport.plain(), ThreadingMode.SHARED);
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);

        assertThatThrownBy(() -> clientNode.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("this server requires TLS");
        Await.until("server reported the plaintext client", () -> serverNode.counters().linksRejected.get() == 1);
        assertThat(errors).anySatisfy(error -> assertThat(error).hasMessageContaining("plaintext client"));
    }

    @Test
    @ScaledTimeout(120)
    void shouldFailFastWhenTlsClientMeetsPlaintextServer()
    {
        final Rivulet serverNode = launch(TcpTransport.plain(), ThreadingMode.SHARED);
        final Rivulet clientNode = launch(TcpTransport.tls(clientTls()), ThreadingMode.SHARED);
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);

        assertThatThrownBy(() -> clientNode.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RivuletException.class)
            .hasMessageContaining("TLS handshake with " + server.localAddress() + " failed");
    }

    @Test
    @ScaledTimeout(120)
    void shouldLoadPemCertificateChainKeyAndCa()
    {
        final Rivulet serverNode = launch(TcpTransport.tls(new TlsSettings()
            .pem(certificates.serverChainPem, certificates.serverKeyPem)), ThreadingMode.SHARED);
        final Rivulet clientNode = launch(TcpTransport.tls(new TlsSettings()
            .trustedCertificates(certificates.caPem).protocols("TLSv1.2")), ThreadingMode.SHARED);
        final Server server = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);

        final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("pem")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:pem");
    }

    @Test
    @ScaledTimeout(120)
    void shouldServeAndConnectWithAGivenSslContext()
    {
        // A ready SSLContext (what Spring Boot's SslBundle gives): its keys and trust, these settings' protocols.
        final TlsSettings server = new TlsSettings().sslContext(serverTls().newSslContext()).protocols("TLSv1.2");
        assertThat(server.hasKeyMaterial()).isTrue();
        final Rivulet serverNode = launch(TcpTransport.tls(server), ThreadingMode.SHARED);
        final Rivulet clientNode = launch(TcpTransport.tls(new TlsSettings().sslContext(clientTls().newSslContext())),
            ThreadingMode.SHARED);
        final Server bound = serverNode.bind("127.0.0.1:0", ECHO).block(TIMEOUT);

        final Connection connection = clientNode.connect(bound.localAddress()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("context")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:context");
        // A plaintext client still meets TLS.
        final Rivulet plain = launch(TcpTransport.plain(), ThreadingMode.SHARED);
        assertThatThrownBy(() -> plain.connect(bound.localAddress()).block(TIMEOUT))
            .isInstanceOf(RejectedException.class).hasMessageContaining("this server requires TLS");
        // A context and files together are ambiguous.
        assertThatThrownBy(() -> serverTls().sslContext(server.newSslContext()).newSslContext())
            .isInstanceOf(io.rivulet.ConfigurationException.class).hasMessageContaining("not both");
    }

    @Test
    @ScaledTimeout(120)
    void shouldRejectServerCertificateNotNamingTheHost()
    {
        final Rivulet serverNode = launch(TcpTransport.tls(serverTls()), ThreadingMode.SHARED);
        // The certificate names 127.0.0.1 and localhost; 127.0.0.2 is loopback too on Linux.
        final Server server;
        try
        {
            server = serverNode.bind("127.0.0.2:0", ECHO).block(TIMEOUT);
        }
        catch (final RivuletException ex)
        {
            org.junit.jupiter.api.Assumptions.abort("cannot bind 127.0.0.2 on this host: " + ex.getMessage());
            return;
        }

        final Rivulet verifying = launch(TcpTransport.tls(clientTls()), ThreadingMode.SHARED);
        assertThatThrownBy(() -> verifying.connect(server.localAddress()).block(TIMEOUT))
            .isInstanceOf(RivuletException.class)
            .hasMessageContaining("TLS handshake with " + server.localAddress() + " failed")
            .hasMessageContaining("127.0.0.2");

        // The same certificate, chain and trust pass once the host name check is off: the name was the cause.
        final Rivulet lenient = launch(TcpTransport.tls(clientTls().verifyHostname(false)), ThreadingMode.SHARED);
        final Connection connection = lenient.connect(server.localAddress()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("name")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:name");
    }

    @Test
    void shouldReadTlsSettingsFromProperties()
    {
        final String[] keys = {"rivulet.tcp.tls.keyStore", "rivulet.tcp.tls.keyStorePassword",
            "rivulet.tcp.tls.clientAuth", "rivulet.tcp.tls.protocols"};
        try
        {
            assertThat(TlsSettings.fromProperties()).isNull();
            System.setProperty(keys[0], certificates.serverKeyStore.toString());
            System.setProperty(keys[1], TestCertificates.PASSWORD);
            System.setProperty(keys[2], "required");
            System.setProperty(keys[3], "TLSv1.3");
            final TlsSettings settings = new TcpTransport().tlsSettings();
            assertThat(settings).isNotNull();
            assertThat(settings.clientAuth()).isEqualTo(TlsSettings.ClientAuth.REQUIRED);
            assertThat(settings.protocols()).containsExactly("TLSv1.3");
            assertThat(settings.hasKeyMaterial()).isTrue();
            assertThat(settings.newSslContext()).isNotNull();

            System.setProperty(keys[2], "sometimes");
            assertThatThrownBy(TlsSettings::fromProperties).hasMessageContaining("rivulet.tcp.tls.clientAuth");
        }
        finally
        {
            Arrays.stream(keys).forEach(System::clearProperty);
        }
    }

    @Test
    void shouldReadHandshakeLimitsFromPropertiesAndNameBadValues()
    {
        final TlsSettings defaults = new TlsSettings();
        assertThat(defaults.handshakeTimeoutNs()).isEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(defaults.maxHandshakesPerAddress()).isEqualTo(8);

        final String[] keys = {"rivulet.tcp.tls.trustStore", "rivulet.tcp.tls.handshakeTimeout",
            "rivulet.tcp.tls.maxHandshakesPerAddress"};
        try
        {
            System.setProperty(keys[0], certificates.trustStore.toString());
            System.setProperty(keys[1], "750");
            System.setProperty(keys[2], "3");
            final TlsSettings settings = TlsSettings.fromProperties();
            assertThat(settings.handshakeTimeoutNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(750));
            assertThat(settings.maxHandshakesPerAddress()).isEqualTo(3);

            System.setProperty(keys[2], "0");
            assertThatThrownBy(TlsSettings::fromProperties).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("rivulet.tcp.tls.maxHandshakesPerAddress must be at least 1: 0");
            System.setProperty(keys[2], "many");
            assertThatThrownBy(TlsSettings::fromProperties).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("rivulet.tcp.tls.maxHandshakesPerAddress: 'many' is not a number");
            System.setProperty(keys[2], "3");
            System.setProperty(keys[1], "0");
            assertThatThrownBy(TlsSettings::fromProperties).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("rivulet.tcp.tls.handshakeTimeout must be positive");
        }
        finally
        {
            Arrays.stream(keys).forEach(System::clearProperty);
        }
    }

    @Test
    void shouldNameTheFileWhenKeyStoreCannotBeLoaded()
    {
        final TlsSettings settings = new TlsSettings().keyStore(certificates.serverKeyStore, "wrong password");
        assertThatThrownBy(settings::newSslContext)
            .hasMessageContaining("key store")
            .hasMessageContaining(certificates.serverKeyStore.toString());
    }

    private TlsSettings serverTls()
    {
        // Longer than the 2 s default: a first handshake in a cold JVM on a loaded machine must not time out here.
        return new TlsSettings().keyStore(certificates.serverKeyStore, TestCertificates.PASSWORD)
            .trustStore(certificates.trustStore, TestCertificates.PASSWORD)
            .handshakeTimeout(TestTime.millis(10_000), TimeUnit.MILLISECONDS);
    }

    private TlsSettings clientTls()
    {
        return new TlsSettings().trustStore(certificates.trustStore, TestCertificates.PASSWORD);
    }

    private Rivulet launch(final Transport transport, final ThreadingMode mode)
    {
        return launch(transport, mode, new Rivulet.Context());
    }

    private Rivulet launch(final Transport transport, final ThreadingMode mode, final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context
            .transport(transport)
            .threadingMode(mode)
            .keepaliveInterval(TestTime.millis(10, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .keepaliveTimeout(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .setupTimeout(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .connectTimeout(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }
}
