package io.rivulet.transport.rdma;

import io.rivulet.spi.OneSidedOperation;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RdmaOneSidedPath} over a scripted queue pair: READs and atomics kept within the limit the two ends agree on
 * while WRITEs still go, atomics refused cleanly between devices of which one has none; and the one-sided endpoint
 * text that carries the target's limits ({@link RdmaOneSided.Endpoint}).
 */
class RdmaOneSidedPathTest
{
    private static final DeviceAttributes SIXTEEN_WITH_ATOMICS = attributes(16, 16, DeviceAttributes.AtomicCapability.HCA);

    private final MemoryPool pool = newPool();
    private final FakeQueuePair queuePair = new FakeQueuePair();
    private final FakeCompletionQueue sendCq = new FakeCompletionQueue();

    @AfterEach
    void close()
    {
        pool.close();
    }

    @Test
    void shouldKeepReadsAndAtomicsWithinTheLimitWhileWritesStillGo()
    {
        final RdmaOneSidedPath path = path(2, null);
        final Operation read1 = Operation.read();
        final Operation atomic = Operation.fetchAndAdd(5);
        final Operation read2 = Operation.read();

        assertThat(path.post(read1)).isTrue();
        assertThat(path.post(atomic)).isTrue();
        assertThat(path.post(read2)).as("a third READ/atomic waits: the target serves 2 at once").isFalse();
        assertThat(path.post(Operation.compareAndSwap())).isFalse();
        assertThat(path.post(Operation.write())).as("WRITEs take no responder resources").isTrue();
        assertThat(path.post(Operation.write())).isTrue();
        assertThat(path.readAtomicsInFlight()).isEqualTo(2);
        assertThat(path.inFlight()).isEqualTo(4);
        assertThat(queuePair.posted).extracting(SendWorkRequest::opcode).containsExactly(
            Opcode.RDMA_READ, Opcode.ATOMIC_FETCH_AND_ADD, Opcode.RDMA_WRITE, Opcode.RDMA_WRITE);

        sendCq.complete(queuePair.posted.get(0).wrId(), WcStatus.SUCCESS);
        assertThat(path.poll()).isEqualTo(1);
        assertThat(read1.outcome).isEqualTo("read");
        assertThat(path.readAtomicsInFlight()).isEqualTo(1);
        assertThat(path.post(read2)).as("room again once one completed").isTrue();
        assertThat(path.post(Operation.read())).isFalse();
        assertThat(path.readAtomicsInFlight()).isEqualTo(2);
        assertThat(queuePair.posted).hasSize(5);
    }

    @Test
    void shouldCountAFailedOrFlushedReadAsNoLongerInFlight()
    {
        final RdmaOneSidedPath path = path(2, null);
        final Operation refused = Operation.read();
        final Operation flushed = Operation.read();
        path.post(refused);
        path.post(flushed);

        sendCq.complete(queuePair.posted.get(0).wrId(), WcStatus.REMOTE_ACCESS_ERROR);
        sendCq.complete(queuePair.posted.get(1).wrId(), WcStatus.WR_FLUSH_ERROR);
        path.poll();

        assertThat(refused.outcome).startsWith("failed remote");
        assertThat(flushed.outcome).isEqualTo("flushed");
        assertThat(path.readAtomicsInFlight()).isZero();
        assertThat(path.inFlight()).isZero();
        assertThat(path.isBroken()).isTrue();
    }

    @Test
    void shouldFailAtomicsBetweenDevicesOfWhichOneHasNoneAndKeepThePath()
    {
        final RdmaOneSidedPath path = path(16, "the target's RDMA device executes no atomics");
        final Operation fetchAndAdd = Operation.fetchAndAdd(1);
        final Operation compareAndSwap = Operation.compareAndSwap();

        assertThat(path.post(fetchAndAdd)).isTrue();
        assertThat(path.post(compareAndSwap)).isTrue();

        assertThat(fetchAndAdd.outcome).isEqualTo("failed unsupported: the target's RDMA device executes no atomics");
        assertThat(compareAndSwap.outcome).isEqualTo(fetchAndAdd.outcome);
        assertThat(queuePair.posted).as("nothing reached the device").isEmpty();
        assertThat(path.isBroken()).isFalse();
        assertThat(path.inFlight()).isZero();
        final Operation read = Operation.read();
        assertThat(path.post(read)).isTrue();
        sendCq.complete(queuePair.posted.get(0).wrId(), WcStatus.SUCCESS);
        path.poll();
        assertThat(read.outcome).isEqualTo("read");
    }

