package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.rivulet.transport.rdma.disni.NativeVerbs.EINVAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * librivulet-verbs without a device: the device list, argument checks on every call, error texts, and
 * the send work requests it builds from Java's descriptor (read back through {@code decodeSendWr}).
 */
class NativeVerbsTest
{
    /** Stands in for pointers that C stores but never dereferences while building a request. */
    private static final long FAKE_AH = 0x7f00_1234_5678L;
    private static final long FAKE_HANDLE = 0x7f00_0000_1000L;

    private final NativeWorkRequest request = new NativeWorkRequest();
    private final NativeWorkRequest decoded = new NativeWorkRequest();

    @BeforeEach
    void requireLibrary()
    {
        NativeVerbsTestSupport.requireLibrary();
    }

    @Test
    void shouldReportNoDeviceClearlyWhenTheDeviceListIsEmpty()
    {
        final int count = NativeVerbs.deviceCount();
        final String reason = NativeVerbs.noDeviceReason();
        if (new RdmaDevices().names().isEmpty())
        {
            assertThat(count).isLessThanOrEqualTo(0);
            assertThat(reason).startsWith("no RDMA device: ibv_get_device_list");
            if (count == 0)
            {
                assertThat(reason).isEqualTo("no RDMA device: ibv_get_device_list returned 0 devices");
            }
            else
            {
                assertThat(reason).contains("ibv_get_device_list failed: ").contains("(errno " + -count);
            }
        }
        else
        {
            assertThat(count).isPositive();
            assertThat(reason).isNull();
        }
    }

    @Test
    void shouldTurnANegativeResultIntoAnErrorNamingTheCallAndErrno() throws VerbsException
    {
        assertThat(NativeVerbs.errnoText(EINVAL)).isEqualTo("Invalid argument");
        assertThat(NativeVerbs.failure("ibv_create_ah", -EINVAL))
            .hasMessage("ibv_create_ah failed: Invalid argument (errno 22)");
        assertThat(NativeVerbs.failure("ibv_post_send", -NativeVerbs.ENOMEM))
            .hasMessage("ibv_post_send failed: Cannot allocate memory (errno 12)");
        assertThatThrownBy(() -> NativeVerbs.check("ibv_create_qp (UD)", -19))
            .isInstanceOf(VerbsException.class).hasMessage("ibv_create_qp (UD) failed: No such device (errno 19)");
        assertThat(NativeVerbs.check("ibv_create_qp", 42)).isEqualTo(42);
    }

