package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.counters.NodeCounters;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rivulet.maxPendingSetupsPerAddress} over loopback: raw sockets from 127.0.0.2 that connect and send nothing
 * fill that address's bound; the next one from there is closed at once and counted, while a real client from
 * 127.0.0.1 still connects and is served. A socket that closes, or whose SETUP is accepted, gives its slot back.
 * Without the bound the crowd would hold every one of {@code maxConnections}' slots until the set-up timeout.
 */
@ScaledTimeout(120)
class PendingSetupLimitTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int LIMIT = 4;
    private static final String CROWD = "127.0.0.2";

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<SocketChannel> sockets = new ArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();
    private Rivulet serverNode;
    private InetSocketAddress serverAddress;
    private String server;

    @BeforeEach
    void bind()
    {
        // A long set-up timeout and keepalive (a silent socket is lost after the keepalive timeout, SETUP or not): no
        // socket here is closed for being slow or silent, only for the bound.
        serverNode = launch(new Rivulet.Context().maxPendingSetupsPerAddress(LIMIT)
            .setupTimeout(TestTime.millis(600_000), TimeUnit.MILLISECONDS)
            .keepaliveInterval(TestTime.millis(10_000), TimeUnit.MILLISECONDS)
            .keepaliveTimeout(TestTime.millis(120_000), TimeUnit.MILLISECONDS)
            .maxKeepaliveTimeout(TestTime.millis(120_000), TimeUnit.MILLISECONDS)
            .errorHandler(errors::add));
        final Server bound = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
            .build()).block(TIMEOUT);
        server = bound.localAddress();
        final int colon = server.lastIndexOf(':');
        serverAddress = new InetSocketAddress(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)));
    }

    @AfterEach
    void closeEverything() throws IOException
    {
        for (final SocketChannel socket : sockets)
        {
            socket.close();
        }
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    void shouldCloseAConnectionBeyondTheLimitFromOneAddressAndServeAnother() throws IOException
    {
        final NodeCounters counters = serverNode.counters();
        final List<SocketChannel> crowd = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++)
        {
            crowd.add(open(CROWD));
        }
        awaitOpened(LIMIT);

        final SocketChannel extra = open(CROWD);

        awaitClosedByServer(extra);
        assertThat(counters.limitRejections.get()).as("the extra connection counted").isEqualTo(1);
        assertThat(counters.connectionsOpened.get()).as("no connection made for it").isEqualTo(LIMIT);
        for (final SocketChannel waiting : crowd)
        {
            assertThat(isClosedByServer(waiting)).as("the crowd within the bound still waits").isFalse();
        }
        final Connection real = launch(new Rivulet.Context()).connect(server).block(TIMEOUT);
        assertThat(real.requestResponse(Message.of("past the crowd")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:past the crowd");
        assertThat(counters.limitRejections.get()).as("the client from 127.0.0.1 was not refused").isEqualTo(1);
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldGiveASlotBackWhenItsConnectionClosesOrCompletesSetup() throws IOException
    {
        final NodeCounters counters = serverNode.counters();
        final List<SocketChannel> crowd = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++)
        {
            crowd.add(open(CROWD));
        }
        awaitOpened(LIMIT);

        // Two of the crowd leave: once the node has seen them end, two newcomers from the address are accepted.
        final long endedBefore = ended(counters);
        crowd.remove(0).close();
        crowd.remove(0).close();
        Await.until(TIMEOUT, () -> ended(counters) == endedBefore + 2,
            () -> "two connections ended, saw " + (ended(counters) - endedBefore));
        crowd.add(open(CROWD));
        crowd.add(open(CROWD));
        awaitOpened(LIMIT + 2);
        assertThat(counters.limitRejections.get()).as("newcomers refused").isZero();
        final SocketChannel beyond = open(CROWD);
        awaitClosedByServer(beyond);
        assertThat(counters.limitRejections.get()).as("the bound holds again").isEqualTo(1);

        // One of the crowd sends SETUP: once it is accepted (the server's answer read), its slot is free.
        final SocketChannel completing = crowd.get(0);
        write(completing, new RawFrames().setup("", (int)TimeUnit.SECONDS.toMillis(1),
            (int)TimeUnit.SECONDS.toMillis(5), 16 * 1024));
        assertThat(readFrameType(completing)).as("the server's answer to SETUP").isEqualTo(FrameType.SETUP);
        open(CROWD);
        awaitOpened(LIMIT + 3);
        assertThat(counters.limitRejections.get()).as("the newcomer took the freed slot").isEqualTo(1);
        awaitClosedByServer(open(CROWD));
        assertThat(counters.limitRejections.get()).isEqualTo(2);
    }

    private void awaitOpened(final long opened)
    {
        Await.until(TIMEOUT, () -> serverNode.counters().connectionsOpened.get() == opened,
            () -> "connections accepted: " + serverNode.counters().connectionsOpened.get() + " of " + opened +
                ", refused: " + serverNode.counters().limitRejections.get());
    }

    /** Connections finished (closed, lost or refused alike), counted after their slot was freed. */
    private static long ended(final NodeCounters counters)
    {
        return counters.connectionsClosed.get();
    }

    /** A raw socket from the given loopback address, connected, non-blocking. */
    private SocketChannel open(final String sourceAddress) throws IOException
    {
        final SocketChannel socket = SocketChannel.open();
        sockets.add(socket);
        socket.setOption(StandardSocketOptions.SO_LINGER, 0); // closed with a reset: no TIME_WAIT left behind
        socket.bind(new InetSocketAddress(sourceAddress, 0));
        socket.connect(serverAddress);
        socket.configureBlocking(false);
        return socket;
    }

    private static void awaitClosedByServer(final SocketChannel socket)
    {
        Await.until(TIMEOUT, () -> isClosedByServer(socket), () -> socket + " closed by the server");
    }

    /** The server sends nothing before SETUP: any byte would be a surprise, an end of stream or a reset its close. */
    private static boolean isClosedByServer(final SocketChannel socket)
    {
        try
        {
            final int read = socket.read(ByteBuffer.allocate(64));
            assertThat(read).as("bytes from the server before SETUP").isLessThanOrEqualTo(0);
            return read < 0;
        }
        catch (final IOException reset)
        {
            return true;
        }
    }

    private static void write(final SocketChannel socket, final byte[] bytes) throws IOException
    {
        final ByteBuffer buffer = ByteBuffer.wrap(bytes);
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (buffer.hasRemaining())
        {
            socket.write(buffer);
            assertThat(System.nanoTime() - deadlineNs).as("written within %s", TIMEOUT).isNegative();
        }
    }

    /** Reads one length-prefixed frame, polling the non-blocking socket until it has come whole. */
    private static int readFrameType(final SocketChannel socket) throws IOException
    {
        final ByteBuffer prefix = ByteBuffer.allocate(TcpLink.LENGTH_PREFIX_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        readFully(socket, prefix);
        final int length = prefix.getInt(0);
        assertThat(length).isBetween(1, 64 * 1024);
        final ByteBuffer frame = ByteBuffer.allocate(length);
        readFully(socket, frame);
        final FrameReader reader = new FrameReader();
        assertThat(reader.wrap(new UnsafeBuffer(frame.array()), 0, length)).as("well formed: %s", reader.error())
            .isTrue();
        return reader.frameType();
    }

    private static void readFully(final SocketChannel socket, final ByteBuffer buffer) throws IOException
    {
        Await.until(TIMEOUT, () ->
        {
            if (socket.read(buffer) < 0)
            {
                throw new AssertionError("closed by the server after SETUP");
            }
            return !buffer.hasRemaining();
        }, () -> buffer.position() + " of " + buffer.capacity() + " bytes read");
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.transport(TcpTransport.plain()).threadingMode(ThreadingMode.SHARED));
        nodes.add(node);
        return node;
    }
}
