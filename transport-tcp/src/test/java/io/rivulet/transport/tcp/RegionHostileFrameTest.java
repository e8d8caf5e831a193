package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.region.ExposedRegion;
import io.rivulet.region.RegionAccess;
import io.rivulet.region.RegionAccessException;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Region frames from a raw socket, as a hostile peer sends them: operations the engine must refuse with a
 * REGION_ERROR (and leave the region's bytes alone) while the connection goes on, and answers nobody asked for,
 * which close that connection with a protocol error while the node keeps serving everyone else.
 */
class RegionHostileFrameTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);
    private static final int READ_TIMEOUT_MS = (int)TestTime.millis(10_000);
    private static final int LENGTH = 64 * 1024;

    private final List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[64 * 1024]);
    private Rivulet serverNode;
    private Server server;
    private ExposedRegion region;
    private final byte[] original = new byte[LENGTH];

    @BeforeEach
    void launch()
    {
        serverNode = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport()).errorHandler(serverErrors::add));
        server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8()))).build()).block(TIMEOUT);
        region = serverNode.exposeRegion("guarded", LENGTH, RegionAccess.READ, RegionAccess.ATOMIC);
        Arrays.fill(original, (byte)0x5C);
        region.buffer().putBytes(0, original);
    }

    @AfterEach
    void close()
    {
        serverNode.close();
    }

    @Test
    @ScaledTimeout(60)
    void shouldRefuseOperationsTheRegionDoesNotAllowAndKeepTheConnection() throws IOException
    {
        try (Socket socket = connect())
        {
            final int id = region.id();
            final int rkey = region.rkey();
            final UnsafeBuffer eight = new UnsafeBuffer(new byte[8]);
            expectRegionError(socket, op(1, id, rkey, FrameReader.REGION_OP_READ, Long.MAX_VALUE - 4, 8, null),
                RegionAccessException.Reason.OUT_OF_BOUNDS);
            expectRegionError(socket, op(2, id, rkey, FrameReader.REGION_OP_READ, LENGTH - 7, 8, null),
                RegionAccessException.Reason.OUT_OF_BOUNDS);
            expectRegionError(socket, op(3, id, rkey, FrameReader.REGION_OP_WRITE, 0, 8, eight),
                RegionAccessException.Reason.PERMISSION);
            expectRegionError(socket, op(4, id, rkey ^ 1, FrameReader.REGION_OP_READ, 0, 8, null),
                RegionAccessException.Reason.BAD_KEY);
            expectRegionError(socket, op(5, id, rkey, FrameReader.REGION_OP_FETCH_AND_ADD, 4, 8, null),
                RegionAccessException.Reason.MISALIGNED);
            expectRegionError(socket, op(6, id + 1000, rkey, FrameReader.REGION_OP_READ, 0, 8, null),
                RegionAccessException.Reason.NOT_FOUND);
            expectRegionError(socket, op(7, id, rkey, FrameReader.REGION_OP_READ, 0, 60_000, null),
                RegionAccessException.Reason.UNSUPPORTED);
            // Still serving this connection: a valid read returns the region's bytes.
            send(socket, op(8, id, rkey, FrameReader.REGION_OP_READ, 100, 16, null));
            final UnsafeBuffer reply = nextRegionFrame(socket);
            assertThat(reader.wrap(reply, 0, reply.capacity())).isTrue();
            assertThat(reader.frameType()).isEqualTo(FrameType.REGION_OP_RESULT);
            assertThat(reader.requestId()).isEqualTo(8);
            assertThat(reader.dataLength()).isEqualTo(16);
            assertThat(reply.getByte(reader.dataOffset())).isEqualTo((byte)0x5C);
        }
        final byte[] after = new byte[LENGTH];
        region.buffer().getBytes(0, after);
        assertThat(after).isEqualTo(original);
        assertThat(serverNode.counters().protocolErrors.get()).isZero();
    }

    @Test
    @ScaledTimeout(60)
    void shouldCloseAConnectionThatAnswersWhatWasNeverAsked() throws IOException
    {
        assertClosedForViolation(info(77));
        assertClosedForViolation(result(78));
        assertClosedForViolation(error(79));
        assertThat(serverNode.counters().protocolErrors.get()).isEqualTo(3);
        try (Rivulet client = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport())))
        {
            final Connection connection = client.connect(server.localAddress()).block(TIMEOUT);
            assertThat(connection.requestResponse(Message.of("still")).block(TIMEOUT).dataUtf8()).isEqualTo("echo:still");
            assertThat(connection.remoteRegion("guarded").block(TIMEOUT).read(0, 8).block(TIMEOUT).getByte(0))
                .isEqualTo((byte)0x5C);
        }
    }

    private void assertClosedForViolation(final byte[] frame) throws IOException
    {
        try (Socket socket = connect())
        {
            send(socket, frame);
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            socket.setSoTimeout(READ_TIMEOUT_MS);
            while (true)
            {
                final byte[] received;
                try
                {
                    received = readFrame(in);
                }
                catch (final EOFException | SocketException closed)
                {
                    throw new AssertionError("closed without an ERROR frame");
                }
                final UnsafeBuffer buffer = new UnsafeBuffer(received);
                assertThat(reader.wrap(buffer, 0, received.length)).isTrue();
                if (reader.frameType() == FrameType.ERROR)
                {
                    assertThat(reader.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR.value());
                    assertThat(reader.text()).contains("REGION_");
                    return;
                }
            }
        }
    }

    private void expectRegionError(final Socket socket, final byte[] frame, final RegionAccessException.Reason reason)
        throws IOException
    {
        send(socket, frame);
        final UnsafeBuffer reply = nextRegionFrame(socket);
        assertThat(reader.wrap(reply, 0, reply.capacity())).isTrue();
        assertThat(reader.frameType()).as("reply to %s", reason).isEqualTo(FrameType.REGION_ERROR);
        assertThat(reader.errorCode()).as(reader.text()).isEqualTo(reason.code());
        assertThat(reader.text()).isNotBlank();
    }

    /** @return the next region frame the server sends, skipping its SETUP answer and keepalives. */
    private UnsafeBuffer nextRegionFrame(final Socket socket) throws IOException
    {
        socket.setSoTimeout(READ_TIMEOUT_MS);
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        for (int i = 0; i < 1000; i++)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(readFrame(in));
            assertThat(reader.wrap(buffer, 0, buffer.capacity())).as("%s", reader.error()).isTrue();
            if (FrameType.isRegion(reader.frameType()))
            {
                return buffer;
            }
            assertThat(reader.frameType()).isIn(FrameType.SETUP, FrameType.KEEPALIVE);
        }
        throw new AssertionError("no region frame");
    }

    private static byte[] readFrame(final DataInputStream in) throws IOException
    {
        final byte[] prefix = new byte[4];
        in.readFully(prefix);
        final int length = ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getInt();
        assertThat(length).isBetween(1, 1 << 20);
        final byte[] frame = new byte[length];
        in.readFully(frame);
        return frame;
    }

    private Socket connect() throws IOException
    {
        final Socket socket = new Socket();
        final String address = server.localAddress();
        socket.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(address.substring(address.lastIndexOf(':') + 1))),
            (int)TestTime.millis(5_000));
        // Keepalive scaled, so that the node does not take the raw peer for a silent one mid-test.
        final int length = writer.writeSetup(scratch, 0, 1, (int)TestTime.millis(1000), (int)TestTime.millis(5000),
            16 * 1024, new byte[0], new byte[0]);
        send(socket, Arrays.copyOf(scratch.byteArray(), length));
        return socket;
    }

    private static void send(final Socket socket, final byte[] frame) throws IOException
    {
        final OutputStream out = socket.getOutputStream();
        out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length).array());
        out.write(frame);
        out.flush();
    }

    private byte[] op(final long requestId, final int regionId, final int rkey, final int op, final long offset,
        final int length, final UnsafeBuffer data)
    {
        final int frame = writer.writeRegionOp(scratch, 0, requestId, regionId, rkey, op, offset, length, 1, 0, data, 0,
            data == null ? 0 : data.capacity());
        return Arrays.copyOf(scratch.byteArray(), frame);
    }

    private byte[] info(final long requestId)
    {
        final int frame = writer.writeRegionInfo(scratch, 0, requestId, 1, 1, 0, 64, 1,
            "127.0.0.1:1".getBytes(StandardCharsets.UTF_8));
        return Arrays.copyOf(scratch.byteArray(), frame);
    }

    private byte[] result(final long requestId)
    {
        return Arrays.copyOf(scratch.byteArray(), writer.writeRegionOpResult(scratch, 0, requestId, 0, null, 0, 0));
    }

    private byte[] error(final long requestId)
    {
        return Arrays.copyOf(scratch.byteArray(), writer.writeRegionError(scratch, 0, requestId, 1, new byte[0]));
    }
}
