package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.soft.SoftTestSupport.Device;
import io.rivulet.transport.rdma.soft.SoftTestSupport.Mode;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.rivulet.transport.rdma.soft.SoftTestSupport.TIMEOUT_NS;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.assertNoCompletion;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.pollOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The soft provider's UD bottleneck: a rate limit whose queue adds delay and drops at its tail, on the
 * in-memory fabric and over UDP sockets. Only lower bounds on time are asserted (the limiter must hold
 * datagrams back at least this long; a loaded machine only adds to it).
 */
class SoftBottleneckTest
{
    private static final int QKEY = 0x2222;
    private static final int GRH = 40;
    static final int PAYLOAD = 1000;
    static final int ON_LINK = SoftDatagrams.HEADER_LENGTH + PAYLOAD;

    private final SendWorkRequest send = new SendWorkRequest();
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldHoldDatagramsToTheLinkRateInOrder(final Mode mode) throws IOException
    {
        final long bytesPerSecond = 1_000_000;
        final int count = 30;
        final SoftVerbsProvider provider = mode.provider();
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            a.context.faults(SoftFaults.seeded(1).bottleneck(bytesPerSecond, 64));
            final Flow flow = new Flow(a, b, count);
            final long firstPostNs = System.nanoTime();
            flow.sendAll();
            final List<Long> delivered = flow.receive(count);
            final long elapsedNs = System.nanoTime() - firstPostNs;

            final List<Long> inOrder = new ArrayList<>();
            for (long i = 0; i < count; i++)
            {
                inOrder.add(i);
            }
            assertThat(delivered).isEqualTo(inOrder);
            final long serialisationNs = ON_LINK * 1_000_000_000L / bytesPerSecond;
            assertThat(elapsedNs).as("the link cannot carry %d datagrams sooner", count)
                .isGreaterThanOrEqualTo(count * serialisationNs);
            assertThat(a.context.bottleneckDatagrams()).isEqualTo(count);
            assertThat(a.context.bottleneckDrops()).isZero();
            assertThat(a.context.bottleneckQueueDelayNs()).as("datagrams queued behind each other").isPositive();
            assertThat(a.context.bottleneckMaxQueueDelayNs()).isPositive();
            System.out.printf("soft bottleneck %s: %d x %d B at %,d B/s in %,d us (floor %,d us), max queue delay %,d us%n",
                mode, count, ON_LINK, bytesPerSecond, elapsedNs / 1000, count * serialisationNs / 1000,
                a.context.bottleneckMaxQueueDelayNs() / 1000);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldDropTheNewestWhenTheQueueIsFull(final Mode mode) throws IOException
    {
        final int count = 12;
        final SoftVerbsProvider provider = mode.provider();
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            // 20 KB/s: each datagram holds the link for 52 ms, far longer than posting all of them takes.
            a.context.faults(SoftFaults.seeded(1).bottleneck(20_000, 4));
            final Flow flow = new Flow(a, b, count);
            flow.sendAll();
            final long drops = waitForDrops(a.context);
            final List<Long> delivered = flow.receive((int)(count - drops));
            assertNoCompletion(b.receiveCq, TimeUnit.MILLISECONDS.toNanos(150));
            assertThat(drops).as("a queue of 4 cannot hold 12 posted at once").isPositive();
            assertThat(delivered).as("FIFO: survivors in order").isSorted();
            assertThat(delivered.get(0)).isZero();
            assertThat(a.context.bottleneckDatagrams() + drops).isEqualTo(count);
        }
    }

