package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real RC connections (and, with the JNI extension, UD datagrams and atomics) over DiSNI between two
 * contexts on this host's RDMA address (the device loops traffic back). Needs libdisni, an RDMA device (a ConnectX port, or a SoftiWARP/Soft-RoCE device for a
 * functional check) and its interface's IPv4 address; skipped with the reason otherwise.
 *
 * <pre>
 * mvn -B install -DskipTests
 * LD_LIBRARY_PATH=/usr/local/lib mvn -B -pl transport-rdma test -Dgroups=rdma-hardware -Drivulet.rdma.address=&lt;ip&gt;
 * </pre>
 *
 * Without {@code -Drivulet.rdma.address} the first IPv4 address of an interface with an RDMA device is used.
 */
@Tag("rdma-hardware")
class DisniHardwareTest
{
    static final String ADDRESS_PROP = "rivulet.rdma.address";
    private static final long AWAIT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final int BUFFER = 64 * 1024;
    private static final int LOCAL = Access.LOCAL_WRITE;
    private static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;
    private static final int QKEY = 0x1111_2222;
    private static final int GRH = 40;

    private final DisniVerbsProvider provider = new DisniVerbsProvider();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private InetAddress address;

    private Side server;
    private Side client;
    private CmListener listener;

    @BeforeEach
    void requireRdma() throws IOException
    {
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "disni unavailable: " + availability.reason());
        address = rdmaAddress();
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -D" + ADDRESS_PROP + "=<ip>");

