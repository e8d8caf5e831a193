package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.tck.Await;
import io.rivulet.transport.rdma.HardwareRdma;
import io.rivulet.transport.rdma.ud.FaultyVerbsContext;
import io.rivulet.transport.rdma.ud.UdDatagramEndpoint;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two {@link UdDatagramEndpoint}s over real UD queue pairs through rdma-core (two contexts on this host's RDMA
 * address; the device loops the traffic back): datagrams both ways, each named with the right peer from the GID in
 * its GRH (RoCE v2 over IPv4 writes an IPv4 header there), although another resolved peer has the sender's QP number;
 * a datagram longer than the receiver's own datagrams (up to the port's MTU) dropped without failing a receive, and
 * one beyond the MTU never delivered; a send the device fails recovered from; address handles made off the calling
 * thread. Skipped, with the reason, without the ibverbs provider or an RDMA address.
 *
 * <pre>
 * mvn -B -pl transport-rdma surefire:test -Dgroups=rdma-hardware -Dtest=IbverbsUdEndpointHardwareTest \
 *     -Drivulet.rdma.address=&lt;ip of the RDMA interface&gt; [-Drivulet.test.timeScale=20]
 * </pre>
 */
@Tag("rdma-hardware")
class IbverbsUdEndpointHardwareTest
{
    private static final int QKEY = 0x2222_1111;
    private static final long AWAIT_NS = HardwareRdma.timeoutNs(20);
    private static final Duration AWAIT = Duration.ofNanos(AWAIT_NS);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ExecutorService addressHandles = Executors.newSingleThreadExecutor(task ->
    {
        final Thread thread = new Thread(task, "test-address-handles");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<Thread> addressHandleThreads = ConcurrentHashMap.newKeySet();
    /** Runs each address handle task on the executor's thread, noting which thread that was. */
    private final Executor recording = task -> addressHandles.execute(() ->
    {
        addressHandleThreads.add(Thread.currentThread());
        task.run();
    });
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[8192]);
    private InetAddress address;
    private IbverbsProvider provider;

    @BeforeEach
    void requireRdma()
    {
        provider = new IbverbsProvider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "ibverbs unavailable: " + availability.reason());
        address = HardwareRdma.address();
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -D" + HardwareRdma.ADDRESS_PROP +
            "=<ip>");
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
        addressHandles.shutdownNow();
    }

    private VerbsContext open() throws IOException
    {
        final VerbsContext context = provider.open(address);
        resources.add(context);
        return context;
    }

    private UdDatagramEndpoint endpoint(final VerbsContext context, final int maxDatagramLength) throws IOException
    {
        final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(context, maxDatagramLength, 64, 32, QKEY, recording);
        resources.add(endpoint);
        return endpoint;
    }

    @Test
    void shouldExchangeDatagramsBothWaysNamingEachSenderByItsGrh() throws IOException
    {
        final VerbsContext contextA = open();
        final int mtu = contextA.udMtu();
        final UdDatagramEndpoint a = endpoint(contextA, mtu);
        final UdDatagramEndpoint b = endpoint(open(), mtu);
        assertThat(a.mtu()).isEqualTo(mtu);
        assertThat(a.localAddress()).endsWith("/" + a.qpNumber() + "/" + QKEY + "/" + mtu);

        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());
        // A peer elsewhere with a's QP number (its GID is another address of the subnet): only the GRH tells them apart.
        final int twinOfA = b.resolve(otherHostGid(gidOf(a.localAddress())) + "/" + a.qpNumber() + "/" + QKEY + "/" +
            mtu);
        Await.until(AWAIT, () -> a.isReachable(bAtA) && b.isReachable(aAtB), () -> "a's and b's address handles");
        assertThat(addressHandleThreads).as("address handles are made off the calling thread").isNotEmpty()
            .doesNotContain(Thread.currentThread());

        final Received atB = new Received();
        atB.expectedPeer = aAtB;
        final Received atA = new Received();
        atA.expectedPeer = bAtA;
        final int count = 1_000;
        for (int i = 0; i < count; i++)
        {
            final int length = 1 + (i * 37) % mtu;
            fill(length, i);
            sendUntilAccepted(a, bAtA, length, atA);
            fill(mtu - (i * 11) % mtu, i + 1);
            sendUntilAccepted(b, aAtB, mtu - (i * 11) % mtu, atB);
            final int expected = i + 1;
            Await.until(AWAIT, () ->
            {
                a.poll(atA, 16);
                b.poll(atB, 16);
                return atA.count >= expected && atB.count >= expected;
            }, () -> "datagram " + expected + " each way");
        }
        assertThat(atB.problems).isEmpty();
        assertThat(atA.problems).isEmpty();
        assertThat(atB.fromPeer).as("b named every datagram a's").isEqualTo(count);
        assertThat(atA.fromPeer).as("a named every datagram b's").isEqualTo(count);
        assertThat(b.unknownPeerDatagrams()).isZero();
        assertThat(twinOfA).isNotEqualTo(aAtB);
        assertThat(a.receiveErrors() + a.sendErrors() + b.receiveErrors() + b.sendErrors()).isZero();
        assertThat(a.recoveries() + b.recoveries()).isZero();
    }

    @Test
    void shouldNeitherFailNorDeliverADatagramLongerThanItsOwnAndNeverSeeOneBeyondTheMtu() throws IOException
    {
        final VerbsContext receiverContext = open();
        final int mtu = receiverContext.udMtu();
        final UdDatagramEndpoint receiver = endpoint(receiverContext, 256);
        final VerbsContext forgerContext = open();
        final UdDatagramEndpoint peer = endpoint(forgerContext, mtu);
        final int peerAtReceiver = receiver.resolve(peer.localAddress());
        final int receiverAtPeer = peer.resolve(receiver.localAddress());
        Await.until(AWAIT, () -> receiver.isReachable(peerAtReceiver) && peer.isReachable(receiverAtPeer),
            () -> "address handles");
        final Forger forger = new Forger(forgerContext, receiver.localAddress());

        // Up to the MTU the receiver's slots take it: dropped as too long for the endpoint, the queue pair unharmed.
        forger.send(mtu);
        final Received received = new Received();
        Await.until(AWAIT, () -> receiver.poll(received, 8) >= 0 && receiver.longDatagrams() == 1,
            () -> "the MTU-sized datagram, dropped");
        // Beyond the MTU the sending device drops it (InfiniBand C10-93.1.1): nothing reaches the receiver.
        forger.send(mtu + 1);
        forger.send(2 * mtu);

        received.expectedPeer = peerAtReceiver;
        fill(200, 7);
        sendUntilAccepted(peer, receiverAtPeer, 200, received);
        Await.until(AWAIT, () -> receiver.poll(received, 8) >= 0 && received.count == 1, () -> "a datagram after them");
        assertThat(received.problems).isEmpty();
        assertThat(received.fromPeer).isEqualTo(1);
        assertThat(receiver.longDatagrams()).as("the two beyond the MTU never arrived").isEqualTo(1);
        assertThat(receiver.receiveErrors()).isZero();
        assertThat(receiver.recoveries()).isZero();
    }

    @Test
    void shouldRecoverFromASendTheDeviceFailedAndKeepServing() throws IOException
    {
        final VerbsContext contextA = open();
        final int mtu = contextA.udMtu();
        final FaultyVerbsContext faulty = new FaultyVerbsContext(contextA);
        final UdDatagramEndpoint a = endpoint(faulty, mtu);
        final UdDatagramEndpoint b = endpoint(open(), mtu);
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());
        Await.until(AWAIT, () -> a.isReachable(bAtA) && b.isReachable(aAtB), () -> "address handles");
        final int number = a.qpNumber();

        for (int round = 1; round <= 3; round++)
        {
            // A send with a local key the device does not know: an error completion, the queue pair out of RTS.
            faulty.spoilSends = 1;
            fill(64, round);
            sendUntilAccepted(a, bAtA, 64, new Received());
            final int expected = round;
            Await.until(AWAIT, () -> a.poll(new Received(), 8) >= 0 && a.recoveries() == expected,
                () -> "recovery " + expected);
            assertThat(a.sendErrors()).isGreaterThanOrEqualTo(round);
            assertThat(a.qpNumber()).isEqualTo(number);
            assertThat(a.freeSendSlots()).isEqualTo(32);
            assertThat(a.sendsCompleted()).isEqualTo(a.sendsPosted());

            final Received atB = new Received();
            atB.expectedPeer = aAtB;
            fill(300, round);
            sendUntilAccepted(a, bAtA, 300, atB);
            Await.until(AWAIT, () -> a.poll(new Received(), 8) >= 0 &&
                b.poll(atB, 8) >= 0 && atB.count == 1, () -> "a datagram after recovery " + expected);
            assertThat(atB.problems).isEmpty();
            final Received atA = new Received();
            atA.expectedPeer = bAtA;
            fill(400, round);
            sendUntilAccepted(b, aAtB, 400, atA);
            Await.until(AWAIT, () -> b.poll(new Received(), 8) >= 0 &&
                a.poll(atA, 8) >= 0 && atA.count == 1, () -> "a datagram to the recovered queue pair " + expected);
            assertThat(atA.problems).isEmpty();
        }
        assertThat(faulty.recoveries).isEqualTo(3);
    }

    @Test
    void shouldMakeAddressHandlesOffTheCallingThreadAndNeverThrowFromSend() throws IOException
    {
        final VerbsContext contextA = open();
        final UdDatagramEndpoint a = endpoint(contextA, contextA.udMtu());
        // An IPv6 GID with no route: the kernel's neighbour resolution has nowhere to go.
        final int nowhere = a.resolve("2001:0db8:0000:0000:0000:0000:0000:0001/0/77/" + QKEY + "/1024");
        fill(100, 1);
        final long deadlineNs = System.nanoTime() + AWAIT_NS;
        while (!a.isReachable(nowhere) && null == a.unreachableCause(nowhere))
        {
            // While the handle is being made, sends back-pressure; they never throw.
            if (a.send(nowhere, message, 0, 100))
            {
                assertThat(a.isReachable(nowhere) || null != a.unreachableCause(nowhere))
                    .as("a send accepted only once the handle is made or refused").isTrue();
            }
            a.poll(new Received(), 8);
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("the address handle neither made nor refused within " + TimeUnit.NANOSECONDS.toSeconds(AWAIT_NS) +
                    " s");
            }
            Thread.onSpinWait();
        }
        assertThat(addressHandleThreads).isNotEmpty().doesNotContain(Thread.currentThread());
        // Made (a device may accept any GID) or refused: either way a send is accepted, posted or lost.
        assertThat(a.send(nowhere, message, 0, 100)).isTrue();
        System.out.println("address handle to 2001:db8::1: " + (a.isReachable(nowhere) ? "made" :
            "refused: " + a.unreachableCause(nowhere).getMessage()));
    }

    // ---------------------------------------------------------------- fixture

    /** @return the gid text of an endpoint's address {@code gid/qpNumber/qkey/mtu} (the gid holds a slash itself). */
    private static String gidOf(final String address)
    {
        int end = address.length();
        for (int i = 0; i < 3; i++)
        {
            end = address.lastIndexOf('/', end - 1);
        }
        return address.substring(0, end);
    }

    /** The gid text of another host: the GID's last group changed (10.77.0.1 becomes 10.77.0.3). */
    private static String otherHostGid(final String gid)
    {
        final int slash = gid.indexOf('/');
        final String groups = gid.substring(0, slash);
        final int last = Integer.parseInt(groups.substring(groups.length() - 4), 16);
        return groups.substring(0, groups.length() - 4) + String.format("%04x", last ^ 0x0002) + gid.substring(slash);
    }

    private void fill(final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            message.putByte(i, (byte)(seed + i * 7));
        }
        message.putInt(0, length);
    }

    private void sendUntilAccepted(
        final UdDatagramEndpoint from, final int peer, final int length, final Received elsewhere)
    {
        final long deadlineNs = System.nanoTime() + AWAIT_NS;
        while (!from.send(peer, message, 0, length))
        {
            from.poll(elsewhere, 16);
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("no send slot within " + TimeUnit.NANOSECONDS.toSeconds(AWAIT_NS) + " s");
            }
            Thread.onSpinWait();
        }
    }

    /** Checks each datagram: its length in its first four bytes, the bytes {@link #fill} wrote, its sender. */
    private static final class Received implements DatagramEndpoint.DatagramHandler
    {
        final List<String> problems = new ArrayList<>();
        int expectedPeer = DatagramEndpoint.UNKNOWN_PEER;
        int count;
        int fromPeer;

        @Override
        public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            count++;
            if (peer != DatagramEndpoint.UNKNOWN_PEER && (peer == expectedPeer || expectedPeer < 0))
            {
                fromPeer++;
            }
            else if (problems.size() < 10)
            {
                problems.add("datagram " + count + " from peer " + peer);
            }
            if (length >= 4 && buffer.getInt(offset) != length && problems.size() < 10)
            {
                problems.add("datagram " + count + " of " + length + " bytes says " + buffer.getInt(offset));
            }
        }
    }

    /** A raw UD queue pair that sends whatever length it is told, to check what the device lets through. */
    private static final class Forger
    {
        private final QueuePair queuePair;
        private final CompletionQueue sendCq;
        private final MemoryRegion region;
        private final AddressHandle route;
        private final UdAddress target;
        private final SendWorkRequest request = new SendWorkRequest();
        private final WorkCompletion[] completion = {new WorkCompletion()};

        Forger(final VerbsContext context, final String address) throws IOException
        {
            final ProtectionDomain pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(4);
            queuePair = context.createUdQueuePair(new QueuePairConfig(pd, sendCq, sendCq, 4, 1, 0, 0, 0, QKEY));
            region = pd.register(ByteBuffer.allocateDirect(16384).order(ByteOrder.nativeOrder()), Access.LOCAL_WRITE);
            final String gid = gidOf(address);
            final String[] parts = address.substring(gid.length() + 1).split("/");
            target = new UdAddress(gid, Integer.parseInt(parts[0]), Integer.parseUnsignedInt(parts[1]));
            route = context.createAddressHandle(pd, target);
        }

        void send(final int length) throws IOException
        {
            queuePair.postSend(request.clear().wrId(length).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(region.address(), length, region.lkey()).ud(route, target.qpNumber(), target.qkey()));
            Await.until(AWAIT, () ->
            {
                try
                {
                    return sendCq.poll(completion) == 1;
                }
                catch (final IOException ex)
                {
                    throw new java.io.UncheckedIOException(ex);
                }
            }, () -> "the forged datagram's completion");
            assertThat(completion[0].status()).as("the device reports a UD send beyond the MTU as sent")
                .isEqualTo(WcStatus.SUCCESS);
        }
    }
}