    @Test
    void shouldStartANewMaximumQueueDelayOnReset() throws IOException
    {
        final SoftVerbsProvider provider = Mode.IN_PROCESS.provider();
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            // 100 KB/s: 10 ms per datagram, so the last of 8 posted together waits about 70 ms.
            a.context.faults(SoftFaults.seeded(1).bottleneck(100_000, 64));
            final Flow burst = new Flow(a, b, 8);
            burst.sendAll();
            burst.receive(8);
            final long burstMax = a.context.bottleneckMaxQueueDelayNs();
            assertThat(burstMax).as("the burst queued").isPositive();

            assertThat(a.context.resetBottleneckMaxQueueDelayNs()).as("reset returns the old maximum")
                .isEqualTo(burstMax);
            assertThat(a.context.bottleneckMaxQueueDelayNs()).isZero();

            // One datagram on the idle link waits for nothing: the new maximum is its wait, not the burst's.
            final Flow single = new Flow(a, b, 1);
            single.sendAll();
            single.receive(1);
            assertThat(a.context.bottleneckDatagrams()).isEqualTo(9);
            assertThat(a.context.bottleneckMaxQueueDelayNs()).isZero();
            assertThat(a.context.bottleneckQueueDelayNs()).as("the running total is not reset").isGreaterThan(burstMax);
        }
    }

    @Test
    void shouldRefuseABadBottleneck()
    {
        assertThatThrownBy(() -> SoftFaults.seeded(1).bottleneck(-1, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SoftFaults.seeded(1).bottleneck(1000, 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("queue");
        assertThatThrownBy(() -> SoftFaults.seeded(1).bottleneck(1000, SoftFaults.MAX_BOTTLENECK_QUEUE + 1))
            .isInstanceOf(IllegalArgumentException.class);
        final SoftFaults none = SoftFaults.seeded(1).bottleneck(1000, 8).bottleneck(0, 0);
        assertThat(none.hasBottleneck()).isFalse();
        assertThat(SoftFaults.seeded(1).bottleneck(1000, 8).drop(0.5).bottleneckQueueDatagrams())
            .as("other fluent methods keep the bottleneck").isEqualTo(8);
    }

    private static long waitForDrops(final SoftVerbsContext context)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (context.bottleneckDrops() + context.bottleneckDatagrams() < 12 && System.nanoTime() - deadlineNs < 0)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return context.bottleneckDrops();
    }

    /** One UD sender on device a, one receiver on device b with a receive posted per datagram. */
    private final class Flow
    {
        final Device a;
        final Device b;
        final int count;
        final QueuePair sender;
        final QueuePair receiver;
        final MemoryRegion source;
        final MemoryRegion sink;
        final AddressHandle ah;
        final int slot = GRH + PAYLOAD;

        Flow(final Device a, final Device b, final int count) throws IOException
        {
            this.a = a;
            this.b = b;
            this.count = count;
            sender = a.context.createUdQueuePair(a.udConfig(count, QKEY));
            receiver = b.context.createUdQueuePair(b.udConfig(count, QKEY));
            source = a.register(count * PAYLOAD, Access.LOCAL_WRITE);
            sink = b.register(count * slot, Access.LOCAL_WRITE);
            for (int i = 0; i < count; i++)
            {
                receiver.postReceive(receive.set(i, sink.address() + (long)i * slot, slot, sink.lkey()));
            }
            ah = a.context.createAddressHandle(a.pd, receiver.udAddress());
        }

        void sendAll() throws IOException
        {
            for (int i = 0; i < count; i++)
            {
                source.buffer().putLong(i * PAYLOAD, i);
                sender.postSend(send.clear().wrId(i).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .addSge(source.address() + (long)i * PAYLOAD, PAYLOAD, source.lkey())
                    .ud(ah, receiver.qpNumber(), QKEY));
            }
            for (int i = 0; i < count; i++)
            {
                assertThat(pollOne(a.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            }
        }

        List<Long> receive(final int expected) throws IOException
        {
            final List<Long> delivered = new ArrayList<>();
            final WorkCompletion[] completions = new WorkCompletion[16];
            for (int i = 0; i < completions.length; i++)
            {
                completions[i] = new WorkCompletion();
            }
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
            while (delivered.size() < expected)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new AssertionError("delivered " + delivered.size() + " of " + expected);
                }
                final int n = b.receiveCq.poll(completions);
                for (int i = 0; i < n; i++)
                {
                    assertThat(completions[i].status()).isEqualTo(WcStatus.SUCCESS);
                    assertThat(completions[i].byteLength()).isEqualTo(GRH + PAYLOAD);
                    delivered.add(sink.buffer().getLong((int)completions[i].wrId() * slot + GRH));
                }
                if (n == 0)
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
                }
            }
            return delivered;
        }
    }
}
