package io.rivulet.transport.rdma;

import io.rivulet.tck.Await;
import io.rivulet.transport.rdma.jni.NativeLibrary;
import io.rivulet.transport.rdma.jni.NativeLibraryTestSupport;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
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
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The verbs SPI on a real device, for any hardware provider: RC connections through RDMA CM (set-up, reject, no
 * listener, disconnect), SEND/RECV with receives posted before the accept, inline sends, WRITE/READ with the rkey,
 * immediate data, atomics, a wrong rkey, and UD datagrams with address handles, between two contexts on this host's
 * RDMA address (the device loops traffic back). A subclass names the provider; each test is skipped, with the
 * reason, when the provider or an RDMA address is not there.
 *
 * <p>The fixture drives both contexts' connection managers ({@code pollConnectionEvents}) in every wait, as the
 * engine's conductor does: a hardware provider makes progress only when its context is polled.
 *
 * <pre>
 * mvn -B install -DskipTests
 * mvn -B -pl transport-rdma test -Dgroups=rdma-hardware -Drivulet.rdma.address=&lt;ip of the RDMA interface&gt;
 * </pre>
 *
 * Without {@code -Drivulet.rdma.address} the first IPv4 address of an interface with an RDMA device is used.
 */
public abstract class VerbsHardwareSuite
{
    private static final long AWAIT_NS = HardwareRdma.timeoutNs(20);
    private static final Duration AWAIT = Duration.ofNanos(AWAIT_NS);
    protected static final int BUFFER = 64 * 1024;
    protected static final int LOCAL = Access.LOCAL_WRITE;
    protected static final int REMOTE = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;
    protected static final int QKEY = 0x1111_2222;
    protected static final int GRH = 40;

    protected final List<AutoCloseable> resources = new ArrayList<>();
    protected VerbsProvider provider;
    protected InetAddress address;

    protected Side server;
    protected Side client;
    protected CmListener listener;

    /** @return the provider under test; a new one per test. */
    protected abstract VerbsProvider provider();

    /** @return entries of each completion queue; queue pairs get half each way. */
    protected int depth()
    {
        return 64;
    }

