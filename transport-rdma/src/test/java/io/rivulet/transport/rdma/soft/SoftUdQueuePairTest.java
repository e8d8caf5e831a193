package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.soft.SoftTestSupport.Device;
import io.rivulet.transport.rdma.soft.SoftTestSupport.Mode;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.rivulet.transport.rdma.soft.SoftRcQueuePairTest.fill;
import static io.rivulet.transport.rdma.soft.SoftRcQueuePairTest.slice;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.TIMEOUT_NS;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.assertNoCompletion;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.await;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.pollOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SoftUdQueuePairTest
{
    private static final int QKEY = 0x1111;
    private static final int GRH = 40;

    private final SendWorkRequest send = new SendWorkRequest();
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldDeliverDatagramAfterAGrhWithSourceQpAndImmediate(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider();
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(16, QKEY));
            final QueuePair receiver = b.context.createUdQueuePair(b.udConfig(16, QKEY));
            assertThat(receiver.type()).isEqualTo(QpType.UD);
            assertThat(receiver.state()).isEqualTo(QpState.RTS);
            final UdAddress address = receiver.udAddress();
            assertThat(address.qpNumber()).isEqualTo(receiver.qpNumber());
            assertThat(address.qkey()).isEqualTo(QKEY);

            final MemoryRegion source = a.register(8192, Access.LOCAL_WRITE);
            final MemoryRegion sink = b.register(8192, Access.LOCAL_WRITE);
            fill(source.buffer(), 0, 8192, 11);
            receiver.postReceive(receive.set(5, sink.address(), 4096 + GRH, sink.lkey()));

            final AddressHandle ah = a.context.createAddressHandle(a.pd, address);
            sender.postSend(send.clear().wrId(3).opcode(Opcode.SEND_WITH_IMM).flags(SendWorkRequest.SIGNALED)
                .immData(0x12345).addSge(source.address(), 1000, source.lkey())
                .ud(ah, address.qpNumber(), address.qkey()));

            final WorkCompletion sent = pollOne(a.sendCq);
            assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(sent.wrId()).isEqualTo(3);
            assertThat(sent.opcode()).isEqualTo(WcOpcode.SEND);

            final WorkCompletion received = pollOne(b.receiveCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.wrId()).isEqualTo(5);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(received.byteLength()).isEqualTo(GRH + 1000);
            assertThat(received.hasImmData()).isTrue();
            assertThat(received.immData()).isEqualTo(0x12345);
            assertThat(received.sourceQpNumber()).isEqualTo(sender.qpNumber());
            assertThat(received.qpNumber()).isEqualTo(receiver.qpNumber());
            assertThat(sink.buffer().get(0) & 0xF0).isEqualTo(0x60); // IPv6 version nibble, as hardware writes
            assertThat(slice(sink.buffer(), GRH, 1000)).isEqualTo(slice(source.buffer(), 0, 1000));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldDropDatagramWithoutPostedReceiveAndDeliverOnceOneIsPosted(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider();
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(16, QKEY));
            final QueuePair receiver = b.context.createUdQueuePair(b.udConfig(16, QKEY));
            final MemoryRegion source = a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = b.register(8192, Access.LOCAL_WRITE);
            final AddressHandle ah = a.context.createAddressHandle(a.pd, receiver.udAddress());

            source.buffer().putLong(0, 1);
            sender.postSend(send.clear().wrId(1).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address(), 8, source.lkey()).ud(ah, receiver.qpNumber(), QKEY));
            assertThat(pollOne(a.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            await(() -> b.context.datagramsDroppedNoReceive() == 1, "the datagram dropped for want of a receive");
            assertThat(receiver.state()).isEqualTo(QpState.RTS);

            receiver.postReceive(receive.set(7, sink.address(), 4096 + GRH, sink.lkey()));
            assertNoCompletion(b.receiveCq, TimeUnit.MILLISECONDS.toNanos(20)); // a drop is not queued for later
            source.buffer().putLong(8, 2);
            sender.postSend(send.clear().wrId(2).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address() + 8, 8, source.lkey()).ud(ah, receiver.qpNumber(), QKEY));
            final WorkCompletion received = pollOne(b.receiveCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.wrId()).isEqualTo(7);
            assertThat(sink.buffer().getLong(GRH)).isEqualTo(2);
            assertThat(b.context.datagramsDroppedNoReceive()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldDropDatagramWithAWrongQkey(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider();
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(16, QKEY));
            final QueuePair receiver = b.context.createUdQueuePair(b.udConfig(16, QKEY));
            final MemoryRegion source = a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = b.register(8192, Access.LOCAL_WRITE);
            final AddressHandle ah = a.context.createAddressHandle(a.pd, receiver.udAddress());
            receiver.postReceive(receive.set(7, sink.address(), 4096 + GRH, sink.lkey()));

            sender.postSend(send.clear().wrId(1).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address(), 8, source.lkey()).ud(ah, receiver.qpNumber(), QKEY + 1));
            assertThat(pollOne(a.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            await(() -> b.context.datagramsDroppedBadQkey() == 1, "the datagram dropped for its qkey");
            assertNoCompletion(b.receiveCq, TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldFailDatagramLongerThanTheMtu(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider().withMtu(1024);
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(16, QKEY));
            final QueuePair receiver = b.context.createUdQueuePair(b.udConfig(16, QKEY));
            final MemoryRegion source = a.register(4096, Access.LOCAL_WRITE);
            final AddressHandle ah = a.context.createAddressHandle(a.pd, receiver.udAddress());

            sender.postSend(send.clear().wrId(1).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address(), 1024, source.lkey()).ud(ah, receiver.qpNumber(), QKEY));
            assertThat(pollOne(a.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            sender.postSend(send.clear().wrId(2).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address(), 1025, source.lkey()).ud(ah, receiver.qpNumber(), QKEY));
            final WorkCompletion tooLong = pollOne(a.sendCq);
            assertThat(tooLong.wrId()).isEqualTo(2);
            assertThat(tooLong.status()).isEqualTo(WcStatus.LOCAL_LENGTH_ERROR);
            assertThat(sender.state()).isEqualTo(QpState.ERROR);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldBringAUdQueuePairBackFromAFailedReceiveWithItsNumber(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider();
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(16, QKEY));
            final QueuePair receiver = b.context.createUdQueuePair(b.udConfig(16, QKEY));
            final MemoryRegion source = a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = b.register(8192, Access.LOCAL_WRITE);
            final AddressHandle ah = a.context.createAddressHandle(a.pd, receiver.udAddress());
            final UdAddress address = receiver.udAddress();

            // A receive too small for the datagram fails and moves the queue pair to ERROR; the next is flushed.
            receiver.postReceive(receive.set(1, sink.address(), GRH + 4, sink.lkey()));
            receiver.postReceive(receive.set(2, sink.address() + 4096, 4096 + GRH, sink.lkey()));
            sendTo(sender, ah, receiver, source, 64, 1);
            final WorkCompletion tooSmall = pollOne(b.receiveCq);
            assertThat(tooSmall.wrId()).isEqualTo(1);
            assertThat(tooSmall.status()).isEqualTo(WcStatus.LOCAL_LENGTH_ERROR);
            assertThat(pollOne(b.receiveCq).status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            assertThat(receiver.state()).isEqualTo(QpState.ERROR);
            receiver.postReceive(receive.set(3, sink.address(), 4096 + GRH, sink.lkey()));
            assertThat(pollOne(b.receiveCq).status()).as("posted in ERROR: flushed").isEqualTo(WcStatus.WR_FLUSH_ERROR);

            receiver.recover();
            assertThat(receiver.state()).isEqualTo(QpState.RTS);
            assertThat(receiver.qpNumber()).isEqualTo(address.qpNumber());
            assertThat(receiver.udAddress()).isEqualTo(address);
            assertNoCompletion(b.receiveCq, TimeUnit.MILLISECONDS.toNanos(20));
            receiver.postReceive(receive.set(4, sink.address(), 4096 + GRH, sink.lkey()));
            source.buffer().putLong(0, 0x0102030405060708L);
            sendTo(sender, ah, receiver, source, 64, 2);
            final WorkCompletion received = pollOne(b.receiveCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.wrId()).isEqualTo(4);
            assertThat(received.byteLength()).isEqualTo(GRH + 64);
            assertThat(sink.buffer().getLong(GRH)).isEqualTo(0x0102030405060708L);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldDiscardWhatIsPostedWhenRecoveringAndSendAgain(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider().withMtu(1024);
        try (Device a = new Device(provider, 64); Device b = new Device(provider, 64))
        {
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(16, QKEY));
            final QueuePair receiver = b.context.createUdQueuePair(b.udConfig(16, QKEY));
            final MemoryRegion source = a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = b.register(8192, Access.LOCAL_WRITE);
            final AddressHandle ah = a.context.createAddressHandle(a.pd, receiver.udAddress());

            // A send longer than the MTU fails the sender.
            sender.postSend(send.clear().wrId(1).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address(), 1025, source.lkey()).ud(ah, receiver.qpNumber(), QKEY));
            assertThat(pollOne(a.sendCq).status()).isEqualTo(WcStatus.LOCAL_LENGTH_ERROR);
            assertThat(sender.state()).isEqualTo(QpState.ERROR);

            // Receives posted before a recovery are gone after it, without completions, as a RESET drops them.
            receiver.postReceive(receive.set(10, sink.address(), 1024 + GRH, sink.lkey()));
            receiver.recover();
            sender.recover();
            assertThat(sender.state()).isEqualTo(QpState.RTS);
            sendTo(sender, ah, receiver, source, 64, 2);
            await(() -> b.context.datagramsDroppedNoReceive() == 1, "the datagram dropped: no receive survived");
            assertNoCompletion(b.receiveCq, TimeUnit.MILLISECONDS.toNanos(20));

            receiver.postReceive(receive.set(11, sink.address(), 1024 + GRH, sink.lkey()));
            sendTo(sender, ah, receiver, source, 1024, 3);
            final WorkCompletion received = pollOne(b.receiveCq);
            assertThat(received.wrId()).isEqualTo(11);
            assertThat(received.byteLength()).isEqualTo(GRH + 1024);

            receiver.close();
            assertThatThrownBy(receiver::recover).isInstanceOf(VerbsException.class).hasMessageContaining("closed");
        }
    }

    private void sendTo(
        final QueuePair sender,
        final AddressHandle ah,
        final QueuePair receiver,
        final MemoryRegion source,
        final int length,
        final long wrId) throws IOException
    {
        sender.postSend(send.clear().wrId(wrId).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
            .addSge(source.address(), length, source.lkey()).ud(ah, receiver.qpNumber(), QKEY));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldInjectTheSameFaultsForTheSameSeed(final Mode mode) throws IOException
    {
        final SoftFaults faults = SoftFaults.seeded(42).drop(0.1).duplicate(0.1).reorder(0.2)
            .reorderTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200));
        final List<Long> first = deliverWithFaults(mode, faults);
        final List<Long> second = deliverWithFaults(mode, faults);
        final List<Long> otherSeed = deliverWithFaults(mode, SoftFaults.seeded(43).drop(0.1).duplicate(0.1)
            .reorder(0.2).reorderTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200)));

        assertThat(second).isEqualTo(first);
        assertThat(otherSeed).isNotEqualTo(first);
        final List<Long> inOrderOnce = new ArrayList<>();
        for (long i = 0; i < 200; i++)
        {
            inOrderOnce.add(i);
        }
        assertThat(first).isNotEqualTo(inOrderOnce);
    }

    private List<Long> deliverWithFaults(final Mode mode, final SoftFaults faults) throws IOException
    {
        final int count = 200;
        final SoftVerbsProvider provider = mode.provider().withFaults(faults);
        try (Device a = new Device(provider, 1024); Device b = new Device(provider, 1024))
        {
            b.context.faults(SoftFaults.NONE);
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(count, QKEY));
            final QueuePair receiver = b.context.createUdQueuePair(b.udConfig(2 * count, QKEY));
            final MemoryRegion source = a.register(count * 8, Access.LOCAL_WRITE);
            final int slot = 64;
            final MemoryRegion sink = b.register(2 * count * slot, Access.LOCAL_WRITE);
            for (int i = 0; i < 2 * count; i++)
            {
                receiver.postReceive(receive.set(i, sink.address() + (long)i * slot, slot, sink.lkey()));
            }
            final AddressHandle ah = a.context.createAddressHandle(a.pd, receiver.udAddress());
            for (int i = 0; i < count; i++)
            {
                source.buffer().putLong(i * 8, i);
                sender.postSend(send.clear().wrId(i).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .addSge(source.address() + i * 8L, 8, source.lkey()).ud(ah, receiver.qpNumber(), QKEY));
            }
            for (int i = 0; i < count; i++)
            {
                assertThat(pollOne(a.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            }
            assertThat(a.context.faultDrops()).isPositive();
            assertThat(a.context.faultDuplicates()).isPositive();
            assertThat(a.context.faultReorders()).isPositive();
            final long expected = count - a.context.faultDrops() + a.context.faultDuplicates();

            final List<Long> delivered = new ArrayList<>();
            final WorkCompletion[] completions = new WorkCompletion[64];
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
                    delivered.add(sink.buffer().getLong((int)completions[i].wrId() * slot + GRH));
                }
                if (n == 0)
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
                }
            }
            assertNoCompletion(b.receiveCq, TimeUnit.MILLISECONDS.toNanos(20));
            return delivered;
        }
    }
}
