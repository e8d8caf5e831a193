package io.rivulet.transport.tcp;

import io.rivulet.tck.Await;
import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.tck.ResourceSnapshot;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A connection cut in the middle of a fragmented message, in both directions: a raw peer sends 8 MiB of a larger
 * message's fragments and then drops the connection (FIN or RST). The receiving node must not deliver the partial
 * message, must end the waiting stream with a connection error, must free the partial reassembly (the heap after a
 * GC returns to where it was, though every cut left 8 MiB half-assembled), leave descriptors, threads and direct
 * memory where they were, and keep serving.
 */
@ScaledTimeout(300)
class FragmentCutTest
{
    private static final Duration TIMEOUT = TestTime.seconds(30);
    private static final int CUTS = 16;
    private static final int PARTIAL_BYTES = 8 * 1024 * 1024;
    private static final int MAX_FRAME_LENGTH = 16 * 1024;
    private static final long HEAP_TOLERANCE = 32L * 1024 * 1024;
    private static final Map<String, Long> TOLERANCES = Map.of(
        ResourceSnapshot.FILE_DESCRIPTORS, 2L, ResourceSnapshot.THREADS, 2L,
        ResourceSnapshot.DIRECT_BUFFERS, 4L, ResourceSnapshot.DIRECT_BYTES, 1024L * 1024);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final AtomicInteger handled = new AtomicInteger();
    private final FrameWriter writer = new FrameWriter();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[MAX_FRAME_LENGTH]);
    private final UnsafeBuffer chunk = new UnsafeBuffer(new byte[MAX_FRAME_LENGTH]);
    private Rivulet serverNode;
    private Rivulet clientNode;
    private Server server;

    @BeforeEach
    void launch()
    {
        serverNode = Rivulet.launch(context());
        clientNode = Rivulet.launch(context());
        server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request ->
            {
                handled.incrementAndGet();
                return Mono.just(Message.of("size:" + request.dataLength()));
            })
            .build()).block(TIMEOUT);
    }

    @AfterEach
    void close()
    {
        clientNode.close();
        serverNode.close();
    }

    @Test
    void serverFreesAPartialRequestWhenTheClientDropsMidMessage() throws Exception
    {
        final Connection early = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertThat(echoSize(early, 100_000)).isEqualTo("size:100000");
        handled.set(0);
        cutRequest(false); // warm-up: the node's buffers reach their working size
        final long heapBefore = heapAfterGc();
        final ResourceSnapshot before = ResourceSnapshot.take(Map.of());
        final long endedBefore = ended(serverNode);

        for (int i = 0; i < CUTS; i++)
        {
            cutRequest(i % 2 == 0);
        }

        awaitEnded(serverNode, endedBefore + CUTS);
        assertThat(handled.get()).as("partial requests handed to the handler").isZero();
        assertThat(echoSize(early, 100_000)).as("connection made before the cuts").isEqualTo("size:100000");
        assertFreed(heapBefore, before);

        final Connection late = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertThat(echoSize(late, 1_000_000)).as("a connection made after the cuts").isEqualTo("size:1000000");
        late.close();
    }

    @Test
    void clientErrorsTheStreamAndFreesAPartialReplyWhenTheServerDropsMidMessage() throws Exception
    {
        try (ServerSocket rawServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress()))
        {
            final String address = "127.0.0.1:" + rawServer.getLocalPort();
            cutReply(rawServer, address, false);
            final long heapBefore = heapAfterGc();
            final ResourceSnapshot before = ResourceSnapshot.take(Map.of());

            for (int i = 0; i < CUTS; i++)
            {
                final Throwable error = cutReply(rawServer, address, i % 2 == 0);
                assertThat(error).isInstanceOfAny(ConnectionClosedException.class, ConnectionLostException.class);
            }

            final Connection good = clientNode.connect(server.localAddress()).block(TIMEOUT);
            assertThat(echoSize(good, 1_000_000)).as("the client node keeps working").isEqualTo("size:1000000");
            good.close();
            assertFreed(heapBefore, before);
        }
    }

    /** A raw client: SETUP, then 8 MiB of a fragmented request, then FIN or RST. */
    private void cutRequest(final boolean reset) throws IOException
    {
        final InetSocketAddress address = SocketAddresses.resolve(server.localAddress());
        try (Socket socket = new Socket(address.getAddress(), address.getPort()))
        {
            final OutputStream out = socket.getOutputStream();
            // Its keepalive scaled, so that the node does not take the raw client for a silent one mid-send.
            send(out, writer.writeSetup(scratch, 0, 1, (int)TestTime.millis(1_000), (int)TestTime.millis(10_000),
                MAX_FRAME_LENGTH, new byte[0], new byte[0]));
            sendFragments(out, FrameType.REQUEST_RESPONSE, 1);
            if (reset)
            {
                socket.setSoLinger(true, 0);
            }
        }
    }

    /** A raw server: accepts the node's connection, reads SETUP and the request, sends 8 MiB of the reply, drops. */
    private Throwable cutReply(final ServerSocket rawServer, final String address, final boolean reset) throws Exception
    {
        // connect completes on the server's first frame after SETUP, so the raw server answers like a real one.
        final java.util.concurrent.CompletableFuture<Connection> connecting = clientNode.connect(address).toFuture();
        final Connection connection;
        final Mono<Message> reply;
        try (Socket socket = rawServer.accept())
        {
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            assertThat(readFrame(in).frameType()).isEqualTo(FrameType.SETUP);
            send(socket.getOutputStream(), writer.writeKeepalive(scratch, 0, false, System.nanoTime()));
            connection = connecting.get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            reply = connection.requestResponse(Message.of("big please")).cache();
            reply.subscribe(message -> { }, error -> { });
            final FrameReader request = readFrame(in);
            assertThat(request.frameType()).isEqualTo(FrameType.REQUEST_RESPONSE);
            sendFragments(socket.getOutputStream(), FrameType.PAYLOAD, request.streamId());
            if (reset)
            {
                socket.setSoLinger(true, 0);
            }
        }
        final Throwable error = catchThrowable(() -> reply.block(TIMEOUT));
        assertThat(error).as("the waiting request ends with the connection's error").isNotNull();
        connection.onClose().onErrorResume(e -> Mono.empty()).block(TIMEOUT);
        return error;
    }

    private void sendFragments(final OutputStream out, final int firstType, final int streamId) throws IOException
    {
        final int chunkLength = MAX_FRAME_LENGTH - FrameWriter.payloadFrameOverhead(FrameType.REQUEST_STREAM);
        int sent = 0;
        int type = firstType;
        while (sent < PARTIAL_BYTES)
        {
            send(out, writer.writePayloadFrame(scratch, 0, type, streamId, 0, FrameFlags.FOLLOWS, null, 0, 0,
                chunk, 0, chunkLength));
            sent += chunkLength;
            type = FrameType.PAYLOAD;
        }
        out.flush();
    }

    private void send(final OutputStream out, final int length) throws IOException
    {
        out.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array());
        out.write(scratch.byteArray(), 0, length);
    }

    private static FrameReader readFrame(final DataInputStream in) throws IOException
    {
        final byte[] prefix = new byte[Integer.BYTES];
        in.readFully(prefix);
        final byte[] frame = new byte[ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getInt()];
        in.readFully(frame);
        final FrameReader reader = new FrameReader();
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, frame.length)).as("frame from the node: %s", reader.error()).isTrue();
        return reader;
    }

    private void assertFreed(final long heapBefore, final ResourceSnapshot before) throws InterruptedException
    {
        final ResourceSnapshot after = ResourceSnapshot.awaitWithin(before, TOLERANCES, Map::of, TestTime.millis(30_000));
        System.out.println("before " + before.values() + "\nafter  " + after.values());
        assertThat(after.differencesFrom(before, TOLERANCES)).isEmpty();
        final long heapAfter = heapAfterGc();
        assertThat(heapAfter - heapBefore).as("heap retained after %d cuts of %d bytes each", CUTS, PARTIAL_BYTES)
            .isLessThan(HEAP_TOLERANCE);
        assertThat(errors).as("errors reported by the nodes").isEmpty();
    }

    private static long heapAfterGc() throws InterruptedException
    {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++)
        {
            System.gc();
            Thread.sleep(TestTime.millis(50));
            least = Math.min(least, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    private static long ended(final Rivulet node)
    {
        return node.counters().connectionsClosed.get() + node.counters().connectionsLost.get();
    }

    private static void awaitEnded(final Rivulet node, final long count) throws InterruptedException
    {
        Await.until("connections ended on the node", () -> ended(node) >= count);
        assertThat(ended(node)).as("connections ended on the node").isGreaterThanOrEqualTo(count);
    }

    private static String echoSize(final Connection connection, final int size)
    {
        return connection.requestResponse(Message.of(new byte[size])).map(Message::dataUtf8).block(TIMEOUT);
    }

    private Rivulet.Context context()
    {
        return new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .maxFrameLength(MAX_FRAME_LENGTH).errorHandler(errors::add);
    }
}