    @Test
    void shouldFailReadsAndAtomicsWhenNoneCanBeInFlight()
    {
        final RdmaOneSidedPath path = new RdmaOneSidedPath("10.0.0.1:7000", new FakeConnection(queuePair), sendCq,
            new FakeCompletionQueue(), pool.allocate(RdmaOneSidedPath.STAGING_LENGTH), 0, "no READ can be in flight",
            null);
        final Operation read = Operation.read();

        assertThat(path.post(read)).isTrue();
        assertThat(path.post(Operation.write())).isTrue();

        assertThat(read.outcome).isEqualTo("failed unsupported: no READ can be in flight");
        assertThat(queuePair.posted).extracting(SendWorkRequest::opcode).containsExactly(Opcode.RDMA_WRITE);
        assertThatThrownBy(() -> new RdmaOneSidedPath("10.0.0.1:7000", new FakeConnection(queuePair), sendCq,
            new FakeCompletionQueue(), pool.allocate(RdmaOneSidedPath.STAGING_LENGTH), 0, null, null))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldLimitToTheSmallerEndAndTheSlots() throws IOException
    {
        final RdmaOneSided.Endpoint twoServed = RdmaOneSided.Endpoint.parse("10.0.0.1:7000;reads=2;atomics=1");
        final RdmaOneSided.Endpoint manyServed = RdmaOneSided.Endpoint.parse("10.0.0.1:7000;reads=128;atomics=1");
        final RdmaOneSided.Endpoint unknown = RdmaOneSided.Endpoint.parse("10.0.0.1:7000");

        assertThat(RdmaOneSided.readAtomicLimit(SIXTEEN_WITH_ATOMICS, twoServed)).isEqualTo(2);
        assertThat(RdmaOneSided.readAtomicLimit(attributes(128, 4, DeviceAttributes.AtomicCapability.HCA), manyServed))
            .as("what this device issues").isEqualTo(4);
        assertThat(RdmaOneSided.readAtomicLimit(attributes(128, 128, DeviceAttributes.AtomicCapability.HCA),
            manyServed)).as("the path's slots").isEqualTo(RdmaOneSidedPath.SLOTS);
        assertThat(RdmaOneSided.readAtomicLimit(attributes(1, 8, DeviceAttributes.AtomicCapability.NONE), unknown))
            .as("an old target says nothing: this device's limit").isEqualTo(8);
        assertThat(RdmaOneSided.readAtomicLimit(SIXTEEN_WITH_ATOMICS,
            RdmaOneSided.Endpoint.parse("10.0.0.1:7000;reads=0;atomics=0"))).isZero();
    }

    @Test
    void shouldRefuseAtomicsWhenEitherDeviceHasNone() throws IOException
    {
        final RdmaOneSided.Endpoint withAtomics = RdmaOneSided.Endpoint.parse("10.0.0.1:7000;reads=16;atomics=1");
        final RdmaOneSided.Endpoint withoutAtomics = RdmaOneSided.Endpoint.parse("10.0.0.1:7000;reads=16;atomics=0");
        final DeviceAttributes localWithout = attributes(16, 16, DeviceAttributes.AtomicCapability.NONE);

        assertThat(RdmaOneSided.atomicsRefusal(SIXTEEN_WITH_ATOMICS, "soft device soft0", withAtomics)).isNull();
        assertThat(RdmaOneSided.atomicsRefusal(SIXTEEN_WITH_ATOMICS, "soft device soft0",
            RdmaOneSided.Endpoint.parse("10.0.0.1:7000")))
            .as("an old target says nothing: left to the devices").isNull();
        assertThat(RdmaOneSided.atomicsRefusal(localWithout, "disni device rxe0", withAtomics))
            .isEqualTo("this node's RDMA device executes no atomics (its disni device rxe0 reports atomic_cap " +
                "IBV_ATOMIC_NONE)");
        assertThat(RdmaOneSided.atomicsRefusal(SIXTEEN_WITH_ATOMICS, "soft device soft0", withoutAtomics))
            .startsWith("the target's RDMA device executes no atomics").contains("10.0.0.1:7000;reads=16;atomics=0");
    }

    @Test
    void shouldWriteAndReadTheEndpointWithTheTargetsLimits() throws IOException
    {
        final InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("10.77.0.1"), 45_678);
        final RdmaOneSided.Endpoint endpoint = new RdmaOneSided.Endpoint(address, 16, false);

        assertThat(endpoint.format()).isEqualTo("10.77.0.1:45678;reads=16;atomics=0");
        assertThat(RdmaOneSided.Endpoint.parse(endpoint.format())).isEqualTo(endpoint);
        assertThat(RdmaOneSided.Endpoint.parse("[::1]:7000;reads=4;atomics=1"))
            .isEqualTo(new RdmaOneSided.Endpoint(new InetSocketAddress(InetAddress.getByName("::1"), 7000), 4, true));
        assertThat(RdmaOneSided.Endpoint.parse("10.77.0.1:45678").responderReads())
            .as("an old-format endpoint").isEqualTo(RdmaOneSided.Endpoint.NOT_ADVERTISED);
        assertThat(RdmaOneSided.Endpoint.parse("10.77.0.1:45678;atomics=1;reads=7;future=x").responderReads())
            .as("fields in any order; unknown keys skipped").isEqualTo(7);
        assertThat(new RdmaOneSided.Endpoint(address, RdmaOneSided.Endpoint.NOT_ADVERTISED, true).format())
            .isEqualTo("10.77.0.1:45678");
    }

