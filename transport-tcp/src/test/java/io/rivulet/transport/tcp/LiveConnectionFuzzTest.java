package io.rivulet.transport.tcp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.tck.TestTime;
import io.rivulet.topic.Publication;
import io.rivulet.topic.TopicOptions;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Fuzzes a LIVE node: a real server node on loopback TCP (with handlers for every interaction and a published
 * topic) is fed, after a valid SETUP, the frames the fuzzer makes. Input format: records of
 * {@code [u16 little-endian length][frame bytes]}; each record goes out as one TCP frame (a zero length becomes a
 * zero length prefix). A KEEPALIVE with a unique timestamp and RESPOND follows, so that the node has processed every
 * frame once its answer arrives.
 *
 * <p>Per input the node must: answer that KEEPALIVE or close the connection within 10 s (no hang); send only
 * well-formed frames; report nothing but {@link RivuletException}s with a message to its error handler (no
 * {@code IndexOutOfBoundsException}, {@code NullPointerException} ... from the engine); and keep serving — a
 * connection made before the fuzzing and a new one both get echoes. Seeds:
 * {@code src/test/resources/io/rivulet/transport/tcp/LiveConnectionFuzzTestInputs/feed/} ({@link TcpFuzzSeedWriter}).
 */
class LiveConnectionFuzzTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    private static final long ANSWER_TIMEOUT_NS = TestTime.nanos(10, TimeUnit.SECONDS);
    private static final int MAX_FRAME_LENGTH = 4096;

    private static final List<Throwable> SERVER_ERRORS = new CopyOnWriteArrayList<>();
    private static Rivulet serverNode;
    private static Rivulet clientNode;
    private static Server server;
    private static Connection goodConnection;
    private static Publication topic;
    private static long marker = 0x5EED_0000_0000L;

    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();

    @AfterAll
    static void closeNodes()
    {
        if (topic != null)
        {
            topic.close();
        }
        if (clientNode != null)
        {
            clientNode.close();
        }
        if (serverNode != null)
        {
            serverNode.close();
        }
        serverNode = null;
        clientNode = null;
    }

    private static void launchOnce()
    {
        LoopbackOnly.allow();
        if (serverNode != null)
        {
            return;
        }
        serverNode = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .maxFrameLength(MAX_FRAME_LENGTH).maxMessageLength(64 * 1024).errorHandler(SERVER_ERRORS::add));
        clientNode = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).threadingMode(ThreadingMode.SHARED)
            .maxFrameLength(MAX_FRAME_LENGTH));
        server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
            .requestStream(request -> Flux.range(0, 5).map(i -> Message.of("item " + i)))
            .requestChannel(inbound -> inbound.take(16).map(m -> Message.of("ch:" + m.dataUtf8())))
            .fireAndForget(event -> Mono.empty())
            .build()).block(TIMEOUT);
        topic = serverNode.publication("fuzz.quotes", TopicOptions.conflate((buffer, offset, length) -> buffer.getByte(offset)));
        final UnsafeBuffer value = new UnsafeBuffer(new byte[8]);
        for (int i = 0; i < 4; i++)
        {
            value.putByte(0, (byte)i);
            topic.offer(value, 0, 8);
        }
        goodConnection = clientNode.connect(server.localAddress()).block(TIMEOUT);
    }

    @FuzzTest(maxDuration = "3m")
    void feed(final byte[] input) throws IOException
    {
        launchOnce();
        final long answer = ++marker;
        final byte[] wire = toWire(input, answer);

        final InetSocketAddress address = SocketAddresses.resolve(server.localAddress());
        try (Socket socket = new Socket())
        {
            socket.connect(address, (int)TestTime.millis(5_000));
            socket.setSoTimeout(20);
            socket.getOutputStream().write(wire);
            socket.getOutputStream().flush();
            awaitAnswerOrClose(socket, answer);
        }

        for (final Throwable error : SERVER_ERRORS)
        {
            assertThat(error).as("error reported by the node").isInstanceOf(RivuletException.class);
            assertThat(error.getMessage()).isNotBlank();
        }
        assertEcho(goodConnection, "before");
        final Connection fresh = clientNode.connect(server.localAddress()).block(TIMEOUT);
        try
        {
            assertEcho(fresh, "fresh");
        }
        finally
        {
            fresh.close();
        }
    }

    /** SETUP, then one TCP frame per record of the input, then the marker KEEPALIVE. */
    private byte[] toWire(final byte[] input, final long answer)
    {
        final ByteArrayOutputStream wire = new ByteArrayOutputStream();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[MAX_FRAME_LENGTH]);
        // Keepalive scaled, so that the node does not take the raw peer for a silent one before it answers.
        frame(wire, scratch, writer.writeSetup(scratch, 0, 1, (int)TestTime.millis(1_000), (int)TestTime.millis(5_000),
            MAX_FRAME_LENGTH, new byte[0], new byte[0]));
        final ByteBuffer records = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
        while (records.remaining() >= Short.BYTES)
        {
            final int length = Math.min(records.getShort() & 0xFFFF, records.remaining());
            final byte[] frame = new byte[length];
            records.get(frame);
            wire.write(prefix(length), 0, Integer.BYTES);
            wire.write(frame, 0, length);
        }
        frame(wire, scratch, writer.writeKeepalive(scratch, 0, true, answer));
        return wire.toByteArray();
    }

    private static void frame(final ByteArrayOutputStream wire, final UnsafeBuffer scratch, final int length)
    {
        wire.write(prefix(length), 0, Integer.BYTES);
        wire.write(scratch.byteArray(), 0, length);
    }

    private static byte[] prefix(final int length)
    {
        return ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array();
    }

    /** Reads and checks the node's frames until it answers the marker KEEPALIVE or closes; fails after 10 s (scaled). */
    private void awaitAnswerOrClose(final Socket socket, final long answer) throws IOException
    {
        final InputStream in = socket.getInputStream();
        final byte[] chunk = new byte[8192];
        byte[] pending = new byte[0];
        final long deadlineNs = System.nanoTime() + ANSWER_TIMEOUT_NS;
        while (System.nanoTime() - deadlineNs < 0)
        {
            final int read;
            try
            {
                read = in.read(chunk);
            }
            catch (final SocketTimeoutException ex)
            {
                continue;
            }
            catch (final SocketException ex)
            {
                return; // reset by the node: closed
            }
            if (read < 0)
            {
                return;
            }
            final byte[] joined = new byte[pending.length + read];
            System.arraycopy(pending, 0, joined, 0, pending.length);
            System.arraycopy(chunk, 0, joined, pending.length, read);
            final UnsafeBuffer buffer = new UnsafeBuffer(joined);
            int offset = 0;
            while (joined.length - offset >= Integer.BYTES)
            {
                final int length = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
                assertThat(length).as("length prefix from the node").isBetween(1, MAX_FRAME_LENGTH);
                if (joined.length - offset - Integer.BYTES < length)
                {
                    break;
                }
                assertThat(reader.wrap(buffer, offset + Integer.BYTES, length))
                    .as("frame from the node is well formed: %s", reader.error()).isTrue();
                if (reader.frameType() == FrameType.KEEPALIVE && !reader.respond() && reader.timestampNs() == answer)
                {
                    return;
                }
                if (reader.frameType() == FrameType.CLOSE || (reader.frameType() == FrameType.ERROR && reader.streamId() == 0))
                {
                    assertThat(reader.text()).as("the node's reason for closing").isNotBlank();
                    return; // the node is closing the connection, with a reason; it waits for us to hang up
                }
                offset += Integer.BYTES + length;
            }
            pending = java.util.Arrays.copyOfRange(joined, offset, joined.length);
        }
        fail("the node neither answered the KEEPALIVE nor closed the connection within 10 s");
    }

    private static void assertEcho(final Connection connection, final String text)
    {
        final Message reply = connection.requestResponse(Message.of(text)).block(TIMEOUT);
        assertThat(reply).isNotNull();
        assertThat(reply.dataUtf8()).isEqualTo("echo:" + text);
    }
}
