package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.Violation;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Peers that try to hold a node, from raw sockets on loopback, as issue 19 found them at 68a773a: the node keeps
 * serving a well-behaved client, closes the attacker with a reason, and gives back what the attacker took.
 */
class PeerAttackTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int MAX_FRAME_LENGTH = 16 * 1024;
    private static final byte[] NONE = new byte[0];

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final FrameWriter writer = new FrameWriter();

    @AfterEach
    void close()
    {
        for (final Socket socket : sockets)
        {
            try
            {
                socket.close();
            }
            catch (final IOException ignored)
            {
                // closing
            }
        }
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    /**
     * At 68a773a, 330 request streams each carrying a fragmented message that never ends grew the heap by 4.5 GB
     * until the engine thread died of OutOfMemoryError, and the node never answered SETUP again.
     */
    @Test
    @ScaledTimeout(180)
    void shouldCloseAPeerWhoseRequestsNeverEndAndKeepServingTheOthers() throws IOException
    {
        final Rivulet serverNode = launch(new Rivulet.Context().maxMessageLength(1 << 20)
            .maxConnectionMemory(4 << 20).maxNodeMemory(16 << 20));
        final Server server = serverNode.bind("127.0.0.1:0", echo()).block(TIMEOUT);
        final Connection good = launch(new Rivulet.Context()).connect(server.localAddress()).block(TIMEOUT);

        long sentByAttackers = 0;
        for (int attacker = 0; attacker < 6; attacker++)
        {
            final Socket socket = open(server.localAddress());
            sentByAttackers += sendUnendingRequests(socket, 330, TestTime.nanos(20, TimeUnit.SECONDS));
            assertThat(echo(good, "during attack " + attacker)).isEqualTo("during attack " + attacker);
        }

        assertThat(sentByAttackers).as("the attackers sent far more than the node's budget")
            .isGreaterThan(6L * (4 << 20));
        Await.until("every attacker was closed", () -> serverNode.counters().limitRejections.get() >= 6);
        assertThat(errors).filteredOn(error -> error instanceof ProtocolViolationException violation &&
            violation.reason() == Violation.LIMIT_EXCEEDED).hasSizeGreaterThanOrEqualTo(6)
            .allSatisfy(error -> assertThat(error.getMessage()).containsAnyOf("rivulet.maxConnectionMemory",
                "rivulet.maxNodeMemory"));
        for (int i = 0; i < 100; i++)
        {
            assertThat(echo(good, "after " + i)).isEqualTo("after " + i);
        }
        final Connection late = launch(new Rivulet.Context()).connect(server.localAddress()).block(TIMEOUT);
        assertThat(echo(late, "a new client")).as("the node still answers SETUP").isEqualTo("a new client");
    }

    /**
     * At 68a773a a SETUP asking for a keepalive of 24.8 days was granted, and 4,096 such idle connections held
     * every connection slot: a real client was refused.
     */
    @Test
    @ScaledTimeout(300)
    void shouldClampClientsAskingForLongKeepalivesAndCloseThemWhenSilent() throws IOException
    {
        final int attackers = Integer.getInteger("rivulet.test.attackers", 4096);
        final long boundMs = TestTime.millis(2_000);
        // A long set-up timeout: 4,096 SETUPs arrive at once on a slow machine, and this test is about what comes after.
        // They all come from 127.0.0.1, so its bound on connections waiting for SETUP is raised to let them in.
        final Rivulet serverNode = launch(new Rivulet.Context().maxConnections(attackers)
            .maxPendingSetupsPerAddress(attackers)
            .maxKeepaliveTimeout(boundMs, TimeUnit.MILLISECONDS)
            .setupTimeout(TestTime.millis(30_000), TimeUnit.MILLISECONDS));
        final Server server = serverNode.bind("127.0.0.1:0", echo()).block(TIMEOUT);

        final List<Socket> greedy = new ArrayList<>();
        for (int i = 0; i < attackers; i++)
        {
            final Socket socket = open(server.localAddress());
            socket.getOutputStream().write(prefixed(setup(Integer.MAX_VALUE - 1, Integer.MAX_VALUE)));
            greedy.add(socket);
        }
        // Each is answered with what the server granted: its bound, not 24.8 days.
        for (final Socket socket : greedy)
        {
            final FrameReader answer = readFrame(socket);
            assertThat(answer.frameType()).isEqualTo(FrameType.SETUP);
            assertThat(answer.keepaliveTimeoutMs()).isEqualTo((int)boundMs);
            assertThat(answer.keepaliveIntervalMs()).isLessThan((int)boundMs);
        }
        // Then they go silent (they never answer a KEEPALIVE): all are lost within the bound, not in 24.8 days.
        Await.until("every greedy client was closed", () -> serverNode.counters().connectionsLost.get() >= attackers);
        final Connection real = launch(new Rivulet.Context()).connect(server.localAddress()).block(TIMEOUT);
        assertThat(echo(real, "room again")).isEqualTo("room again");
    }

    /**
     * Sends SETUP, then streams of fragments that never end, until the server closes the socket (it reads and drops
     * what still arrives for a second while it closes) or the time is up.
     */
    private long sendUnendingRequests(final Socket socket, final int streams, final long limitNs) throws IOException
    {
        final long deadlineNs = System.nanoTime() + limitNs;
        final OutputStream out = socket.getOutputStream();
        out.write(prefixed(setup((int)TestTime.millis(1_000), (int)TestTime.millis(5_000))));
        final byte[] chunk = new byte[8 * 1024];
        long sent = 0;
        try
        {
            int fragment = 0;
            while (System.nanoTime() - deadlineNs < 0)
            {
                // Round robin over the streams: every one grows, none ends.
                final int stream = 2 * (fragment % streams) + 1;
                final byte[] frame = fragment < streams ?
                    payloadFrame(FrameType.REQUEST_RESPONSE, stream, chunk) :
                    payloadFrame(FrameType.PAYLOAD, stream, chunk);
                out.write(prefixed(frame));
                sent += frame.length;
                fragment++;
            }
        }
        catch (final SocketException ex)
        {
            return sent; // closed by the server: what the test wants
        }
        throw new AssertionError("the server took " + sent + " bytes of unending messages without closing in " +
            TimeUnit.NANOSECONDS.toSeconds(limitNs) + " s");
    }

    private static Responder echo()
    {
        return Responder.builder().requestResponse(Mono::just).build();
    }

    private static String echo(final Connection connection, final String text)
    {
        return connection.requestResponse(Message.of(text)).map(Message::dataUtf8).block(TIMEOUT);
    }

    private Rivulet launch(final Rivulet.Context context)
    {
        final Rivulet node = Rivulet.launch(context.transport(TcpTransport.plain()).errorHandler(errors::add));
        nodes.add(node);
        return node;
    }

    private Socket open(final String address) throws IOException
    {
        final Socket socket = new Socket();
        sockets.add(socket);
        final int colon = address.lastIndexOf(':');
        socket.connect(new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))),
            (int)TIMEOUT.toMillis());
        socket.setSoTimeout((int)TIMEOUT.toMillis());
        return socket;
    }

    private static FrameReader readFrame(final Socket socket) throws IOException
    {
        final InputStream in = socket.getInputStream();
        final DataInputStream data = new DataInputStream(in);
        final byte[] prefix = new byte[TcpLink.LENGTH_PREFIX_LENGTH];
        data.readFully(prefix);
        final int length = ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getInt();
        assertThat(length).isBetween(1, MAX_FRAME_LENGTH);
        final byte[] frame = new byte[length];
        data.readFully(frame);
        final FrameReader reader = new FrameReader();
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, length)).as("well formed: %s", reader.error()).isTrue();
        return reader;
    }

    private byte[] setup(final int keepaliveMs, final int timeoutMs)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.setupLength(0, 0)]);
        final int length = writer.writeSetup(buffer, 0, 1, keepaliveMs, timeoutMs, MAX_FRAME_LENGTH, NONE, NONE);
        return java.util.Arrays.copyOf(buffer.byteArray(), length);
    }

    private byte[] payloadFrame(final int type, final int streamId, final byte[] data)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.payloadFrameLength(type, 0, data.length)]);
        final int length = writer.writePayloadFrame(buffer, 0, type, streamId, 0, FrameFlags.FOLLOWS, null, 0, 0,
            new UnsafeBuffer(data), 0, data.length);
        return java.util.Arrays.copyOf(buffer.byteArray(), length);
    }

    private static byte[] prefixed(final byte[] frame)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(TcpLink.LENGTH_PREFIX_LENGTH + frame.length)
            .order(ByteOrder.LITTLE_ENDIAN);
        bytes.putInt(frame.length).put(frame);
        return bytes.array();
    }
}
