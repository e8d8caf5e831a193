package io.rivulet.transport.tcp;

import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rivulet.transport.tcp.TcpLinkListener.MAX_HANDSHAKES;
import static io.rivulet.transport.tcp.TcpTestSupport.SETTINGS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TLS listener's handshake slots, stepped on the test thread with the driver's clock injected: which handshakes
 * are advanced, what a silent socket costs, who is evicted or refused when the slots run out, and how rejections
 * are reported.
 */
class TlsHandshakeSlotsTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    /** The first bytes of a TLS record header announcing a 64-byte body that never comes: a peer that sent something. */
    private static final byte[] PARTIAL_RECORD = {0x16, 0x03, 0x01, 0x00, 0x40};

    private final TestCertificates certificates = TestCertificates.get();
    private final List<Socket> sockets = new ArrayList<>();
    private TcpTransportDriver driver;
    private TcpLinkListener listener;
    private InetSocketAddress listenAddress;
    private long nowNs = System.nanoTime();

    @BeforeEach
    void listen() throws IOException
    {
        listen(new TlsSettings().handshakeTimeout(1, TimeUnit.HOURS)); // the clock is the test's: nothing times out
    }

    @AfterEach
    void close() throws IOException
    {
        for (final Socket socket : sockets)
        {
            socket.close();
        }
        driver.close();
    }

    @Test
    @ScaledTimeout(60)
    void shouldAdvanceOnlyHandshakesWhoseSocketHasSomethingToRead() throws IOException
    {
        final int silent = 240; // 40 addresses, 6 each: under the per-address limit and the slots
        for (int i = 0; i < silent; i++)
        {
            connect("127.0.0." + (2 + i % 40));
        }
        awaitListener("every silent socket in a slot", () -> listener.pendingHandshakes() == silent);
        final long stepsAfterAdmission = listener.handshakeSteps();
        assertThat(stepsAfterAdmission).as("each tried once as it came in").isEqualTo(silent);
        assertThat(driver.allocatedBufferBytes()).as("direct memory held by silent handshakes").isZero();

        for (int i = 0; i < 1_000; i++)
        {
            step();
        }
        assertThat(listener.handshakeSteps()).as("steps in 1,000 duty cycles with nothing to read")
            .isEqualTo(stepsAfterAdmission);

        send(sockets.get(7), PARTIAL_RECORD);
        awaitListener("the socket that sent bytes advanced", () -> listener.silentHandshakes() == silent - 1);
        assertThat(listener.handshakeSteps()).isEqualTo(stepsAfterAdmission + 1);
        assertThat(driver.allocatedBufferBytes()).as("its partial record, in a buffer of a few KiB")
            .isEqualTo(GrowableBuffer.INITIAL_LENGTH);
        assertThat(listener.pendingHandshakes()).isEqualTo(silent);
    }

    @Test
    @ScaledTimeout(60)
    void shouldEvictTheOldestSilentHandshakeWhenEverySlotIsTaken() throws IOException
    {
        for (int i = 0; i < MAX_HANDSHAKES; i++)
        {
            connect("127.0.0." + (2 + i % 64)); // 4 per address
        }
        send(sockets.get(0), PARTIAL_RECORD); // the oldest is not silent: the second oldest is the one to go
        awaitListener("every slot taken, one by a socket that sent bytes",
            () -> listener.pendingHandshakes() == MAX_HANDSHAKES && listener.silentHandshakes() == MAX_HANDSHAKES - 1);

        final Socket newcomer = connect("127.0.0.100");
        awaitListener("one eviction", () -> listener.evictedHandshakes() == 1);

        assertThat(listener.pendingHandshakes()).isEqualTo(MAX_HANDSHAKES);
        assertThat(awaitClosedByServer(sockets.get(1))).as("the oldest silent handshake closed").isTrue();
        assertThat(isOpen(sockets.get(0))).as("the oldest, which sent bytes, kept").isTrue();
        assertThat(isOpen(sockets.get(2))).isTrue();
        assertThat(isOpen(newcomer)).isTrue();
        assertThat(listener.pollRejected()).hasMessageContaining("TLS handshake with " + address(sockets.get(1)) +
            " evicted: it had sent nothing");
        assertThat(listener.pollRejected()).isNull();
    }

    @Test
    @ScaledTimeout(60)
    void shouldLeaveANewcomerInTheBacklogWhileEveryHandshakeIsWorking() throws IOException
    {
        for (int i = 0; i < MAX_HANDSHAKES; i++)
        {
            send(connect("127.0.0." + (2 + i % 64)), PARTIAL_RECORD);
        }
        awaitListener("every slot taken by a socket that sent bytes",
            () -> listener.pendingHandshakes() == MAX_HANDSHAKES && listener.silentHandshakes() == 0);

        final Socket newcomer = connect("127.0.0.100");
        for (int i = 0; i < 200; i++)
        {
            step();
        }
        assertThat(listener.evictedHandshakes()).isZero();
        assertThat(listener.silentHandshakes()).as("the newcomer not accepted").isZero();
        assertThat(isOpen(newcomer)).isTrue();

        // A slot frees (its peer gives up): the newcomer comes out of the backlog into it.
        final String leaving = address(sockets.get(10));
        sockets.get(10).close();
        awaitListener("the newcomer in the freed slot", () -> listener.rejectedConnections() == 1 &&
            listener.pendingHandshakes() == MAX_HANDSHAKES && listener.silentHandshakes() == 1);
        assertThat(listener.pollRejected()).hasMessageContaining("TLS handshake with " + leaving + " failed");
    }

    @Test
    @ScaledTimeout(60)
    void shouldRefuseHandshakesBeyondThePerAddressLimitAndBoundTheReports() throws IOException
    {
        final int crowd = 300;
        for (int i = 0; i < crowd; i++)
        {
            connect("127.0.0.2");
        }
        final Socket other = connect("127.0.0.3");
        final int limit = TlsSettings.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;
        awaitListener("the crowd refused beyond the limit", () ->
            listener.refusedHandshakes() == crowd - limit && listener.pendingHandshakes() == limit + 1);

        assertThat(isOpen(sockets.get(limit - 1))).isTrue();
        assertThat(awaitClosedByServer(sockets.get(limit))).as("the first beyond the limit closed").isTrue();
        assertThat(awaitClosedByServer(sockets.get(crowd - 1))).isTrue();
        assertThat(isOpen(other)).as("another address unaffected").isTrue();

        final List<String> reports = new ArrayList<>();
        for (Throwable rejection; (rejection = listener.pollRejected()) != null && reports.size() <= crowd; )
        {
            reports.add(rejection.getMessage());
        }
        assertThat(reports).as("64 one by one, then one summary").hasSize(65);
        assertThat(reports.get(0)).contains("refused: 127.0.0.2 has 8 handshakes in progress already " +
            "(rivulet.tcp.tls.maxHandshakesPerAddress 8)");
        assertThat(reports.get(64)).contains((crowd - limit - 64) + " more connections to " +
            listener.localAddress() + " dropped before their TLS handshake completed");
        assertThat(listener.rejectedConnections()).isEqualTo(crowd - limit);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseHandshakesNotCompleteWithinTheTimeoutByTheDriversClock() throws IOException
    {
        driver.close();
        listen(new TlsSettings()); // the default timeout
        final long timeoutNs = TlsSettings.DEFAULT_HANDSHAKE_TIMEOUT_NS;
        assertThat(timeoutNs).isEqualTo(TimeUnit.SECONDS.toNanos(2));
        for (int i = 0; i < 10; i++)
        {
            connect("127.0.0." + (2 + i));
        }
        awaitListener("all in slots", () -> listener.pendingHandshakes() == 10);

        nowNs += timeoutNs;
        step();
        assertThat(listener.pendingHandshakes()).as("at the deadline, not yet past it").isEqualTo(10);
        nowNs += 1;
        step();
        assertThat(listener.pendingHandshakes()).isZero();
        for (int i = 0; i < 10; i++)
        {
            assertThat(listener.pollRejected()).hasMessageContaining("not complete within 2000 ms");
            assertThat(awaitClosedByServer(sockets.get(i))).isTrue();
        }
    }

    private void listen(final TlsSettings settings) throws IOException
    {
        driver = TcpTransport.tls(settings.keyStore(certificates.serverKeyStore, TestCertificates.PASSWORD))
            .open(SETTINGS);
        listener = driver.listen("127.0.0.1:0");
        final String[] hostPort = listener.localAddress().split(":");
        listenAddress = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
    }

    private int step() throws IOException
    {
        int work = driver.doWork(nowNs);
        if (null != listener.accept())
        {
            throw new AssertionError("no handshake here can complete");
        }
        return work;
    }

    private void awaitListener(final String what, final Await.Condition<RuntimeException> condition)
        throws IOException
    {
        Await.until(TIMEOUT, this::step, condition::test, () -> what + ": " + listener.pendingHandshakes() +
            " pending, " + listener.silentHandshakes() + " silent, " + listener.evictedHandshakes() + " evicted, " +
            listener.refusedHandshakes() + " refused, " + listener.rejectedConnections() + " rejected");
    }

    private Socket connect(final String sourceAddress) throws IOException
    {
        final Socket socket = new Socket();
        sockets.add(socket);
        socket.setSoLinger(true, 0); // closed with a reset: no TIME_WAIT left behind
        socket.bind(new InetSocketAddress(sourceAddress, 0));
        socket.connect(listenAddress, (int)TestTime.millis(10_000));
        return socket;
    }

    private static void send(final Socket socket, final byte[] bytes) throws IOException
    {
        final OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    /** Steps the driver until the server's close reaches the socket. */
    private boolean awaitClosedByServer(final Socket socket) throws IOException
    {
        final boolean[] closed = new boolean[1];
        Await.until(TIMEOUT, this::step, () -> closed[0] = !isOpen(socket), () -> socket + " closed by the server");
        return closed[0];
    }

    private static boolean isOpen(final Socket socket)
    {
        try
        {
            socket.setSoTimeout(1);
            return socket.getInputStream().read() >= 0; // the server sends nothing during these handshakes
        }
        catch (final SocketTimeoutException nothingYet)
        {
            return true;
        }
        catch (final SocketException reset)
        {
            return false;
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static String address(final Socket socket)
    {
        return socket.getLocalAddress().getHostAddress() + ":" + socket.getLocalPort();
    }
}