    @Test
    void shouldRefuseAMalformedEndpointNamingIt()
    {
        for (final String malformed : new String[] {
            "10.77.0.1:45678;reads=-1", "10.77.0.1:45678;reads=65536", "10.77.0.1:45678;reads=", "10.77.0.1:45678;reads",
            "10.77.0.1:45678;atomics=2", "10.77.0.1:45678;", "10.77.0.1:45678;;reads=1", "10.77.0.1;reads=1",
            "10.77.0.1:45678;reads=1x"})
        {
            assertThatThrownBy(() -> RdmaOneSided.Endpoint.parse(malformed))
                .as(malformed).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(malformed);
        }
    }

    private RdmaOneSidedPath path(final int readAtomicLimit, final String atomicsRefusal)
    {
        final RdmaOneSidedPath path = new RdmaOneSidedPath("10.0.0.1:7000", new FakeConnection(queuePair), sendCq,
            new FakeCompletionQueue(), pool.allocate(RdmaOneSidedPath.STAGING_LENGTH), readAtomicLimit, null,
            atomicsRefusal);
        assertThat(path.readAtomicLimit()).isEqualTo(readAtomicLimit);
        return path;
    }

    private static DeviceAttributes attributes(
        final int responderReads, final int initiatorReads, final DeviceAttributes.AtomicCapability atomics)
    {
        return new DeviceAttributes(1024, 4, 4096, responderReads, initiatorReads, atomics);
    }

    private static MemoryPool newPool()
    {
        try
        {
            return new MemoryPool(new MemoryPoolTest.CountingProtectionDomain(), new LinkLayout(1024, 16 * 1024,
                8 * 1088), 1, 1, 2 * RdmaOneSidedPath.STAGING_LENGTH);
        }
        catch (final IOException ex)
        {
            throw new AssertionError(ex);
        }
    }

    /** An operation that records how it ended. */
    private static final class Operation implements OneSidedOperation
    {
        private final int op;
        private final long compareAdd;
        String outcome;

        private Operation(final int op, final long compareAdd)
        {
            this.op = op;
            this.compareAdd = compareAdd;
        }

