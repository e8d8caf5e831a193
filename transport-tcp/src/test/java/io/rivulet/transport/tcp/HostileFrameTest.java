package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.tck.Await;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Section 9 of the design: bad input from the network closes only the offending connection with a
 * protocol error, is counted, and the node keeps serving everyone else. A raw socket plays the hostile
 * peer against a real node; well-behaved Rivulet clients connected before and after must keep working.
 */
class HostileFrameTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    private static final long CLOSE_TIMEOUT_NS = TestTime.nanos(10, TimeUnit.SECONDS);
    private static final int CONNECT_TIMEOUT_MS = (int)TestTime.millis(5_000);
    /** The strict nodes' keepalive, scaled so that a well-behaved peer is not taken for a silent one. */
    private static final long STRICT_KEEPALIVE_INTERVAL_MS = TestTime.millis(100);
    private static final long STRICT_KEEPALIVE_TIMEOUT_MS = TestTime.millis(500);
    private static final int MAX_READ_ITERATIONS = 10_000;
    private static final int SERVER_MAX_FRAME_LENGTH = 16 * 1024;
    private static final int SERVER_MAX_MESSAGE_LENGTH = 64 * 1024;
    private static final byte[] NONE = new byte[0];

    private final List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
    private final List<Throwable> clientErrors = new CopyOnWriteArrayList<>();
    private final FrameWriter writer = new FrameWriter();
    private Rivulet serverNode;
    private Rivulet clientNode;
    private Server server;
    private Connection earlyConnection;

    @BeforeEach
    void launchNodes()
    {
        serverNode = Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .maxFrameLength(SERVER_MAX_FRAME_LENGTH)
            .maxMessageLength(SERVER_MAX_MESSAGE_LENGTH)
            .errorHandler(serverErrors::add));
        clientNode = Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .errorHandler(clientErrors::add));
        server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
            .requestStream(request -> Flux.never())
            .requestChannel(inbound -> Flux.never())
            .build()).block(TIMEOUT);
        earlyConnection = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertEcho(earlyConnection, "before");
    }

    @AfterEach
    void closeNodes()
    {
        if (clientNode != null)
        {
            clientNode.close();
        }
        if (serverNode != null)
        {
            serverNode.close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingGarbageAfterSetup() throws IOException
    {
        final byte[] garbage = new byte[48];
        new SplittableRandom(42).nextBytes(garbage);

        assertHostileConnectionClosed(concat(setup(), prefixed(garbage)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingUnframedGarbageAfterSetup() throws IOException
    {
        final byte[] garbage = new byte[64];
        Arrays.fill(garbage, (byte)0xAB); // 0xABABABAB is a negative length prefix

        assertHostileConnectionClosed(concat(setup(), garbage), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingTruncatedFrame() throws IOException
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, new byte[64]);
        final byte[] truncated = Arrays.copyOf(request, 40); // the data length field still says 64

        assertHostileConnectionClosed(concat(setup(), prefixed(truncated)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingHugeVarDataLength() throws IOException
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, new byte[8]);
        final int dataLengthOffset = request.length - 8 - Integer.BYTES;
        ByteBuffer.wrap(request).order(ByteOrder.LITTLE_ENDIAN).putInt(dataLengthOffset, 0xFFFF_FFF0);

        assertHostileConnectionClosed(concat(setup(), prefixed(request)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingUnknownTemplateId() throws IOException
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, bytes("x"));
        ByteBuffer.wrap(request).order(ByteOrder.LITTLE_ENDIAN).putShort(2, (short)99);

        assertHostileConnectionClosed(concat(setup(), prefixed(request)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingWrongSchemaId() throws IOException
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, bytes("x"));
        ByteBuffer.wrap(request).order(ByteOrder.LITTLE_ENDIAN).putShort(4, (short)(FrameReader.SCHEMA_ID + 1));

        assertHostileConnectionClosed(concat(setup(), prefixed(request)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingFrameShorterThanHeader() throws IOException
    {
        assertHostileConnectionClosed(concat(setup(), prefixed(new byte[]{1, 2, 3})), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionDeclaringFrameBeyondMaxFrameLength() throws IOException
    {
        // No body follows: the length alone must be refused, never buffered for.
        assertHostileConnectionClosed(concat(setup(), lengthPrefix(0x7FFF_FFFF)), null);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionDeclaringFrameJustBeyondMaxFrameLength() throws IOException
    {
        final byte[] body = new byte[SERVER_MAX_FRAME_LENGTH + 1];

        assertHostileConnectionClosed(concat(setup(), prefixed(body)), null);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingZeroLengthPrefix() throws IOException
    {
        assertHostileConnectionClosed(concat(setup(), lengthPrefix(0)), null);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingNegativeLengthPrefix() throws IOException
    {
        assertHostileConnectionClosed(concat(setup(), lengthPrefix(-1), new byte[16]), null);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingNegativeLengthPrefixBeforeSetup() throws IOException
    {
        assertHostileConnectionClosed(lengthPrefix(Integer.MIN_VALUE), null);
    }

    @Test
    @ScaledTimeout(60)
    void shouldRejectRequestBeforeSetup() throws IOException
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, bytes("early"));

        assertHostileConnectionClosed(prefixed(request), ErrorCode.INVALID_SETUP);
    }

    @Test
    @ScaledTimeout(60)
    void shouldRejectSetupWithUnsupportedVersion() throws IOException
    {
        assertHostileConnectionClosed(prefixed(setup(2, 1000, 5000, SERVER_MAX_FRAME_LENGTH)),
            ErrorCode.UNSUPPORTED_SETUP);
    }

    @Test
    @ScaledTimeout(60)
    void shouldRejectSetupWithKeepaliveTimeoutBelowInterval() throws IOException
    {
        assertHostileConnectionClosed(prefixed(setup(1, 1000, 500, SERVER_MAX_FRAME_LENGTH)), ErrorCode.INVALID_SETUP);
    }

    @Test
    @ScaledTimeout(60)
    void shouldRejectSetupWithMaxFrameLengthBeyondServers() throws IOException
    {
        assertHostileConnectionClosed(prefixed(setup(1, 1000, 5000, SERVER_MAX_FRAME_LENGTH * 2)),
            ErrorCode.REJECTED_SETUP);
    }

    @Test
    @ScaledTimeout(60)
    void shouldRejectSecondSetup() throws IOException
    {
        assertHostileConnectionClosed(concat(setup(), setup()), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionOpeningStreamWithServerSideStreamId() throws IOException
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_STREAM, 2, 1, FrameFlags.NEXT, bytes("even"));

        assertHostileConnectionClosed(concat(setup(), prefixed(request)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionOpeningStreamWithNegativeStreamId() throws IOException
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_RESPONSE, -1, 0, FrameFlags.NEXT, bytes("neg"));

        assertHostileConnectionClosed(concat(setup(), prefixed(request)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionReusingStreamIdInUse() throws IOException
    {
        // The channel handler never completes, so stream 1 stays in use on the server.
        final byte[] channel = payloadFrame(FrameType.REQUEST_CHANNEL, 1, 1, FrameFlags.NEXT, bytes("open"));
        final byte[] again = payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, bytes("dup"));

        assertHostileConnectionClosed(concat(setup(), prefixed(channel), prefixed(again)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingRequestNOfZero() throws IOException
    {
        final byte[] stream = payloadFrame(FrameType.REQUEST_STREAM, 1, 1, FrameFlags.NEXT, bytes("s"));
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.requestNLength()]);
        writer.writeRequestN(buffer, 0, 1, 0);

        assertHostileConnectionClosed(concat(setup(), prefixed(stream), prefixed(buffer.byteArray())),
            ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingPayloadBeyondGrantedCredits() throws IOException
    {
        // The channel handler never subscribes to its inbound side, so no credit is ever granted:
        // the opening message is free, the next PAYLOAD exceeds the credits.
        final byte[] channel = payloadFrame(FrameType.REQUEST_CHANNEL, 1, 1, FrameFlags.NEXT, bytes("open"));
        final byte[] payload = payloadFrame(FrameType.PAYLOAD, 1, 0, FrameFlags.NEXT, bytes("unasked"));

        assertHostileConnectionClosed(concat(setup(), prefixed(channel), prefixed(payload)),
            ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingFragmentsBeyondMaxMessageLength() throws IOException
    {
        final byte[] chunk = new byte[8 * 1024];
        final ByteArrayOutputStream frames = new ByteArrayOutputStream();
        frames.writeBytes(setup());
        frames.writeBytes(prefixed(payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0,
            (byte)(FrameFlags.NEXT | FrameFlags.FOLLOWS), chunk)));
        for (int i = 0; i < SERVER_MAX_MESSAGE_LENGTH / chunk.length; i++)
        {
            frames.writeBytes(prefixed(payloadFrame(FrameType.PAYLOAD, 1, 0,
                (byte)(FrameFlags.NEXT | FrameFlags.FOLLOWS), chunk)));
        }

        assertHostileConnectionClosed(frames.toByteArray(), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseConnectionSendingFragmentedFireAndForgetWithoutStream() throws IOException
    {
        final byte[] fnf = payloadFrame(FrameType.REQUEST_FNF, 0, 0, (byte)(FrameFlags.NEXT | FrameFlags.FOLLOWS),
            bytes("part"));

        assertHostileConnectionClosed(concat(setup(), prefixed(fnf)), ErrorCode.CONNECTION_ERROR);
    }

    @Test
    @ScaledTimeout(60)
    void shouldSendErrorToPeerThatKeepsFloodingAfterMalformedFrame() throws Exception
    {
        final byte[] request = payloadFrame(FrameType.REQUEST_RESPONSE, 1, 0, FrameFlags.NEXT, bytes("x"));
        ByteBuffer.wrap(request).order(ByteOrder.LITTLE_ENDIAN).putShort(2, (short)99);
        final byte[] valid = prefixed(payloadFrame(FrameType.REQUEST_FNF, 0, 0, FrameFlags.NEXT, new byte[1000]));
        final long protocolErrorsBefore = serverNode.counters().protocolErrors.get();

        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress("127.0.0.1", port(server.localAddress())), CONNECT_TIMEOUT_MS);
            socket.getOutputStream().write(concat(setup(), prefixed(request)));
            // The flood: far more than the server reads before it sees the malformed frame.
            final Thread flooder = new Thread(() ->
            {
                try
                {
                    for (int i = 0; i < 16 * 1024; i++)
                    {
                        socket.getOutputStream().write(valid);
                    }
                }
                catch (final IOException expected)
                {
                    // The server closed the connection.
                }
            }, "flooder");
            flooder.setDaemon(true);
            flooder.start();
            final List<ErrorFrame> errors = parseErrors(readUntilClosed(socket));
            flooder.join(TestTime.millis(10, TimeUnit.SECONDS));

            assertThat(errors).as("ERROR frames from the server").hasSize(1);
            assertThat(ErrorCode.get(errors.get(0).code)).isEqualTo(ErrorCode.CONNECTION_ERROR);
        }
        Await.until(TIMEOUT, () -> serverNode.counters().protocolErrors.get() > protocolErrorsBefore,
            () -> "protocol errors");
        assertEcho(earlyConnection, "after");
    }

    @Test
    @ScaledTimeout(60)
    void shouldDropConnectionThatNeverCompletesAFrame() throws IOException
    {
        try (Rivulet strictNode = Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .keepaliveInterval(STRICT_KEEPALIVE_INTERVAL_MS, TimeUnit.MILLISECONDS)
            .keepaliveTimeout(STRICT_KEEPALIVE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .errorHandler(serverErrors::add)))
        {
            final Server strictServer = strictNode.bind("127.0.0.1:0", Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
                .build()).block(TIMEOUT);
            final long lostBefore = strictNode.counters().connectionsLost.get();

            try (Socket silent = new Socket(); Socket partial = new Socket())
            {
                silent.connect(new InetSocketAddress("127.0.0.1", port(strictServer.localAddress())), CONNECT_TIMEOUT_MS);
                partial.connect(new InetSocketAddress("127.0.0.1", port(strictServer.localAddress())), CONNECT_TIMEOUT_MS);
                // Half a length prefix, then nothing: a frame that never completes.
                partial.getOutputStream().write(new byte[]{8, 0});
                partial.getOutputStream().flush();

                assertThat(parseErrors(readUntilClosed(silent))).isEmpty();
                assertThat(parseErrors(readUntilClosed(partial))).isEmpty();
            }

            Await.until(TIMEOUT, () -> strictNode.counters().connectionsLost.get() >= lostBefore + 2,
                () -> "connections lost");
            assertEcho(earlyConnection, "after");
            try (Rivulet strictClient = Rivulet.launch(new Rivulet.Context()
                .transport(new TcpTransport())
                .threadingMode(ThreadingMode.SHARED)
                .keepaliveInterval(STRICT_KEEPALIVE_INTERVAL_MS, TimeUnit.MILLISECONDS)
                .keepaliveTimeout(STRICT_KEEPALIVE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .errorHandler(clientErrors::add)))
            {
                assertEcho(strictClient.connect(strictServer.localAddress()).block(TIMEOUT), "strict");
            }
        }
    }

    /**
     * Sends the bytes from a raw socket and checks that the server answers with an ERROR on stream 0
     * (when {@code expectedCode} is given), closes that connection, counts a protocol error, and still
     * serves the connection made before and a new one made after.
     */
    private void assertHostileConnectionClosed(final byte[] hostile, final ErrorCode expectedCode) throws IOException
    {
        final long protocolErrorsBefore = serverNode.counters().protocolErrors.get();
        final long closedBefore = serverNode.counters().connectionsClosed.get();

        final List<ErrorFrame> errors;
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress("127.0.0.1", port(server.localAddress())), CONNECT_TIMEOUT_MS);
            socket.getOutputStream().write(hostile);
            socket.getOutputStream().flush();
            errors = parseErrors(readUntilClosed(socket));
        }

        if (expectedCode != null)
        {
            assertThat(errors).as("ERROR frames from the server").hasSize(1);
        }
        assertThat(errors).as("ERROR frames from the server").hasSizeLessThanOrEqualTo(1);
        for (final ErrorFrame error : errors)
        {
            assertThat(error.streamId).as("stream of the ERROR").isZero();
            assertThat(error.text).as("message of the ERROR").isNotBlank();
            assertThat(ErrorCode.get(error.code)).as("code of the ERROR: %s", error.text)
                .isEqualTo(expectedCode == null ? ErrorCode.CONNECTION_ERROR : expectedCode);
        }

        Await.until(TIMEOUT, () -> serverNode.counters().protocolErrors.get() > protocolErrorsBefore,
            () -> "protocol errors");
        Await.until(TIMEOUT, () -> serverNode.counters().connectionsClosed.get() > closedBefore,
            () -> "connections closed");
        assertThat(serverNode.counters().protocolErrors.get()).isEqualTo(protocolErrorsBefore + 1);

        assertThat(earlyConnection.isOpen()).as("connection made before the hostile one").isTrue();
        assertEcho(earlyConnection, "after");
        final Connection lateConnection = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertEcho(lateConnection, "late");
        lateConnection.close();
        assertThat(clientErrors).isEmpty();
    }

    private static void assertEcho(final Connection connection, final String text)
    {
        final Message reply = connection.requestResponse(Message.of(text)).block(TIMEOUT);
        assertThat(reply).isNotNull();
        assertThat(reply.dataUtf8()).isEqualTo("echo:" + text);
    }

    /** Reads everything the server sends until it closes (end of stream or reset), within a deadline. */
    private static byte[] readUntilClosed(final Socket socket) throws IOException
    {
        socket.setSoTimeout(100);
        final InputStream in = socket.getInputStream();
        final ByteArrayOutputStream received = new ByteArrayOutputStream();
        final byte[] chunk = new byte[4096];
        final long deadlineNs = System.nanoTime() + CLOSE_TIMEOUT_NS;
        for (int i = 0; i < MAX_READ_ITERATIONS; i++)
        {
            try
            {
                final int read = in.read(chunk);
                if (read < 0)
                {
                    return received.toByteArray();
                }
                received.write(chunk, 0, read);
            }
            catch (final SocketTimeoutException ex)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    break;
                }
            }
            catch (final SocketException ex)
            {
                return received.toByteArray(); // reset by the server: closed as well
            }
        }
        return fail("server did not close the hostile connection; received " + received.size() + " bytes");
    }

    /** Parses [length LE][frame] records and returns the ERROR frames among them. */
    private static List<ErrorFrame> parseErrors(final byte[] received)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(received);
        final FrameReader reader = new FrameReader();
        final List<ErrorFrame> errors = new ArrayList<>();
        int offset = 0;
        for (int i = 0; i < received.length && offset < received.length; i++)
        {
            assertThat(received.length - offset).as("bytes left for a length prefix")
                .isGreaterThanOrEqualTo(TcpLink.LENGTH_PREFIX_LENGTH);
            final int length = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
            assertThat(length).as("length prefix from the server").isBetween(1, received.length - offset - 4);
            assertThat(reader.wrap(buffer, offset + TcpLink.LENGTH_PREFIX_LENGTH, length))
                .as("server frame well formed: %s", reader.error()).isTrue();
            if (reader.frameType() == FrameType.ERROR)
            {
                errors.add(new ErrorFrame(reader.streamId(), reader.errorCode(), reader.text()));
            }
            else
            {
                assertThat(reader.frameType()).as("frame type before close").isIn(FrameType.SETUP, FrameType.KEEPALIVE);
            }
            offset += TcpLink.LENGTH_PREFIX_LENGTH + length;
        }
        return errors;
    }

    /** A valid SETUP whose keepalive (scaled) keeps the raw peer from being dropped as silent mid-test. */
    private byte[] setup()
    {
        return prefixed(setup(1, (int)TestTime.millis(1000), (int)TestTime.millis(5000), SERVER_MAX_FRAME_LENGTH));
    }

    private byte[] setup(final int version, final int keepaliveMs, final int timeoutMs, final int maxFrameLength)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.setupLength(0, 0)]);
        final int length = writer.writeSetup(buffer, 0, version, keepaliveMs, timeoutMs, maxFrameLength, NONE, NONE);
        return Arrays.copyOf(buffer.byteArray(), length);
    }

    private byte[] payloadFrame(
        final int type, final int streamId, final int initialRequestN, final byte flags, final byte[] data)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[FrameWriter.payloadFrameLength(type, 0, data.length)]);
        final int length = writer.writePayloadFrame(buffer, 0, type, streamId, initialRequestN, flags,
            null, 0, 0, new UnsafeBuffer(data), 0, data.length);
        return Arrays.copyOf(buffer.byteArray(), length);
    }

    private static byte[] prefixed(final byte[] frame)
    {
        return concat(lengthPrefix(frame.length), frame);
    }

    private static byte[] lengthPrefix(final int length)
    {
        return ByteBuffer.allocate(TcpLink.LENGTH_PREFIX_LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array();
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] part : parts)
        {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int port(final String address)
    {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    private static final class ErrorFrame
    {
        final int streamId;
        final int code;
        final String text;

        ErrorFrame(final int streamId, final int code, final String text)
        {
            this.streamId = streamId;
            this.code = code;
            this.text = text;
        }
    }
}
