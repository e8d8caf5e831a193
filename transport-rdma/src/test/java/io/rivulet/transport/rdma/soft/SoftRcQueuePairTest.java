package io.rivulet.transport.rdma.soft;

import io.rivulet.tck.Await;
import io.rivulet.transport.rdma.soft.SoftTestSupport.Mode;
import io.rivulet.transport.rdma.soft.SoftTestSupport.RcPair;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static io.rivulet.transport.rdma.soft.SoftTestSupport.ALL_REMOTE;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.TIMEOUT_NS;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.assertNoCompletion;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.await;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.loopback;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.pollOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SoftRcQueuePairTest
{
    private final SendWorkRequest send = new SendWorkRequest();
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldCarryWrIdOpcodeLengthAndImmediateOnSends(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion source = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = pair.b.register(4096, Access.LOCAL_WRITE);
            fill(source.buffer(), 0, 4096, 3);

            pair.qpB.postReceive(receive.set(77, sink.address(), 256, sink.lkey()));
            pair.qpB.postReceive(receive.set(78, sink.address() + 256, 256, sink.lkey()));
            pair.qpA.postSend(send.clear().wrId(11).opcode(Opcode.SEND_WITH_IMM).flags(SendWorkRequest.SIGNALED)
                .immData(0xCAFEBABE).addSge(source.address(), 100, source.lkey()));
            pair.qpA.postSend(send.clear().wrId(12).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address() + 100, 20, source.lkey()).addSge(source.address() + 200, 10, source.lkey()));

            final WorkCompletion sent = pollOne(pair.a.sendCq);
            assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(sent.wrId()).isEqualTo(11);
            assertThat(sent.opcode()).isEqualTo(WcOpcode.SEND);
            assertThat(sent.byteLength()).isEqualTo(100);
            assertThat(sent.qpNumber()).isEqualTo(pair.qpA.qpNumber());

            final WorkCompletion received = pollOne(pair.b.receiveCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.wrId()).isEqualTo(77);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(received.byteLength()).isEqualTo(100);
            assertThat(received.hasImmData()).isTrue();
            assertThat(received.immData()).isEqualTo(0xCAFEBABE);
            assertThat(received.qpNumber()).isEqualTo(pair.qpB.qpNumber());
            assertThat(slice(sink.buffer(), 0, 100)).isEqualTo(slice(source.buffer(), 0, 100));

            assertThat(pollOne(pair.a.sendCq).wrId()).isEqualTo(12);
            final WorkCompletion plain = pollOne(pair.b.receiveCq);
            assertThat(plain.wrId()).isEqualTo(78);
            assertThat(plain.byteLength()).isEqualTo(30);
            assertThat(plain.hasImmData()).isFalse();
            assertThat(slice(sink.buffer(), 256, 20)).isEqualTo(slice(source.buffer(), 100, 20));
            assertThat(slice(sink.buffer(), 276, 10)).isEqualTo(slice(source.buffer(), 200, 10));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldReportWriteWithImmediateAtTheTarget(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion source = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion target = pair.b.register(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            fill(source.buffer(), 0, 4096, 5);

            pair.qpB.postReceive(receive.set(31, 0, 0, 0));
            pair.qpA.postSend(send.clear().wrId(21).opcode(Opcode.RDMA_WRITE_WITH_IMM)
                .flags(SendWorkRequest.SIGNALED).immData(42).addSge(source.address(), 64, source.lkey())
                .remote(target.address() + 512, target.rkey()));

            final WorkCompletion written = pollOne(pair.a.sendCq);
            assertThat(written.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(written.wrId()).isEqualTo(21);
            assertThat(written.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
            assertThat(written.byteLength()).isEqualTo(64);

            final WorkCompletion notified = pollOne(pair.b.receiveCq);
            assertThat(notified.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(notified.wrId()).isEqualTo(31);
            assertThat(notified.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(notified.byteLength()).isEqualTo(64);
            assertThat(notified.hasImmData()).isTrue();
            assertThat(notified.immData()).isEqualTo(42);
            assertThat(slice(target.buffer(), 512, 64)).isEqualTo(slice(source.buffer(), 0, 64));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldReadWriteCompareAndSwapAndFetchAndAdd(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion remote = pair.b.register(4096, ALL_REMOTE);
            fill(local.buffer(), 0, 128, 9);

            post(pair.qpA, send.clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), 128, local.lkey()).remote(remote.address() + 256, remote.rkey()));
            assertSuccess(pair.a.sendCq, 1, WcOpcode.RDMA_WRITE, 128);
            assertThat(slice(remote.buffer(), 256, 128)).isEqualTo(slice(local.buffer(), 0, 128));

            post(pair.qpA, send.clear().wrId(2).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address() + 1024, 128, local.lkey()).remote(remote.address() + 256, remote.rkey()));
            assertSuccess(pair.a.sendCq, 2, WcOpcode.RDMA_READ, 128);
            assertThat(slice(local.buffer(), 1024, 128)).isEqualTo(slice(remote.buffer(), 256, 128));

            remote.buffer().putLong(8, 100);
            post(pair.qpA, send.clear().wrId(3).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address() + 2048, 8, local.lkey()).remote(remote.address() + 8, remote.rkey())
                .atomic(5, 0));
            assertSuccess(pair.a.sendCq, 3, WcOpcode.FETCH_ADD, 8);
            assertThat(local.buffer().getLong(2048)).isEqualTo(100);
            assertThat(remote.buffer().getLong(8)).isEqualTo(105);

            post(pair.qpA, send.clear().wrId(4).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address() + 2056, 8, local.lkey()).remote(remote.address() + 8, remote.rkey())
                .atomic(105, 7));
            assertSuccess(pair.a.sendCq, 4, WcOpcode.COMP_SWAP, 8);
            assertThat(local.buffer().getLong(2056)).isEqualTo(105);
            assertThat(remote.buffer().getLong(8)).isEqualTo(7);

            post(pair.qpA, send.clear().wrId(5).opcode(Opcode.ATOMIC_CMP_AND_SWP).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address() + 2064, 8, local.lkey()).remote(remote.address() + 8, remote.rkey())
                .atomic(999, 1));
            assertSuccess(pair.a.sendCq, 5, WcOpcode.COMP_SWAP, 8);
            assertThat(local.buffer().getLong(2064)).isEqualTo(7);
            assertThat(remote.buffer().getLong(8)).isEqualTo(7);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldCompleteMoreReadsAndAtomicsThanMayBeOutstandingInOrder(final Mode mode) throws IOException
    {
        final int count = 3 * SoftRcQueuePair.MAX_RD_ATOMIC + 5;
        try (RcPair pair = new RcPair(mode.provider(), 64, 7))
        {
            final MemoryRegion local = pair.a.register(count * 8, Access.LOCAL_WRITE);
            final MemoryRegion remote = pair.b.register(count * 8, ALL_REMOTE);
            for (int i = 0; i < count; i++)
            {
                remote.buffer().putLong(i * 8, 1000L + i);
            }
            for (int i = 0; i < count; i++)
            {
                send.clear().wrId(i).flags(SendWorkRequest.SIGNALED)
                    .addSge(local.address() + i * 8L, 8, local.lkey()).remote(remote.address() + i * 8L, remote.rkey());
                if (i % 2 == 0)
                {
                    send.opcode(Opcode.RDMA_READ);
                }
                else
                {
                    send.opcode(Opcode.ATOMIC_FETCH_AND_ADD).atomic(1, 0);
                }
                pair.qpA.postSend(send);
            }
            for (int i = 0; i < count; i++)
            {
                assertSuccess(pair.a.sendCq, i, i % 2 == 0 ? WcOpcode.RDMA_READ : WcOpcode.FETCH_ADD, 8);
                assertThat(local.buffer().getLong(i * 8)).isEqualTo(1000L + i);
                assertThat(remote.buffer().getLong(i * 8)).isEqualTo(1000L + i + (i % 2));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldMoveMessagesLongerThanOneSegment(final Mode mode) throws IOException
    {
        final int length = 200 * 1024 + 13;
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion local = pair.a.register(2 * length, Access.LOCAL_WRITE);
            final MemoryRegion remote = pair.b.register(2 * length, ALL_REMOTE);
            final byte[] random = new byte[length];
            new SplittableRandom(7).nextBytes(random);
            local.buffer().put(0, random);

            post(pair.qpA, send.clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), length, local.lkey()).remote(remote.address() + 3, remote.rkey()));
            assertSuccess(pair.a.sendCq, 1, WcOpcode.RDMA_WRITE, length);
            assertThat(slice(remote.buffer(), 3, length)).isEqualTo(random);

            post(pair.qpA, send.clear().wrId(2).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address() + length, 1000, local.lkey())
                .addSge(local.address() + length + 1000, length - 1000, local.lkey())
                .remote(remote.address() + 3, remote.rkey()));
            assertSuccess(pair.a.sendCq, 2, WcOpcode.RDMA_READ, length);
            assertThat(slice(local.buffer(), length, length)).isEqualTo(random);

            pair.qpB.postReceive(receive.set(9, remote.address() + length, length, remote.lkey()));
            post(pair.qpA, send.clear().wrId(3).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), length, local.lkey()));
            assertSuccess(pair.a.sendCq, 3, WcOpcode.SEND, length);
            final WorkCompletion received = pollOne(pair.b.receiveCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.byteLength()).isEqualTo(length);
            assertThat(slice(remote.buffer(), length, length)).isEqualTo(random);
        }
    }

    /** The ways a one-sided request can break the rules. */
    enum Violation
    {
        BAD_RKEY, OUT_OF_BOUNDS_END, OUT_OF_BOUNDS_START, WRITE_TO_READ_ONLY, READ_WITHOUT_REMOTE_READ,
        ATOMIC_WITHOUT_REMOTE_ATOMIC, LKEY_AS_RKEY
    }

    static Stream<Arguments> violations()
    {
        return Stream.of(Mode.values()).flatMap(mode -> Stream.of(Violation.values()).map(v -> Arguments.of(mode, v)));
    }

    @ParameterizedTest
    @MethodSource("violations")
    void shouldFailWithRemoteAccessErrorAndLeaveTargetUntouched(final Mode mode, final Violation violation)
        throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final int targetLength = 1024;
            final int access;
            switch (violation)
            {
                case WRITE_TO_READ_ONLY:
                    access = Access.REMOTE_READ;
                    break;
                case READ_WITHOUT_REMOTE_READ:
                    access = Access.LOCAL_WRITE | Access.REMOTE_WRITE;
                    break;
                case ATOMIC_WITHOUT_REMOTE_ATOMIC:
                    access = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
                    break;
                default:
                    access = ALL_REMOTE;
                    break;
            }
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion target = pair.b.register(targetLength, access);
            final ByteBuffer targetBytes = target.buffer();
            for (int i = 0; i < targetLength; i++)
            {
                targetBytes.put(i, (byte)(i * 31 + 7));
            }
            final byte[] pattern = slice(targetBytes, 0, targetLength);
            fill(local.buffer(), 0, 4096, 1);

            send.clear().wrId(99).flags(SendWorkRequest.SIGNALED);
            switch (violation)
            {
                case BAD_RKEY:
                    send.opcode(Opcode.RDMA_WRITE).addSge(local.address(), 16, local.lkey())
                        .remote(target.address(), target.rkey() + 1);
                    break;
                case LKEY_AS_RKEY:
                    send.opcode(Opcode.RDMA_WRITE).addSge(local.address(), 16, local.lkey())
                        .remote(target.address(), target.lkey());
                    break;
                case OUT_OF_BOUNDS_END:
                    send.opcode(Opcode.RDMA_WRITE).addSge(local.address(), 16, local.lkey())
                        .remote(target.address() + targetLength - 8, target.rkey());
                    break;
                case OUT_OF_BOUNDS_START:
                    send.opcode(Opcode.RDMA_WRITE).addSge(local.address(), 16, local.lkey())
                        .remote(target.address() - 8, target.rkey());
                    break;
                case WRITE_TO_READ_ONLY:
                    send.opcode(Opcode.RDMA_WRITE).addSge(local.address(), 16, local.lkey())
                        .remote(target.address() + 64, target.rkey());
                    break;
                case READ_WITHOUT_REMOTE_READ:
                    send.opcode(Opcode.RDMA_READ).addSge(local.address(), 16, local.lkey())
                        .remote(target.address() + 64, target.rkey());
                    break;
                default:
                    send.opcode(Opcode.ATOMIC_FETCH_AND_ADD).addSge(local.address(), 8, local.lkey())
                        .remote(target.address() + 64, target.rkey()).atomic(1, 0);
                    break;
            }
            pair.qpA.postSend(send);

            final WorkCompletion failed = pollOne(pair.a.sendCq);
            assertThat(failed.wrId()).isEqualTo(99);
            assertThat(failed.status()).isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERROR);
            await(() -> pair.qpB.state() == QpState.ERROR, "responder in ERROR");
            assertThat(pair.b.context.remoteAccessViolations()).isEqualTo(1);
            assertThat(slice(targetBytes, 0, targetLength)).isEqualTo(pattern);

            // Later requests are flushed, never executed.
            pair.qpA.postSend(send.clear().wrId(100).opcode(Opcode.RDMA_WRITE)
                .addSge(local.address(), 16, local.lkey()).remote(target.address(), target.rkey()));
            final WorkCompletion flushed = pollOne(pair.a.sendCq);
            assertThat(flushed.wrId()).isEqualTo(100);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            assertThat(slice(targetBytes, 0, targetLength)).isEqualTo(pattern);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldFailWithLocalProtectionErrorOnBadLkey(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion remote = pair.b.register(4096, ALL_REMOTE);

            pair.qpA.postSend(send.clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), 16, local.lkey()).remote(remote.address(), remote.rkey()));
            pair.qpA.postSend(send.clear().wrId(2).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address() + 4090, 16, local.lkey()).remote(remote.address(), remote.rkey()));
            pair.qpA.postSend(send.clear().wrId(3).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), 16, local.lkey()).remote(remote.address(), remote.rkey()));

            assertSuccess(pair.a.sendCq, 1, WcOpcode.RDMA_WRITE, 16);
            final WorkCompletion failed = pollOne(pair.a.sendCq);
            assertThat(failed.wrId()).isEqualTo(2);
            assertThat(failed.status()).isEqualTo(WcStatus.LOCAL_PROTECTION_ERROR);
            final WorkCompletion flushed = pollOne(pair.a.sendCq);
            assertThat(flushed.wrId()).isEqualTo(3);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERROR);
        }

        // A READ lands in local memory: it needs LOCAL_WRITE.
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion readOnlyLocal = pair.a.register(4096, 0);
            final MemoryRegion remote = pair.b.register(4096, ALL_REMOTE);
            pair.qpA.postSend(send.clear().wrId(4).opcode(Opcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .addSge(readOnlyLocal.address(), 16, readOnlyLocal.lkey()).remote(remote.address(), remote.rkey()));
            final WorkCompletion failed = pollOne(pair.a.sendCq);
            assertThat(failed.wrId()).isEqualTo(4);
            assertThat(failed.status()).isEqualTo(WcStatus.LOCAL_PROTECTION_ERROR);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRetryOnReceiverNotReadyThenFailAndFlush(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider().withRnrDelayNs(TimeUnit.MILLISECONDS.toNanos(2));
        try (RcPair pair = new RcPair(provider, 16, 2))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            pair.qpA.postSend(send.clear().wrId(1).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), 32, local.lkey()));
            pair.qpA.postSend(send.clear().wrId(2).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), 32, local.lkey()));

            final WorkCompletion exceeded = pollOne(pair.a.sendCq);
            assertThat(exceeded.wrId()).isEqualTo(1);
            assertThat(exceeded.status()).isEqualTo(WcStatus.RNR_RETRY_EXCEEDED_ERROR);
            final WorkCompletion flushed = pollOne(pair.a.sendCq);
            assertThat(flushed.wrId()).isEqualTo(2);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERROR);
            // The first attempt and two retries, each refused.
            assertThat(pair.b.context.rnrNaksSent()).isEqualTo(3);
            assertThat(pair.a.context.rnrNaksReceived()).isEqualTo(3);

            pair.qpA.postSend(send.clear().wrId(3).opcode(Opcode.SEND).addSge(local.address(), 32, local.lkey()));
            final WorkCompletion later = pollOne(pair.a.sendCq);
            assertThat(later.wrId()).isEqualTo(3);
            assertThat(later.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldSucceedWhenReceiveIsPostedWithinRnrRetries(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider().withRnrDelayNs(TimeUnit.MILLISECONDS.toNanos(50));
        try (RcPair pair = new RcPair(provider, 16, 6))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = pair.b.register(4096, Access.LOCAL_WRITE);
            fill(local.buffer(), 0, 64, 4);
            pair.qpA.postSend(send.clear().wrId(1).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), 64, local.lkey()));

            await(() -> pair.b.context.rnrNaksSent() >= 1, "an RNR NAK");
            pair.qpB.postReceive(receive.set(5, sink.address(), 4096, sink.lkey()));

            assertSuccess(pair.a.sendCq, 1, WcOpcode.SEND, 64);
            final WorkCompletion received = pollOne(pair.b.receiveCq);
            assertThat(received.wrId()).isEqualTo(5);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(slice(sink.buffer(), 0, 64)).isEqualTo(slice(local.buffer(), 0, 64));
            assertThat(pair.a.context.rnrNaksReceived()).isGreaterThanOrEqualTo(1);
            assertThat(pair.qpA.state()).isEqualTo(QpState.RTS);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldReplayRequestsBehindARefusedSendInOrderAndApplyAtomicsOnce(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider().withRnrDelayNs(TimeUnit.MILLISECONDS.toNanos(5));
        try (RcPair pair = new RcPair(provider, 16, 7))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion remote = pair.b.register(4096, ALL_REMOTE);
            final MemoryRegion sink = pair.b.register(4096, Access.LOCAL_WRITE);
            remote.buffer().putLong(0, 1000);
            local.buffer().putLong(0, 10);
            local.buffer().putLong(8, 11);
            local.buffer().putLong(16, 14);

            final int signaled = SendWorkRequest.SIGNALED;
            pair.qpA.postSend(send.clear().wrId(0).opcode(Opcode.SEND).flags(signaled)
                .addSge(local.address(), 8, local.lkey()));
            pair.qpA.postSend(send.clear().wrId(1).opcode(Opcode.RDMA_WRITE).flags(signaled)
                .addSge(local.address() + 8, 8, local.lkey()).remote(remote.address() + 64, remote.rkey()));
            pair.qpA.postSend(send.clear().wrId(2).opcode(Opcode.RDMA_READ).flags(signaled)
                .addSge(local.address() + 512, 8, local.lkey()).remote(remote.address() + 64, remote.rkey()));
            pair.qpA.postSend(send.clear().wrId(3).opcode(Opcode.ATOMIC_FETCH_AND_ADD).flags(signaled)
                .addSge(local.address() + 1024, 8, local.lkey()).remote(remote.address(), remote.rkey()).atomic(1, 0));
            pair.qpA.postSend(send.clear().wrId(4).opcode(Opcode.SEND).flags(signaled)
                .addSge(local.address() + 16, 8, local.lkey()));

            await(() -> pair.b.context.rnrNaksSent() >= 2, "the first SEND refused, then retried and refused");
            // Nothing completes while the first request is refused: RC completes in order.
            assertNoCompletion(pair.a.sendCq, TimeUnit.MILLISECONDS.toNanos(10));
            assertThat(remote.buffer().getLong(0)).isEqualTo(1000);
            pair.qpB.postReceive(receive.set(20, sink.address(), 64, sink.lkey()));
            pair.qpB.postReceive(receive.set(21, sink.address() + 64, 64, sink.lkey()));

            assertSuccess(pair.a.sendCq, 0, WcOpcode.SEND, 8);
            assertSuccess(pair.a.sendCq, 1, WcOpcode.RDMA_WRITE, 8);
            assertSuccess(pair.a.sendCq, 2, WcOpcode.RDMA_READ, 8);
            assertSuccess(pair.a.sendCq, 3, WcOpcode.FETCH_ADD, 8);
            assertSuccess(pair.a.sendCq, 4, WcOpcode.SEND, 8);
            assertThat(local.buffer().getLong(512)).isEqualTo(11);
            assertThat(local.buffer().getLong(1024)).isEqualTo(1000);
            assertThat(remote.buffer().getLong(0)).as("added exactly once").isEqualTo(1001);
            assertThat(pollOne(pair.b.receiveCq).wrId()).isEqualTo(20);
            assertThat(pollOne(pair.b.receiveCq).wrId()).isEqualTo(21);
            assertThat(sink.buffer().getLong(0)).isEqualTo(10);
            assertThat(sink.buffer().getLong(64)).isEqualTo(14);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldConnectADeviceToItself(final Mode mode) throws IOException
    {
        try (SoftTestSupport.Device device = new SoftTestSupport.Device(mode.provider(), 16);
            CmListener listener = device.context.listen(new InetSocketAddress(loopback(), 0), 4))
        {
            final CmConnection active = device.context.connect(listener.localAddress(), device.config(4, 7));
            final CmRequest[] request = new CmRequest[1];
            await(() ->
            {
                try
                {
                    return (request[0] = listener.poll()) != null;
                }
                catch (final IOException ex)
                {
                    throw new AssertionError(ex);
                }
            }, "request");
            final CmConnection passive = request[0].accept(device.config(4, 7));
            final MemoryRegion region = device.register(4096, Access.LOCAL_WRITE);
            passive.queuePair().postReceive(receive.set(1, region.address() + 2048, 64, region.lkey()));
            await(() ->
            {
                try
                {
                    return active.poll() != null && passive.poll() != null;
                }
                catch (final IOException ex)
                {
                    throw new AssertionError(ex);
                }
            }, "established");
            assertThat(active.localAddress()).isEqualTo(passive.remoteAddress());
            region.buffer().putLong(0, 123);
            active.queuePair().postSend(send.clear().wrId(2).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(region.address(), 8, region.lkey()));
            assertThat(pollOne(device.receiveCq).wrId()).isEqualTo(1);
            assertThat(pollOne(device.sendCq).wrId()).isEqualTo(2);
            assertThat(region.buffer().getLong(2048)).isEqualTo(123);
            active.close();
            await(passive::isDisconnected, "disconnect");
            passive.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldDeliverTenThousandSendsInOrder(final Mode mode) throws IOException
    {
        final int count = 10_000;
        final int window = 128;
        final int slot = 64;
        try (RcPair pair = new RcPair(mode.provider(), window, 7, 4 * window))
        {
            final MemoryRegion sendRing = pair.a.register(window * slot, Access.LOCAL_WRITE);
            final MemoryRegion receiveRing = pair.b.register(window * slot, Access.LOCAL_WRITE);
            for (int i = 0; i < window; i++)
            {
                pair.qpB.postReceive(receive.set(i, receiveRing.address() + (long)i * slot, slot, receiveRing.lkey()));
            }

            final WorkCompletion[] completions = new WorkCompletion[32];
            for (int i = 0; i < completions.length; i++)
            {
                completions[i] = new WorkCompletion();
            }
            int posted = 0;
            int sendsCompleted = 0;
            int expected = 0;
            final long deadlineNs = System.nanoTime() + TIMEOUT_NS * 2;
            while (expected < count)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new AssertionError("delivered " + expected + " of " + count);
                }
                boolean progress = false;
                while (posted < count && posted - sendsCompleted < window)
                {
                    final int index = posted % window;
                    sendRing.buffer().putLong(index * slot, posted);
                    sendRing.buffer().putLong(index * slot + 8, ~(long)posted);
                    pair.qpA.postSend(send.clear().wrId(posted).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                        .addSge(sendRing.address() + (long)index * slot, 16, sendRing.lkey()));
                    posted++;
                    progress = true;
                }
                final int sent = pair.a.sendCq.poll(completions);
                for (int i = 0; i < sent; i++)
                {
                    assertThat(completions[i].status()).isEqualTo(WcStatus.SUCCESS);
                    assertThat(completions[i].wrId()).isEqualTo(sendsCompleted);
                    sendsCompleted++;
                }
                final int received = pair.b.receiveCq.poll(completions);
                for (int i = 0; i < received; i++)
                {
                    final WorkCompletion wc = completions[i];
                    assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
                    assertThat(wc.byteLength()).isEqualTo(16);
                    final int offset = (int)wc.wrId() * slot;
                    assertThat(receiveRing.buffer().getLong(offset)).isEqualTo(expected);
                    assertThat(receiveRing.buffer().getLong(offset + 8)).isEqualTo(~(long)expected);
                    expected++;
                    pair.qpB.postReceive(receive.set(wc.wrId(), receiveRing.address() + offset, slot,
                        receiveRing.lkey()));
                }
                if (!progress && sent == 0 && received == 0)
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
                }
            }
            assertThat(expected).isEqualTo(count);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldCompleteOnlySignaledRequestsAndReclaimSlotsAsHardwareDoes(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 4, 7))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion remote = pair.b.register(4096, ALL_REMOTE);
            fill(local.buffer(), 0, 64, 2);

            for (int i = 0; i < 3; i++)
            {
                pair.qpA.postSend(send.clear().wrId(i).opcode(Opcode.RDMA_WRITE)
                    .addSge(local.address() + i * 8L, 8, local.lkey()).remote(remote.address() + i * 8L, remote.rkey()));
            }
            pair.qpA.postSend(send.clear().wrId(3).opcode(Opcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address() + 24, 8, local.lkey()).remote(remote.address() + 24, remote.rkey()));
            assertSuccess(pair.a.sendCq, 3, WcOpcode.RDMA_WRITE, 8);
            assertThat(slice(remote.buffer(), 0, 32)).isEqualTo(slice(local.buffer(), 0, 32));

            // Four unsignaled requests fill the queue: their slots return only with a signaled completion.
            for (int i = 4; i < 8; i++)
            {
                pair.qpA.postSend(send.clear().wrId(i).opcode(Opcode.RDMA_WRITE)
                    .addSge(local.address(), 8, local.lkey()).remote(remote.address() + 64, remote.rkey()));
            }
            assertNoCompletion(pair.a.sendCq, TimeUnit.MILLISECONDS.toNanos(50));
            assertThatThrownBy(() -> pair.qpA.postSend(send.clear().wrId(8).opcode(Opcode.RDMA_WRITE)
                .flags(SendWorkRequest.SIGNALED).addSge(local.address(), 8, local.lkey())
                .remote(remote.address(), remote.rkey())))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("send queue full");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldFailSendLongerThanTheReceiveBuffer(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = pair.b.register(4096, Access.LOCAL_WRITE);
            pair.qpB.postReceive(receive.set(1, sink.address(), 16, sink.lkey()));
            pair.qpB.postReceive(receive.set(2, sink.address() + 16, 16, sink.lkey()));
            pair.qpA.postSend(send.clear().wrId(7).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(local.address(), 64, local.lkey()));

            final WorkCompletion tooLong = pollOne(pair.b.receiveCq);
            assertThat(tooLong.wrId()).isEqualTo(1);
            assertThat(tooLong.status()).isEqualTo(WcStatus.LOCAL_LENGTH_ERROR);
            final WorkCompletion flushed = pollOne(pair.b.receiveCq);
            assertThat(flushed.wrId()).isEqualTo(2);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            assertThat(pair.qpB.state()).isEqualTo(QpState.ERROR);

            final WorkCompletion refused = pollOne(pair.a.sendCq);
            assertThat(refused.wrId()).isEqualTo(7);
            assertThat(refused.status()).isEqualTo(WcStatus.REMOTE_INVALID_REQUEST_ERROR);
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERROR);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldFlushOnCloseAndReportTheDisconnectToThePeer(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7))
        {
            final MemoryRegion sinkA = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sinkB = pair.b.register(4096, Access.LOCAL_WRITE);
            pair.qpA.postReceive(receive.set(10, sinkA.address(), 64, sinkA.lkey()));
            for (int i = 0; i < 3; i++)
            {
                pair.qpB.postReceive(receive.set(i, sinkB.address() + i * 64L, 64, sinkB.lkey()));
            }

            pair.connectionB.close();
            for (int i = 0; i < 3; i++)
            {
                final WorkCompletion flushed = pollOne(pair.b.receiveCq);
                assertThat(flushed.wrId()).isEqualTo(i);
                assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            }
            assertThatThrownBy(() -> pair.qpB.postReceive(receive.set(9, sinkB.address(), 64, sinkB.lkey())))
                .isInstanceOf(VerbsException.class);

            await(pair.connectionA::isDisconnected, "disconnect seen by the peer");
            assertThat(pair.qpA.state()).isEqualTo(QpState.ERROR);
            final WorkCompletion flushed = pollOne(pair.a.receiveCq);
            assertThat(flushed.wrId()).isEqualTo(10);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);

            pair.qpA.postSend(send.clear().wrId(11).opcode(Opcode.SEND).addSge(sinkA.address(), 8, sinkA.lkey()));
            final WorkCompletion late = pollOne(pair.a.sendCq);
            assertThat(late.wrId()).isEqualTo(11);
            assertThat(late.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldFlushOutstandingSendsWhenClosed(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider().withRnrDelayNs(TimeUnit.MILLISECONDS.toNanos(20));
        try (RcPair pair = new RcPair(provider, 16, 7))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            pair.qpA.postSend(send.clear().wrId(1).opcode(Opcode.SEND).addSge(local.address(), 8, local.lkey()));
            pair.qpA.postSend(send.clear().wrId(2).opcode(Opcode.SEND).addSge(local.address(), 8, local.lkey()));
            await(() -> pair.b.context.rnrNaksSent() >= 1, "the SEND refused");

            pair.qpA.close();
            for (int wrId = 1; wrId <= 2; wrId++)
            {
                final WorkCompletion flushed = pollOne(pair.a.sendCq);
                assertThat(flushed.wrId()).isEqualTo(wrId);
                assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERROR);
            }
            assertThatThrownBy(() -> pair.qpA.postSend(send.clear().wrId(3).opcode(Opcode.SEND)
                .addSge(local.address(), 8, local.lkey())))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("closed");
            await(pair.connectionB::isDisconnected, "disconnect seen by the peer");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldMoveTheQueuePairToErrorWhenItsCompletionQueueOverruns(final Mode mode) throws IOException
    {
        try (RcPair pair = new RcPair(mode.provider(), 16, 7, 2))
        {
            final MemoryRegion local = pair.a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = pair.b.register(4096, Access.LOCAL_WRITE);
            for (int i = 0; i < 4; i++)
            {
                pair.qpB.postReceive(receive.set(i, sink.address() + i * 64L, 64, sink.lkey()));
            }
            for (int i = 0; i < 4; i++)
            {
                pair.qpA.postSend(send.clear().wrId(i).opcode(Opcode.SEND).addSge(local.address(), 8, local.lkey()));
            }
            await(() -> pair.qpB.state() == QpState.ERROR, "overrun queue pair in ERROR");
            final WorkCompletion[] completions = { new WorkCompletion(), new WorkCompletion(), new WorkCompletion() };
            assertThat(pair.b.receiveCq.poll(completions)).isEqualTo(2);
            assertThatThrownBy(() -> pair.b.receiveCq.poll(completions))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("overrun");
            assertThat(pair.b.context.completionQueueOverruns()).isGreaterThanOrEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldFailToConnectWhereNobodyListensAndWhenRejected(final Mode mode) throws IOException
    {
        final SoftVerbsProvider provider = mode.provider();
        try (SoftTestSupport.Device a = new SoftTestSupport.Device(provider, 16);
            SoftTestSupport.Device b = new SoftTestSupport.Device(provider, 16))
        {
            final int freePort;
            try (ServerSocket socket = new ServerSocket(0, 1, loopback()))
            {
                freePort = socket.getLocalPort();
            }
            final CmConnection nowhere = a.context.connect(new InetSocketAddress(loopback(), freePort), a.config(4, 7));
            awaitFailure(nowhere);
            nowhere.close();

            try (CmListener listener = b.context.listen(new InetSocketAddress(loopback(), 0), 4))
            {
                final CmConnection refused = a.context.connect(listener.localAddress(), a.config(4, 7));
                final CmRequest[] request = new CmRequest[1];
                await(() ->
                {
                    try
                    {
                        return (request[0] = listener.poll()) != null;
                    }
                    catch (final IOException ex)
                    {
                        throw new AssertionError(ex);
                    }
                }, "request");
                assertThat(request[0].remoteAddress().getAddress().isLoopbackAddress()).isTrue();
                request[0].reject();
                awaitFailure(refused);
                refused.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRefuseSendsBeforeEstablishmentAndNonLoopbackPeers(final Mode mode) throws IOException
    {
        try (SoftTestSupport.Device a = new SoftTestSupport.Device(mode.provider(), 16))
        {
            assertThatThrownBy(() -> a.context.connect(new InetSocketAddress("10.1.2.3", 7000), a.config(4, 7)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("loopback only");
            assertThatThrownBy(() -> a.context.listen(new InetSocketAddress("0.0.0.0", 0), 4))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("loopback only");

            try (CmListener listener = a.context.listen(new InetSocketAddress(loopback(), 0), 4))
            {
                final CmConnection connection = a.context.connect(listener.localAddress(), a.config(4, 7));
                final QueuePair qp = connection.queuePair();
                assertThat(qp.state()).isIn(QpState.INIT, QpState.RTR);
                final MemoryRegion local = a.register(64, Access.LOCAL_WRITE);
                assertThatThrownBy(() -> qp.postSend(send.clear().opcode(Opcode.SEND)
                    .addSge(local.address(), 8, local.lkey())))
                    .isInstanceOf(VerbsException.class)
                    .hasMessageContaining("not ready");
                connection.close();
            }
        }
    }

    @Test
    void shouldShrugOffAStrayTcpClientAndKeepServing() throws IOException
    {
        final SoftVerbsProvider provider = new SoftVerbsProvider();
        try (SoftTestSupport.Device a = new SoftTestSupport.Device(provider, 16);
            SoftTestSupport.Device b = new SoftTestSupport.Device(provider, 16);
            CmListener listener = b.context.listen(new InetSocketAddress(loopback(), 0), 4))
        {
            try (Socket stray = new Socket(loopback(), listener.localAddress().getPort()))
            {
                final byte[] garbage = new byte[256];
                new SplittableRandom(3).nextBytes(garbage);
                garbage[0] = (byte)0xFF; // a frame length no frame has
                stray.getOutputStream().write(garbage);
                stray.getOutputStream().flush();
                await(() -> b.context.protocolErrors() >= 1, "the stray client refused");
                assertThat(stray.getInputStream().read()).as("closed by the soft device").isEqualTo(-1);
            }

            final CmConnection connection = a.context.connect(listener.localAddress(), a.config(4, 7));
            final CmRequest[] request = new CmRequest[1];
            await(() ->
            {
                try
                {
                    return (request[0] = listener.poll()) != null;
                }
                catch (final IOException ex)
                {
                    throw new AssertionError(ex);
                }
            }, "a real request");
            final CmConnection accepted = request[0].accept(b.config(4, 7));
            await(() ->
            {
                try
                {
                    return connection.poll() != null && accepted.poll() != null;
                }
                catch (final IOException ex)
                {
                    throw new AssertionError(ex);
                }
            }, "established");
            connection.close();
            accepted.close();
        }
    }

    private static void awaitFailure(final CmConnection connection)
    {
        Await.value(Duration.ofNanos(TIMEOUT_NS), () ->
        {
            try
            {
                assertThat(connection.poll()).isNull();
                return null;
            }
            catch (final IOException expected)
            {
                return expected;
            }
        }, () -> "the connection to fail");
    }

    private static void post(final QueuePair qp, final SendWorkRequest request) throws IOException
    {
        qp.postSend(request);
    }

    private static void assertSuccess(
        final CompletionQueue cq, final long wrId, final WcOpcode opcode, final int byteLength) throws IOException
    {
        final WorkCompletion wc = pollOne(cq);
        assertThat(wc.status()).as(wc.toString()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId()).isEqualTo(wrId);
        assertThat(wc.opcode()).isEqualTo(opcode);
        assertThat(wc.byteLength()).isEqualTo(byteLength);
    }

    static void fill(final ByteBuffer buffer, final int offset, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            buffer.put(offset + i, (byte)(i * 7 + seed));
        }
    }

    static byte[] slice(final ByteBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.get(offset, bytes);
        return bytes;
    }
}