        server = new Side(open(), 64);
        client = new Side(open(), 64);
        listener = server.context.listen(new InetSocketAddress(address, 0), 16);
        resources.add(listener);
    }

    @AfterEach
    void closeAll()
    {
        Collections.reverse(resources);
        for (final AutoCloseable resource : resources)
        {
            try
            {
                resource.close();
            }
            catch (final Exception ex)
            {
                // best effort: the contexts free what is left
            }
        }
    }

    @Test
    void shouldOpenTheDeviceAndUseTheJniExtensionOnlyWhenLoaded() throws IOException
    {
        assertThat(server.context.providerName()).isEqualTo("disni");
        assertThat(server.context.deviceName()).isNotBlank();
        assertThat(listener.localAddress().getPort()).isPositive();
        assertThat(server.recvRegion.rkey()).isNotZero();

        if (NativeVerbsLibrary.status().loaded())
        {
            final QueuePair ud = server.context.createUdQueuePair(server.config(0, QKEY));
            resources.add(ud);
            assertThat(ud.state()).isEqualTo(QpState.RTS);
            assertThat(ud.udAddress().qkey()).isEqualTo(QKEY);
            assertThatThrownBy(() -> server.context.createAddressHandle(server.pd, new UdAddress("gid", 1, 2)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("malformed disni UD address gid 'gid'");
        }
        else
        {
            assertThatThrownBy(() -> server.context.createUdQueuePair(server.config(0, QKEY)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("needs Rivulet's JNI extension");
        }
    }

    @Test
    void shouldSendAndReceiveUdDatagramsThroughTheJniExtension() throws IOException
    {
        NativeVerbsTestSupport.requireLibrary();
        final QueuePair receiver = server.context.createUdQueuePair(server.config(0, QKEY));
        resources.add(receiver);
        final QueuePair sender = client.context.createUdQueuePair(client.config(0, QKEY));
        resources.add(sender);
        final AddressHandle route = client.context.createAddressHandle(client.pd, receiver.udAddress());
        resources.add(route);
        assertThat(route.destination()).isEqualTo(receiver.udAddress());

        receiver.postReceive(new ReceiveWorkRequest().set(31, server.recvRegion.address(), 4096 + GRH,
            server.recvRegion.lkey()));
        final byte[] message = "hello over UD".getBytes(StandardCharsets.US_ASCII);
        client.sendRegion.buffer().put(0, message);
        sender.postSend(new SendWorkRequest().wrId(8).opcode(Opcode.SEND_WITH_IMM).immData(0x0a0b0c0d)
            .flags(SendWorkRequest.SIGNALED).addSge(client.sendRegion.address(), message.length, client.sendRegion.lkey())
            .ud(route, receiver.qpNumber(), QKEY));

        final WorkCompletion sent = await(client.sendCq);
        assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(sent.wrId()).isEqualTo(8);
        final WorkCompletion received = await(server.recvCq);
        assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.wrId()).isEqualTo(31);
        assertThat(received.byteLength()).as("GRH + payload").isEqualTo(GRH + message.length);
        assertThat(received.sourceQpNumber()).isEqualTo(sender.qpNumber());
        assertThat(received.immData()).isEqualTo(0x0a0b0c0d);
        assertThat(bytes(server.recvRegion, GRH, message.length)).isEqualTo(message);
    }

    @Test
    void shouldCompareAndSwapAndFetchAndAddRemoteMemory() throws IOException
    {
        NativeVerbsTestSupport.requireLibrary();
        final Connected pair = connect(0);
        final MemoryRegion target = server.remoteRegion;
        target.buffer().putLong(64, 0);
        final long word = target.address() + 64;

        // the device's byte order for the word is its own: compare only with values it wrote itself
        assertThat(atomic(pair, Opcode.ATOMIC_CMP_AND_SWP, word, 0, 0x1234_5678_9abc_def0L))
            .as("original value").isZero();
        assertThat(target.buffer().getLong(64)).isIn(0x1234_5678_9abc_def0L, Long.reverseBytes(0x1234_5678_9abc_def0L));
        assertThat(atomic(pair, Opcode.ATOMIC_CMP_AND_SWP, word, 7, 99)).as("failed compare").isEqualTo(0x1234_5678_9abc_def0L);
        assertThat(atomic(pair, Opcode.ATOMIC_FETCH_AND_ADD, word, 3, 0)).isEqualTo(0x1234_5678_9abc_def0L);
        assertThat(atomic(pair, Opcode.ATOMIC_CMP_AND_SWP, word, 0x1234_5678_9abc_def3L, 5))
            .isEqualTo(0x1234_5678_9abc_def3L);
        assertThat(atomic(pair, Opcode.ATOMIC_FETCH_AND_ADD, word, 0, 0)).isEqualTo(5);
    }

    private long atomic(final Connected pair, final Opcode opcode, final long remote, final long compareAdd,
        final long swap) throws IOException
    {
        client.recvRegion.buffer().putLong(0, -1);
        pair.clientQp.postSend(new SendWorkRequest().wrId(opcode.ordinal()).opcode(opcode)
            .flags(SendWorkRequest.SIGNALED).addSge(client.recvRegion.address(), 8, client.recvRegion.lkey())
            .remote(remote, server.remoteRegion.rkey()).atomic(compareAdd, swap));
        final WorkCompletion done = await(client.sendCq);
        assertThat(done.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(done.opcode()).isEqualTo(opcode.completion());
        return client.recvRegion.buffer().getLong(0);
    }

    @Test
    void shouldSendAndReceive() throws IOException
    {
        // posted while the server's queue pair is still in INIT, before its accept goes out
        final Connected pair = connect(0, serverQp -> serverQp.postReceive(new ReceiveWorkRequest().set(
            100, server.recvRegion.address(), 4096, server.recvRegion.lkey())));

        final byte[] message = "hello over RC".getBytes(StandardCharsets.US_ASCII);
        client.sendRegion.buffer().put(0, message);
        pair.clientQp.postSend(new SendWorkRequest().wrId(7).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
            .addSge(client.sendRegion.address(), message.length, client.sendRegion.lkey()));

        final WorkCompletion sent = await(client.sendCq);
        assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(sent.wrId()).isEqualTo(7);
        assertThat(sent.opcode()).isEqualTo(WcOpcode.SEND);

        final WorkCompletion received = await(server.recvCq);
        assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.wrId()).isEqualTo(100);
        assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(received.byteLength()).isEqualTo(message.length);
        assertThat(received.qpNumber()).isEqualTo(pair.serverQp.qpNumber());
        assertThat(bytes(server.recvRegion, 0, message.length)).isEqualTo(message);
    }

    @Test
    void shouldSendInlineAndReuseThePrebuiltCalls() throws IOException
    {
        final Connected pair = connect(64);
        final int messages = 50;
        for (int i = 0; i < messages; i++)
        {
            pair.serverQp.postReceive(new ReceiveWorkRequest().set(i % 8, server.recvRegion.address() + (i % 8) * 256L,
                256, server.recvRegion.lkey()));
            client.sendRegion.buffer().putInt(0, i);
            pair.clientQp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND)
                .flags(SendWorkRequest.SIGNALED | SendWorkRequest.INLINE)
                .addSge(client.sendRegion.address(), 32, client.sendRegion.lkey()));
            assertThat(await(client.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            final WorkCompletion received = await(server.recvCq);
            assertThat(received.byteLength()).isEqualTo(32);
            assertThat(server.recvRegion.buffer().getInt((i % 8) * 256)).isEqualTo(i);
        }
        final DisniQueuePair clientQp = (DisniQueuePair)pair.clientQp;
        final DisniQueuePair serverQp = (DisniQueuePair)pair.serverQp;
        assertThat(clientQp.sendCallBuilds()).isEqualTo(1);
        assertThat(serverQp.receiveCallBuilds()).isEqualTo(8);
    }

    @Test
    void shouldWriteAndReadRemoteMemoryWithItsRkey() throws IOException
    {
        final Connected pair = connect(0);
        final MemoryRegion target = server.remoteRegion;
        final byte[] payload = "one-sided write".getBytes(StandardCharsets.US_ASCII);
        client.sendRegion.buffer().put(0, payload);

        pair.clientQp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
            .addSge(client.sendRegion.address(), payload.length, client.sendRegion.lkey())
            .remote(target.address() + 1000, target.rkey()));
        final WorkCompletion written = await(client.sendCq);
        assertThat(written.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(written.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(bytes(target, 1000, payload.length)).isEqualTo(payload);

        target.buffer().put(5000, "read me".getBytes(StandardCharsets.US_ASCII));
        pair.clientQp.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
            .addSge(client.recvRegion.address() + 10, 7, client.recvRegion.lkey())
            .remote(target.address() + 5000, target.rkey()));
        final WorkCompletion read = await(client.sendCq);
        assertThat(read.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(read.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(new String(bytes(client.recvRegion, 10, 7), StandardCharsets.US_ASCII)).isEqualTo("read me");
    }

    @Test
    void shouldDeliverImmediateDataOfAWrite() throws IOException
    {
        final Connected pair = connect(0);
        final MemoryRegion target = server.remoteRegion;
        final int[] immediates = {0x01020304, 7, 0x01020304, -1, 7, 42};
        for (int i = 0; i < immediates.length; i++)
        {
            pair.serverQp.postReceive(new ReceiveWorkRequest().set(500 + i, server.recvRegion.address(), 16,
                server.recvRegion.lkey()));
            client.sendRegion.buffer().putLong(0, i);
            pair.clientQp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE_WITH_IMM)
                .flags(SendWorkRequest.SIGNALED).immData(immediates[i])
                .addSge(client.sendRegion.address(), 8, client.sendRegion.lkey())
                .remote(target.address() + 8L * i, target.rkey()));

            assertThat(await(client.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            final WorkCompletion received = await(server.recvCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(received.hasImmData()).isTrue();
            assertThat(received.immData()).isEqualTo(immediates[i]);
            assertThat(target.buffer().getLong(8 * i)).isEqualTo(i);
        }
    }

    @Test
    void shouldReportAWrongRkeyAsARemoteAccessError() throws IOException
    {
        final Connected pair = connect(0);
        final MemoryRegion target = server.remoteRegion;
        pair.clientQp.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
            .addSge(client.sendRegion.address(), 8, client.sendRegion.lkey())
            .remote(target.address(), target.rkey() ^ 0x5a5a00));

        final WorkCompletion failed = await(client.sendCq);
        assertThat(failed.wrId()).isEqualTo(9);
        assertThat(failed.status()).isIn(WcStatus.REMOTE_ACCESS_ERROR, WcStatus.REMOTE_INVALID_REQUEST_ERROR);
        assertThat(failed.qpNumber()).as("the CQ has one queue pair").isEqualTo(pair.clientQp.qpNumber());
        assertThat(pair.clientQp.state()).isEqualTo(QpState.ERROR);
    }

    @Test
    void shouldSeeThePeerDisconnect() throws IOException
    {
        final Connected pair = connect(0);
        pair.clientConnection.close();

        final long deadline = System.nanoTime() + AWAIT_NS;
        while (!pair.serverConnection.isDisconnected())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("no DISCONNECTED within 20 s");
            }
            Thread.onSpinWait();
        }
        assertThat(pair.serverQp.state()).isEqualTo(QpState.ERROR);
        assertThat(pair.clientConnection.isDisconnected()).isTrue();
    }

    @Test
    void shouldFailAConnectionTheListenerRejects() throws IOException
    {
        final CmConnection connection = client.context.connect(listener.localAddress(), client.config(0));
        resources.add(connection);
        final CmRequest request = awaitRequest();
        request.reject();

        assertThatThrownBy(() -> awaitEstablished(connection))
            .isInstanceOf(IOException.class)
            .hasMessageContaining(listener.localAddress().toString())
            .hasMessageContaining("REJECTED");
    }

    @Test
    void shouldFailAConnectionToAPortWithoutListener() throws IOException
    {
        final int unusedPort;
        try (ServerSocket probe = new ServerSocket(0))
        {
            unusedPort = probe.getLocalPort();
        }
        final InetSocketAddress nobody = new InetSocketAddress(address, unusedPort);
        final CmConnection connection = client.context.connect(nobody, client.config(0));
        resources.add(connection);

        assertThatThrownBy(() -> awaitEstablished(connection))
            .isInstanceOf(IOException.class)
            .hasMessageContaining(nobody.toString());
    }

    // ---------------------------------------------------------------- fixture

    private Connected connect(final int maxInlineData) throws IOException
    {
        return connect(maxInlineData, serverQp -> {});
    }

    private Connected connect(final int maxInlineData, final BeforeAccept beforeAccept) throws IOException
    {
        final CmConnection clientConnection = client.context.connect(listener.localAddress(), client.config(maxInlineData));
        resources.add(clientConnection);
        final CmRequest request = awaitRequest();
        assertThat(request.remoteAddress().getAddress()).isEqualTo(address);
        final CmConnection serverConnection = request.accept(server.config(maxInlineData));
        resources.add(serverConnection);
        assertThat(serverConnection.queuePair().state()).isEqualTo(QpState.INIT);
        beforeAccept.prepare(serverConnection.queuePair());

        QueuePair clientQp = null;
        QueuePair serverQp = null;
        final long deadline = System.nanoTime() + AWAIT_NS;
        while (null == clientQp || null == serverQp)
        {
            if (null == serverQp)
            {
                serverQp = serverConnection.poll();
            }
            if (null == clientQp)
            {
                clientQp = clientConnection.poll();
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("connection not established within 20 s: " + clientConnection + ", " + serverConnection);
            }
            Thread.onSpinWait();
        }
        assertThat(clientQp.state()).isEqualTo(QpState.RTS);
        assertThat(serverQp.state()).isEqualTo(QpState.RTS);
        assertThat(clientConnection.remoteAddress()).isEqualTo(listener.localAddress());
        return new Connected(clientConnection, serverConnection, clientQp, serverQp);
    }

    private CmRequest awaitRequest() throws IOException
    {
        final long deadline = System.nanoTime() + AWAIT_NS;
        while (true)
        {
            final CmRequest request = listener.poll();
            if (null != request)
            {
                return request;
            }
            if (System.nanoTime() - deadline > 0)
            {
                return fail("no connection request within 20 s");
            }
            Thread.onSpinWait();
        }
    }

    private static void awaitEstablished(final CmConnection connection) throws IOException
    {
        final long deadline = System.nanoTime() + AWAIT_NS;
        while (null == connection.poll())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("neither established nor failed within 20 s: " + connection);
            }
            Thread.onSpinWait();
        }
    }

    private static WorkCompletion await(final CompletionQueue cq) throws IOException
    {
        final WorkCompletion[] completions = {new WorkCompletion()};
        final long deadline = System.nanoTime() + AWAIT_NS;
        while (cq.poll(completions) == 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("no completion within 20 s on " + cq);
            }
            Thread.onSpinWait();
        }
        return completions[0];
    }

    private static byte[] bytes(final MemoryRegion region, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        region.buffer().get(offset, bytes);
        return bytes;
    }

    private VerbsContext open() throws IOException
    {
        final VerbsContext context = provider.open(address);
        resources.add(context);
        return context;
    }

    private static InetAddress rdmaAddress() throws IOException
    {
        final String configured = System.getProperty(ADDRESS_PROP);
        if (null != configured && !configured.isBlank())
        {
            return InetAddress.getByName(configured.strip());
        }
        return DisniVerbsProvider.rdmaInterfaceAddress().orElse(null);
    }

    @FunctionalInterface
    private interface BeforeAccept
    {
        void prepare(QueuePair serverQp) throws IOException;
    }

    private record Connected(
        CmConnection clientConnection, CmConnection serverConnection, QueuePair clientQp, QueuePair serverQp)
    {
    }

    /** One context with its PD, CQs and registered buffers. */
    private final class Side
    {
        final VerbsContext context;
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final MemoryRegion sendRegion;
        final MemoryRegion recvRegion;
        final MemoryRegion remoteRegion;
        final int depth;

        Side(final VerbsContext context, final int depth) throws IOException
        {
            this.context = context;
            this.depth = depth;
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(depth);
            recvCq = context.createCompletionQueue(depth);
            sendRegion = pd.register(ByteBuffer.allocateDirect(BUFFER), LOCAL);
            recvRegion = pd.register(ByteBuffer.allocateDirect(BUFFER), LOCAL);
            remoteRegion = pd.register(ByteBuffer.allocateDirect(BUFFER), REMOTE);
        }

        QueuePairConfig config(final int maxInlineData)
        {
            return config(maxInlineData, 0);
        }

        QueuePairConfig config(final int maxInlineData, final int qkey)
        {
            return new QueuePairConfig(pd, sendCq, recvCq, depth / 2, depth / 2, maxInlineData, 7, 7, qkey);
        }
    }
}
