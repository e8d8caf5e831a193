package io.rivulet.transport.tcp;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.TransportSettings;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.tcp.TcpTestSupport.CapturingTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rivulet.transport.tcp.GrowableBuffer.INITIAL_LENGTH;
import static io.rivulet.transport.tcp.TcpTestSupport.await;
import static io.rivulet.transport.tcp.TcpTestSupport.directMemoryUsed;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19, finding 2: an accepted connection that has not completed SETUP holds a few KiB of direct memory at most
 * (it held two 256 KiB buffers before), and closing it gives them back at once, without waiting for a GC. Measured
 * through the driver's own count and the JVM's "direct" buffer pool.
 */
class TcpBufferFootprintTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    /** The node's defaults: 16 KiB frames, 256 KiB link buffers. */
    private static final TransportSettings SETTINGS = new TransportSettings(16 * 1024, 256 * 1024, 256 * 1024, 0, 0);
    private static final int CONNECTIONS = 200;
    /** What else the JVM may allocate directly meanwhile (the test's own socket writes go through a cached buffer). */
    private static final long DIRECT_SLACK = 256 * 1024;

    private final List<Socket> sockets = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception
    {
        for (final Socket socket : sockets)
        {
            socket.close();
        }
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            closeables.get(i).close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldHoldAFewKiBPerHalfOpenLinkAndFreeThemOnClose() throws IOException
    {
        final TcpTransportDriver driver = TcpTransport.plain().open(SETTINGS);
        closeables.add(driver);
        final TcpLinkListener listener = driver.listen("127.0.0.1:0");
        final long directBefore = directMemoryUsed();

        // Half of them send the first bytes of a frame (a SETUP that never completes), half send nothing.
        final List<TcpLink> links = new ArrayList<>();
        final byte[] partialFrame = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).putInt(100).array();
        for (int i = 0; i < CONNECTIONS; i++)
        {
            final Socket socket = connect(listener.localAddress());
            if (i % 2 == 0)
            {
                final OutputStream out = socket.getOutputStream();
                out.write(partialFrame);
                out.flush();
            }
        }
        await("every connection accepted and its bytes read", () ->
        {
            for (TcpLink link; (link = listener.accept()) != null; )
            {
                links.add(link);
            }
            int partial = 0;
            for (final TcpLink link : links)
            {
                link.poll((buffer, offset, length) -> { }, 16);
                partial += link.bufferedReceiveBytes() == partialFrame.length ? 1 : 0;
            }
            return links.size() == CONNECTIONS && partial == CONNECTIONS / 2;
        }, driver);

        final long held = driver.allocatedBufferBytes();
        final long directHeld = directMemoryUsed() - directBefore;
        assertThat(held).as("driver's count: one first receive buffer per link that sent bytes")
            .isEqualTo((long)CONNECTIONS / 2 * INITIAL_LENGTH);
        assertThat(directHeld).as("direct pool growth for %d half-open links", CONNECTIONS)
            .isLessThanOrEqualTo(held + DIRECT_SLACK);
        assertThat(held / CONNECTIONS).as("bytes per half-open link").isLessThanOrEqualTo(INITIAL_LENGTH);

        for (final TcpLink link : links)
        {
            link.close();
        }
        assertThat(driver.allocatedBufferBytes()).as("freed by close").isZero();
        assertThat(directMemoryUsed() - directBefore).as("direct pool after close, no GC")
            .isLessThanOrEqualTo(DIRECT_SLACK);
    }

    @Test
    @ScaledTimeout(60)
    void shouldHoldNoBufferForTlsLinksThatHaveNotSentSetup() throws IOException
    {
        final int connections = 50;
        final TestCertificates certificates = TestCertificates.get();
        final TcpTransportDriver server = TcpTransport.tls(new TlsSettings()
            .keyStore(certificates.serverKeyStore, TestCertificates.PASSWORD)
            .maxHandshakesPerAddress(connections) // all from 127.0.0.1, at once
            .handshakeTimeout(1, TimeUnit.MINUTES)).open(SETTINGS); // 50 at once on a slow machine: not timed here
        closeables.add(server);
        final TcpTransportDriver client = TcpTransport.tls(new TlsSettings()
            .trustStore(certificates.trustStore, TestCertificates.PASSWORD)).open(SETTINGS);
        closeables.add(client);
        final TcpLinkListener listener = server.listen("127.0.0.1:0");

        final List<TcpLinkConnector> connectors = new ArrayList<>();
        final List<TcpLink> serverLinks = new ArrayList<>();
        final List<TcpLink> clientLinks = new ArrayList<>();
        for (int i = 0; i < connections; i++)
        {
            connectors.add(client.connect(listener.localAddress()));
        }
        await("every TLS handshake complete", () ->
        {
            for (TcpLink link; (link = listener.accept()) != null; )
            {
                serverLinks.add(link);
            }
            for (int i = connectors.size() - 1; i >= 0; i--)
            {
                final TcpLink link = connectors.get(i).poll();
                if (null != link)
                {
                    clientLinks.add(link);
                    connectors.remove(i);
                }
            }
            for (final TcpLink link : serverLinks)
            {
                link.poll((buffer, offset, length) -> { }, 16);
            }
            for (final TcpLink link : clientLinks)
            {
                link.poll((buffer, offset, length) -> { }, 16); // takes the server's post-handshake messages
            }
            return serverLinks.size() == connections && clientLinks.size() == connections;
        }, server, client);

        assertThat(server.allocatedBufferBytes()).as("server side of %d TLS links before SETUP", connections)
            .isZero();
        assertThat(listener.pendingHandshakes()).isZero();

        serverLinks.forEach(TcpLink::close);
        clientLinks.forEach(TcpLink::close);
        assertThat(server.allocatedBufferBytes()).isZero();
        assertThat(client.allocatedBufferBytes()).isZero();
    }

    @Test
    @ScaledTimeout(60)
    void shouldHoldAFewKiBPerConnectionOfANodeUntilSetup() throws IOException
    {
        final CapturingTransport transport = new CapturingTransport(TcpTransport.plain());
        final Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(transport)
            .threadingMode(ThreadingMode.SHARED)
            .setupTimeout(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS));
        closeables.add(node);
        final Server server = node.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo"))).build()).block(TIMEOUT);
        final long transportBefore = transport.driver().allocatedBufferBytes();

        final byte[] partialSetup = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN).putInt(120).array();
        for (int i = 0; i < CONNECTIONS; i++)
        {
            final Socket socket = connect(server.localAddress());
            if (i % 2 == 0)
            {
                socket.getOutputStream().write(partialSetup);
                socket.getOutputStream().flush();
            }
        }
        Await.until(TIMEOUT, () -> node.counters().connectionsOpened.get() == CONNECTIONS &&
            transport.driver().allocatedBufferBytes() - transportBefore == (long)CONNECTIONS / 2 * INITIAL_LENGTH,
            () -> node.counters().connectionsOpened.get() + " connections, transport holds " +
                (transport.driver().allocatedBufferBytes() - transportBefore) + " bytes");
    }

    private Socket connect(final String address) throws IOException
    {
        final String[] hostPort = address.split(":");
        final Socket socket = new Socket();
        sockets.add(socket);
        socket.setSoLinger(true, 0);
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), (int)TIMEOUT.toMillis());
        return socket;
    }
}