        static Operation read()
        {
            return new Operation(READ, 0);
        }

        static Operation write()
        {
            return new Operation(WRITE, 0);
        }

        static Operation fetchAndAdd(final long delta)
        {
            return new Operation(FETCH_AND_ADD, delta);
        }

        static Operation compareAndSwap()
        {
            return new Operation(COMPARE_AND_SWAP, 0);
        }

        @Override
        public int op()
        {
            return op;
        }

        @Override
        public long remoteAddress()
        {
            return 0x10_0000;
        }

        @Override
        public int rkey()
        {
            return 0x42;
        }

        @Override
        public int length()
        {
            return 8;
        }

        @Override
        public long compareAdd()
        {
            return compareAdd;
        }

        @Override
        public long swap()
        {
            return 1;
        }

        @Override
        public DirectBuffer source()
        {
            return new UnsafeBuffer(new byte[8]);
        }

        @Override
        public int sourceOffset()
        {
            return 0;
        }

        @Override
        public void onRead(final DirectBuffer buffer, final int offset, final int length)
        {
            outcome = "read";
        }

        @Override
        public void onAtomic(final long previous)
        {
            outcome = "atomic";
        }

        @Override
        public void onWritten()
        {
            outcome = "written";
        }

        @Override
        public void onFailed(final boolean remoteAccess, final String reason)
        {
            outcome = "failed " + (remoteAccess ? "remote" : "unsupported") + ": " + reason;
        }

        @Override
        public void onFlushed()
        {
            outcome = "flushed";
        }
    }

    /** Records what is posted; copies each request, as a device takes it at post time. */
    private static final class FakeQueuePair implements QueuePair
    {
        final List<SendWorkRequest> posted = new ArrayList<>();

        @Override
        public QpType type()
        {
            return QpType.RC;
        }

        @Override
        public QpState state()
        {
            return QpState.RTS;
        }

        @Override
        public int qpNumber()
        {
            return 0x99;
        }

        @Override
        public void postSend(final SendWorkRequest request)
        {
            posted.add(new SendWorkRequest().wrId(request.wrId()).opcode(request.opcode()).flags(request.flags()));
        }

        @Override
        public void postReceive(final ReceiveWorkRequest request)
        {
        }

        @Override
        public UdAddress udAddress()
        {
            return null;
        }

        @Override
        public void close()
        {
        }
    }

    /** Hands out the completions a test scripts, oldest first. */
    private static final class FakeCompletionQueue implements CompletionQueue
    {
        private final ArrayDeque<WorkCompletion> pending = new ArrayDeque<>();

        void complete(final long wrId, final WcStatus status)
        {
            pending.add(status == WcStatus.SUCCESS ?
                new WorkCompletion().set(wrId, status, Opcode.RDMA_READ.completion(), 8, false, 0, 0x99, 0) :
                new WorkCompletion().setError(wrId, status, 0x99, 0));
        }

        @Override
        public int poll(final WorkCompletion[] completions, final int max)
        {
            int polled = 0;
            while (polled < max && !pending.isEmpty())
            {
                final WorkCompletion next = pending.poll();
                completions[polled++].set(next.wrId(), next.status(), next.opcode(), next.byteLength(), false, 0,
                    next.qpNumber(), 0);
            }
            return polled;
        }

        @Override
        public void close()
        {
        }
    }

    /** Established at once. */
    private static final class FakeConnection implements CmConnection
    {
        private final QueuePair queuePair;

        FakeConnection(final QueuePair queuePair)
        {
            this.queuePair = queuePair;
        }

        @Override
        public QueuePair poll()
        {
            return queuePair;
        }

        @Override
        public QueuePair queuePair()
        {
            return queuePair;
        }

        @Override
        public boolean isDisconnected()
        {
            return false;
        }

        @Override
        public InetSocketAddress remoteAddress()
        {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), 7000);
        }

        @Override
        public InetSocketAddress localAddress()
        {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), 7001);
        }

        @Override
        public void close()
        {
        }
    }
}