    @BeforeEach
    void requireRdma() throws IOException
    {
        provider = provider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> provider.name() + " unavailable: " + availability.reason());
        address = HardwareRdma.address();
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -D" + HardwareRdma.ADDRESS_PROP +
            "=<ip>");

        server = new Side(open(), depth());
        client = new Side(open(), depth());
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
        assertThat(server.context.providerName()).isEqualTo(provider.name());
        assertThat(server.context.deviceName()).isNotBlank();
        assertThat(listener.localAddress().getPort()).isPositive();
        // Only a region registered for remote access needs a usable rkey: rxe gives 0 to one without, mlx5 does not.
        assertThat(server.remoteRegion.rkey()).isNotZero();
        assertThat(server.remoteRegion.lkey()).isNotZero();
        final DeviceAttributes attributes = server.context.attributes();
        assertThat(attributes.maxQpWorkRequests()).isGreaterThanOrEqualTo(64);
        assertThat(attributes.maxCqEntries()).isGreaterThanOrEqualTo(64);

        if (NativeLibrary.status().loaded())
        {
            final QueuePair ud = server.context.createUdQueuePair(server.config(0, QKEY));
            resources.add(ud);
            assertThat(ud.state()).isEqualTo(QpState.RTS);
            assertThat(ud.udAddress().qkey()).isEqualTo(QKEY);
            assertThatThrownBy(() -> server.context.createAddressHandle(server.pd, new UdAddress("gid", 1, 2)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("malformed UD address gid 'gid'");
        }
        else
        {
            assertThatThrownBy(() -> server.context.createUdQueuePair(server.config(0, QKEY)))
                .isInstanceOf(VerbsException.class).hasMessageContaining("needs librivulet-verbs");
        }
    }

    @Test
    void shouldSendAndReceiveUdDatagramsThroughTheJniExtension() throws IOException
    {
        NativeLibraryTestSupport.requireLibrary();
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
        assertThat(received.hasGrh()).as("RoCE always carries a GRH").isTrue();
        assertThat(received.immData()).isEqualTo(0x0a0b0c0d);
        assertThat(bytes(server.recvRegion, GRH, message.length)).isEqualTo(message);
    }

    @Test
    void shouldBringAUdQueuePairBackFromErrorWithItsNumber() throws IOException
    {
        NativeLibraryTestSupport.requireLibrary();
        final QueuePair receiver = server.context.createUdQueuePair(server.config(0, QKEY));
        resources.add(receiver);
        final QueuePair sender = client.context.createUdQueuePair(client.config(0, QKEY));
        resources.add(sender);
        final AddressHandle route = client.context.createAddressHandle(client.pd, receiver.udAddress());
        resources.add(route);
        final int number = receiver.qpNumber();

        // a receive too small for the datagram fails (mlx5 reports LOCAL_LENGTH_ERROR, rxe LOCAL_QP_OPERATION_ERROR),
        // and the queue pair goes to ERROR
        receiver.postReceive(new ReceiveWorkRequest().set(1, server.recvRegion.address(), GRH + 4,
            server.recvRegion.lkey()));
        sendDatagram(sender, route, receiver, 64);
        final WorkCompletion tooSmall = await(server.recvCq);
        assertThat(tooSmall.wrId()).isEqualTo(1);
        assertThat(tooSmall.status()).isIn(WcStatus.LOCAL_LENGTH_ERROR, WcStatus.LOCAL_QP_OPERATION_ERROR);
        assertThat(receiver.state()).isEqualTo(QpState.ERROR);

        receiver.recover();
        assertThat(receiver.state()).isEqualTo(QpState.RTS);
        assertThat(receiver.qpNumber()).isEqualTo(number);
        receiver.postReceive(new ReceiveWorkRequest().set(2, server.recvRegion.address(), 4096 + GRH,
            server.recvRegion.lkey()));
        sendDatagram(sender, route, receiver, 64);
        final WorkCompletion received = await(server.recvCq);
        assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.wrId()).isEqualTo(2);
        assertThat(received.byteLength()).isEqualTo(GRH + 64);
    }

    @Test
    void shouldCompareAndSwapAndFetchAndAddRemoteMemory() throws IOException
    {
        NativeLibraryTestSupport.requireLibrary();
        final Connected pair = connect(0);
        final MemoryRegion target = server.remoteRegion;
        target.buffer().putLong(64, 0);
        final long word = target.address() + 64;

        assumeTrue(server.context.attributes().supportsAtomics(), "the device has no atomics (atomic_cap NONE)");
        // the word in the target's memory is in the device's byte order (host order on rxe, unverified on mlx5);
        // the original value a requester gets back is in host order on both, as the local buffer is read here
        assertThat(atomic(pair, Opcode.ATOMIC_CMP_AND_SWP, word, 0, 0x1234_5678_9abc_def0L))
            .as("original value").isZero();
        assertThat(target.buffer().getLong(64)).isIn(0x1234_5678_9abc_def0L, Long.reverseBytes(0x1234_5678_9abc_def0L));
        assertThat(atomic(pair, Opcode.ATOMIC_CMP_AND_SWP, word, 7, 99)).as("failed compare").isEqualTo(0x1234_5678_9abc_def0L);
        assertThat(atomic(pair, Opcode.ATOMIC_FETCH_AND_ADD, word, 3, 0)).isEqualTo(0x1234_5678_9abc_def0L);
        assertThat(atomic(pair, Opcode.ATOMIC_CMP_AND_SWP, word, 0x1234_5678_9abc_def3L, 5))
            .isEqualTo(0x1234_5678_9abc_def3L);
        assertThat(atomic(pair, Opcode.ATOMIC_FETCH_AND_ADD, word, 0, 0)).isEqualTo(5);
    }

    protected long atomic(final Connected pair, final Opcode opcode, final long remote, final long compareAdd,
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
    void shouldSendInline() throws IOException
    {
        final Connected pair = connect(64);
        for (int i = 0; i < 50; i++)
        {
            pair.serverQp.postReceive(new ReceiveWorkRequest().set(i % 8, server.recvRegion.address() + (i % 8) * 256L,
                256, server.recvRegion.lkey()));
            client.sendRegion.buffer().putInt(0, i);
            pair.clientQp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.SEND)
                .flags(SendWorkRequest.SIGNALED | SendWorkRequest.INLINE)
                .addSge(client.sendRegion.address(), 32, client.sendRegion.lkey()));
            // inline: the device copied the bytes at post time, so overwriting them now changes nothing sent
            client.sendRegion.buffer().putInt(0, -1);
            assertThat(await(client.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            final WorkCompletion received = await(server.recvCq);
            assertThat(received.byteLength()).isEqualTo(32);
            assertThat(server.recvRegion.buffer().getInt((i % 8) * 256)).isEqualTo(i);
        }
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

        Await.until(AWAIT, this::pollEventsAsStep, pair.serverConnection::isDisconnected, () -> "DISCONNECTED");
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

    /** Takes both contexts' connection manager events, as each node's conductor would. */
    protected void pollEvents() throws IOException
    {
        server.context.pollConnectionEvents();
        client.context.pollConnectionEvents();
    }

    protected Connected connect(final int maxInlineData) throws IOException
    {
        return connect(maxInlineData, serverQp -> {});
    }

    protected Connected connect(final int maxInlineData, final BeforeAccept beforeAccept) throws IOException
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
                fail("connection not established within " + TimeUnit.NANOSECONDS.toSeconds(AWAIT_NS) + " s: " +
                    clientConnection + ", " + serverConnection);
            }
            pollEvents();
            Thread.onSpinWait();
        }
        assertThat(clientQp.state()).isEqualTo(QpState.RTS);
        assertThat(serverQp.state()).isEqualTo(QpState.RTS);
        assertThat(clientConnection.remoteAddress()).isEqualTo(listener.localAddress());
        return new Connected(clientConnection, serverConnection, clientQp, serverQp);
    }

    protected CmRequest awaitRequest() throws IOException
    {
        return Await.value(AWAIT, () ->
        {
            // the client's context must progress too: it resolves the address and route and sends the request
            pollEvents();
            return listener.poll();
        }, () -> "a connection request");
    }

    protected void awaitEstablished(final CmConnection connection) throws IOException
    {
        Await.until(AWAIT, this::pollEventsAsStep, () -> null != connection.poll(),
            () -> "established or failed: " + connection);
    }

    protected WorkCompletion await(final CompletionQueue cq) throws IOException
    {
        final WorkCompletion[] completions = {new WorkCompletion()};
        Await.until(AWAIT, this::pollEventsAsStep, () -> cq.poll(completions) != 0, () -> "a completion on " + cq);
        return completions[0];
    }

    private int pollEventsAsStep() throws IOException
    {
        pollEvents();
        return 0;
    }

    protected static byte[] bytes(final MemoryRegion region, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        region.buffer().get(offset, bytes);
        return bytes;
    }

    protected VerbsContext open() throws IOException
    {
        final VerbsContext context = provider.open(address);
        resources.add(context);
        return context;
    }

    @FunctionalInterface
    protected interface BeforeAccept
    {
        void prepare(QueuePair serverQp) throws IOException;
    }

    protected record Connected(
        CmConnection clientConnection, CmConnection serverConnection, QueuePair clientQp, QueuePair serverQp)
    {
    }

    /** One context with its PD, CQs and registered buffers. */
    protected final class Side
    {
        public final VerbsContext context;
        public final ProtectionDomain pd;
        public final CompletionQueue sendCq;
        public final CompletionQueue recvCq;
        public final MemoryRegion sendRegion;
        public final MemoryRegion recvRegion;
        public final MemoryRegion remoteRegion;
        final int depth;

        Side(final VerbsContext context, final int depth) throws IOException
        {
            this.context = context;
            this.depth = depth;
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(depth);
            recvCq = context.createCompletionQueue(depth);
            // native order: an atomic's original value lands in host order
            sendRegion = pd.register(ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.nativeOrder()), LOCAL);
            recvRegion = pd.register(ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.nativeOrder()), LOCAL);
            remoteRegion = pd.register(ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.nativeOrder()), REMOTE);
        }

        public QueuePairConfig config(final int maxInlineData)
        {
            return config(maxInlineData, 0);
        }

        public QueuePairConfig config(final int maxInlineData, final int qkey)
        {
            return new QueuePairConfig(pd, sendCq, recvCq, depth / 2, depth / 2, maxInlineData, 7, 7, qkey);
        }
    }

    private void sendDatagram(final QueuePair sender, final AddressHandle route, final QueuePair receiver,
        final int length) throws IOException
    {
        sender.postSend(new SendWorkRequest().wrId(length).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
            .addSge(client.sendRegion.address(), length, client.sendRegion.lkey())
            .ud(route, receiver.qpNumber(), QKEY));
        assertThat(await(client.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
    }
}