    @Test
    void shouldRefuseNullHandlesInEveryCall()
    {
        final long out = NativeVerbs.addressOf(ByteBuffer.allocateDirect(64));
        assertThat(NativeVerbs.cmIdPort(0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.queryPort(0, 1, out)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.queryGid(0, 1, 0, out)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createUdQp(0, FAKE_HANDLE, FAKE_HANDLE, 16, 16, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createUdQp(FAKE_HANDLE, 0, FAKE_HANDLE, 16, 16, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createUdQp(FAKE_HANDLE, FAKE_HANDLE, 0, 16, 16, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.modifyUdQpToInit(0, 1, 0x1111, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.modifyUdQpToRtr(0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.modifyUdQpToRts(0, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.qpNumber(0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.destroyQp(0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createAh(0, 0, 1, 0, 1, 0, 64, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.destroyAh(0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.attachMulticast(0, 0xff0e_0000_0000_0000L, 1, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.detachMulticast(0, 0xff0e_0000_0000_0000L, 1, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.postSend(0, request.address())).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.postSend(FAKE_HANDLE, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.postReceive(0, 1, 0x1000, 64, 1)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.decodeSendWr(0, decoded.address())).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.decodeSendWr(request.address(), 0)).isEqualTo(-EINVAL);
    }

    @Test
    void shouldRefuseOutOfRangeArgumentsBeforeTouchingAHandle()
    {
        // FAKE_HANDLE is not a real object: a call that got past its argument checks would crash the JVM
        final long out = NativeVerbs.addressOf(ByteBuffer.allocateDirect(64));
        assertThat(NativeVerbs.queryPort(FAKE_HANDLE, 0, out)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.queryPort(FAKE_HANDLE, 256, out)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.queryPort(FAKE_HANDLE, 1, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.queryGid(FAKE_HANDLE, 1, -1, out)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createUdQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, 0, 16, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createUdQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, 16, 0, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createUdQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, 16, 16, -1)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.modifyUdQpToInit(FAKE_HANDLE, 0, 0x1111, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.modifyUdQpToInit(FAKE_HANDLE, 1, 0x1111, 0x10000)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.modifyUdQpToRts(FAKE_HANDLE, 0x1000000)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createAh(FAKE_HANDLE, 0, 1, 0x10000, 1, 0, 64, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createAh(FAKE_HANDLE, 0, 1, 0, 0, 0, 64, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createAh(FAKE_HANDLE, 0, 1, 0, 1, 256, 64, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createAh(FAKE_HANDLE, 0, 1, 0, 1, 0, 256, 0)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.createAh(FAKE_HANDLE, 0, 1, 0, 1, 0, 64, 16)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.attachMulticast(FAKE_HANDLE, -1, 1, 0x10000)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.detachMulticast(FAKE_HANDLE, -1, 1, -1)).isEqualTo(-EINVAL);
        assertThat(NativeVerbs.postReceive(FAKE_HANDLE, 1, 0x1000, -1, 1)).isEqualTo(-EINVAL);

        // malformed descriptors are refused before ibv_post_send sees the queue pair
        request.fill(new SendWorkRequest().opcode(Opcode.ATOMIC_FETCH_AND_ADD).addSge(0x1000, 4, 1).remote(0x2000, 2),
            DisniWorkRequests.ibvOpcode(Opcode.ATOMIC_FETCH_AND_ADD), 0, 0);
        assertThat(NativeVerbs.postSend(FAKE_HANDLE, request.address())).isEqualTo(-EINVAL);
    }

    @Test
    void shouldPutCompareAndSwapOperandsIntoTheAtomicFields()
    {
        final SendWorkRequest cas = new SendWorkRequest().wrId(77).opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .flags(SendWorkRequest.SIGNALED | SendWorkRequest.FENCE).addSge(0x7000_0010L, 8, 0x1234)
            .remote(0x5555_0000_0008L, 0xcafe).atomic(0x1111_2222_3333_4444L, 0x5555_6666_7777_8888L);

        decode(cas, 0);

        assertThat(decoded.getLong(NativeWorkRequest.WR_ID)).isEqualTo(77);
        assertThat(decoded.getInt(NativeWorkRequest.OPCODE)).isEqualTo(5);
        assertThat(decoded.getInt(NativeWorkRequest.SEND_FLAGS))
            .isEqualTo(DisniWorkRequests.IBV_SEND_SIGNALED | DisniWorkRequests.IBV_SEND_FENCE);
        assertThat(decoded.getLong(NativeWorkRequest.REMOTE_ADDR)).isEqualTo(0x5555_0000_0008L);
        assertThat(decoded.getInt(NativeWorkRequest.RKEY)).isEqualTo(0xcafe);
        assertThat(decoded.getLong(NativeWorkRequest.COMPARE_ADD)).isEqualTo(0x1111_2222_3333_4444L);
        assertThat(decoded.getLong(NativeWorkRequest.SWAP)).isEqualTo(0x5555_6666_7777_8888L);
        assertThat(decoded.getInt(NativeWorkRequest.NUM_SGE)).isEqualTo(1);
        assertThat(decoded.getLong(NativeWorkRequest.SGE)).isEqualTo(0x7000_0010L);
        assertThat(decoded.getInt(NativeWorkRequest.SGE + 8)).isEqualTo(8);
        assertThat(decoded.getInt(NativeWorkRequest.SGE + 12)).isEqualTo(0x1234);
        assertThat(decoded.getLong(NativeWorkRequest.AH)).isZero();
    }

    @Test
    void shouldPutTheAddendOfFetchAndAddIntoCompareAdd()
    {
        decode(new SendWorkRequest().wrId(-1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).addSge(0x1000, 8, 9)
            .remote(0x2000, 0x77).atomic(-5, 0), 0);

        assertThat(decoded.getLong(NativeWorkRequest.WR_ID)).isEqualTo(-1);
        assertThat(decoded.getInt(NativeWorkRequest.OPCODE)).isEqualTo(6);
        assertThat(decoded.getLong(NativeWorkRequest.COMPARE_ADD)).isEqualTo(-5);
        assertThat(decoded.getLong(NativeWorkRequest.SWAP)).isZero();
        assertThat(decoded.getInt(NativeWorkRequest.RKEY)).isEqualTo(0x77);
    }

    @Test
    void shouldPutAddressHandleQpnAndQkeyIntoTheUdFieldsWithImmediateInNetworkOrder()
    {
        final SendWorkRequest send = new SendWorkRequest().wrId(5).opcode(Opcode.SEND_WITH_IMM).immData(0x0102_0304)
            .flags(SendWorkRequest.INLINE).addSge(0x1000, 100, 1).addSge(0x2000, 200, 2).addSge(0x3000, 300, 3)
            .addSge(0x4000, 400, 4).ud(null, 0xabcdef, 0x1111_2222);

        decode(send, FAKE_AH);

        assertThat(decoded.getInt(NativeWorkRequest.OPCODE)).isEqualTo(3);
        assertThat(decoded.getLong(NativeWorkRequest.AH)).isEqualTo(FAKE_AH);
        assertThat(decoded.getInt(NativeWorkRequest.REMOTE_QPN)).isEqualTo(0xabcdef);
        assertThat(decoded.getInt(NativeWorkRequest.REMOTE_QKEY)).isEqualTo(0x1111_2222);
        // decodeSendWr reads imm_data back with ntohl: equal means C stored it with htonl
        assertThat(decoded.getInt(NativeWorkRequest.IMM_DATA)).isEqualTo(0x0102_0304);
        assertThat(decoded.getInt(NativeWorkRequest.SEND_FLAGS)).isEqualTo(DisniWorkRequests.IBV_SEND_INLINE);
        assertThat(decoded.getInt(NativeWorkRequest.NUM_SGE)).isEqualTo(4);
        for (int i = 0; i < 4; i++)
        {
            final int offset = NativeWorkRequest.SGE + i * NativeWorkRequest.SGE_SIZE;
            assertThat(decoded.getLong(offset)).isEqualTo(0x1000L * (i + 1));
            assertThat(decoded.getInt(offset + 8)).isEqualTo(100 * (i + 1));
            assertThat(decoded.getInt(offset + 12)).isEqualTo(i + 1);
        }
        assertThat(decoded.getLong(NativeWorkRequest.COMPARE_ADD)).isZero();
    }

    @Test
    void shouldPutRemoteAddressAndRkeyIntoTheRdmaFields()
    {
        decode(new SendWorkRequest().opcode(Opcode.RDMA_WRITE).addSge(0x1000, 64, 1).remote(0x9000, 0x4444), 0);

        assertThat(decoded.getInt(NativeWorkRequest.OPCODE)).isEqualTo(0);
        assertThat(decoded.getLong(NativeWorkRequest.REMOTE_ADDR)).isEqualTo(0x9000);
        assertThat(decoded.getInt(NativeWorkRequest.RKEY)).isEqualTo(0x4444);
    }

    @Test
    void shouldZeroWhatAPreviousRequestLeftInTheDescriptor()
    {
        request.fill(new SendWorkRequest().opcode(Opcode.SEND).addSge(1, 2, 3).addSge(4, 5, 6).ud(null, 9, 10),
            DisniWorkRequests.ibvOpcode(Opcode.SEND), 0, FAKE_AH);
        request.fill(new SendWorkRequest().opcode(Opcode.ATOMIC_CMP_AND_SWP).addSge(0x1000, 8, 1).remote(0x2000, 2),
            DisniWorkRequests.ibvOpcode(Opcode.ATOMIC_CMP_AND_SWP), 0, 0);

        assertThat(request.getLong(NativeWorkRequest.AH)).isZero();
        assertThat(request.getInt(NativeWorkRequest.REMOTE_QPN)).isZero();
        assertThat(request.getInt(NativeWorkRequest.REMOTE_QKEY)).isZero();
        assertThat(request.getLong(NativeWorkRequest.SGE + NativeWorkRequest.SGE_SIZE)).isZero();
        assertThat(request.getInt(NativeWorkRequest.SGE + NativeWorkRequest.SGE_SIZE + 8)).isZero();
    }

    @Test
    void shouldRefuseDescriptorsTheDeviceCouldNotExecute()
    {
        // atomics: one 8-byte SGE, 8-byte aligned target
        assertThat(decodeResult(new SendWorkRequest().opcode(Opcode.ATOMIC_CMP_AND_SWP).addSge(0x1000, 8, 1)
            .addSge(0x2000, 8, 1).remote(0x3000, 1), 0)).isEqualTo(-EINVAL);
        assertThat(decodeResult(new SendWorkRequest().opcode(Opcode.ATOMIC_CMP_AND_SWP).addSge(0x1000, 16, 1)
            .remote(0x3000, 1), 0)).isEqualTo(-EINVAL);
        assertThat(decodeResult(new SendWorkRequest().opcode(Opcode.ATOMIC_FETCH_AND_ADD).addSge(0x1000, 8, 1)
            .remote(0x3001, 1), 0)).isEqualTo(-EINVAL);
        // UD carries sends only
        assertThat(decodeResult(new SendWorkRequest().opcode(Opcode.RDMA_WRITE).addSge(0x1000, 8, 1), FAKE_AH))
            .isEqualTo(-EINVAL);
        // hostile raw values: unknown opcode, SGE counts out of range
        request.fill(new SendWorkRequest().addSge(0x1000, 8, 1), 9, 0, 0);
        assertThat(NativeVerbs.decodeSendWr(request.address(), decoded.address())).isEqualTo(-EINVAL);
        request.fill(new SendWorkRequest().addSge(0x1000, 8, 1), 2, 0, 0);
        request.putInt(NativeWorkRequest.NUM_SGE, 5);
        assertThat(NativeVerbs.decodeSendWr(request.address(), decoded.address())).isEqualTo(-EINVAL);
        request.putInt(NativeWorkRequest.NUM_SGE, -1);
        assertThat(NativeVerbs.decodeSendWr(request.address(), decoded.address())).isEqualTo(-EINVAL);
    }

    @Test
    void shouldBuildSendsWithoutAllocatingOnceWarm() throws VerbsException
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final AddressHandle handle = new FixedAddressHandle();
        final SendWorkRequest ud = new SendWorkRequest();
        final SendWorkRequest atomic = new SendWorkRequest();
        final long[] checksum = new long[1];
        final Runnable round = () ->
        {
            for (int i = 0; i < 10_000; i++)
            {
                ud.clear().wrId(i).opcode(Opcode.SEND_WITH_IMM).immData(i).addSge(0x1000, 64, 1).ud(handle, 7, 9);
                atomic.clear().wrId(i).opcode(Opcode.ATOMIC_FETCH_AND_ADD).addSge(0x2000, 8, 1).remote(0x3000, 2)
                    .atomic(i, 0);
                try
                {
                    DisniWorkRequests.validateUdSend(ud, 0);
                    DisniWorkRequests.validateSend(atomic, 0);
                }
                catch (final VerbsException ex)
                {
                    throw new IllegalStateException(ex);
                }
                request.fill(ud, DisniWorkRequests.ibvOpcode(ud.opcode()), DisniWorkRequests.ibvSendFlags(ud.flags()),
                    FAKE_AH);
                checksum[0] += NativeVerbs.decodeSendWr(request.address(), decoded.address());
                request.fill(atomic, DisniWorkRequests.ibvOpcode(atomic.opcode()), 0, 0);
                checksum[0] += NativeVerbs.decodeSendWr(request.address(), decoded.address());
            }
        };
        round.run();
        final long before = threads.getCurrentThreadAllocatedBytes();
        round.run();
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(checksum[0]).as("every request was accepted").isZero();
        assertThat(decoded.getLong(NativeWorkRequest.COMPARE_ADD)).isEqualTo(9_999);
        // the bound leaves room for a stray JIT or profiler allocation, far below one object per request
        assertThat(allocated).as("bytes allocated for 20,000 validated and built requests").isLessThan(4096);
    }

    private void decode(final SendWorkRequest source, final long ah)
    {
        assertThat(decodeResult(source, ah)).isZero();
    }

    private int decodeResult(final SendWorkRequest source, final long ah)
    {
        request.fill(source, DisniWorkRequests.ibvOpcode(source.opcode()),
            DisniWorkRequests.ibvSendFlags(source.flags()), ah);
        return NativeVerbs.decodeSendWr(request.address(), decoded.address());
    }

    private static final class FixedAddressHandle implements AddressHandle
    {
        private final UdAddress destination = new UdAddress("0:0:0:0:0:0:0:1/0", 7, 9);

        @Override
        public UdAddress destination()
        {
            return destination;
        }

        @Override
        public void close()
        {
        }
    }
}
