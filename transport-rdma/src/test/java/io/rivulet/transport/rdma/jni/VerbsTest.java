package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.rivulet.transport.rdma.jni.Verbs.EINVAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * librivulet-verbs without a device: the device list, argument checks on every call, error texts, and
 * the send work requests it builds from Java's descriptor (read back through {@code decodeSendWr}).
 */
class VerbsTest
{
    /** Stands in for pointers that C stores but never dereferences while building a request. */
    private static final long FAKE_AH = 0x7f00_1234_5678L;
    private static final long FAKE_HANDLE = 0x7f00_0000_1000L;

    private final SendChain request = new SendChain(1);
    private final SendChain decoded = new SendChain(1);

    @BeforeEach
    void requireLibrary()
    {
        NativeLibraryTestSupport.requireLibrary();
    }

    @Test
    void shouldReportNoDeviceClearlyWhenTheDeviceListIsEmpty()
    {
        final int count = Verbs.deviceCount();
        final String reason = Verbs.noDeviceReason();
        if (new java.io.File("/sys/class/infiniband").list() == null || new java.io.File("/sys/class/infiniband").list().length == 0)
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
        assertThat(Verbs.errnoText(EINVAL)).isEqualTo("Invalid argument");
        assertThat(Verbs.failure("ibv_create_ah", -EINVAL))
            .hasMessage("ibv_create_ah failed: Invalid argument (errno 22)");
        assertThat(Verbs.failure("ibv_post_send", -Verbs.ENOMEM))
            .hasMessage("ibv_post_send failed: Cannot allocate memory (errno 12)");
        assertThatThrownBy(() -> Verbs.check("ibv_create_qp (UD)", -19))
            .isInstanceOf(VerbsException.class).hasMessage("ibv_create_qp (UD) failed: No such device (errno 19)");
        assertThat(Verbs.check("ibv_create_qp", 42)).isEqualTo(42);
    }

    @Test
    void shouldRefuseNullHandlesInEveryCall()
    {
        final long out = Verbs.addressOf(ByteBuffer.allocateDirect(128));
        assertThat(Verbs.queryDevice(0, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.queryPort(0, 1, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.queryGid(0, 1, 0, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.allocPd(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.deallocPd(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.regMr(0, FAKE_HANDLE, 64, 1, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.deregMr(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.createCq(0, 16)).isEqualTo(-EINVAL);
        assertThat(Verbs.cqEntries(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.destroyCq(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.pollCq(0, 1, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(0, FAKE_HANDLE, FAKE_HANDLE, Verbs.QPT_UD, 16, 16, 4, 1, 0, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(FAKE_HANDLE, 0, FAKE_HANDLE, Verbs.QPT_UD, 16, 16, 4, 1, 0, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(FAKE_HANDLE, FAKE_HANDLE, 0, Verbs.QPT_UD, 16, 16, 4, 1, 0, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.udQpToRts(0, 1, 0, 0x1111)).isEqualTo(-EINVAL);
        assertThat(Verbs.modifyQpToReset(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.modifyQpToError(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.queryQpState(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.qpNumber(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.destroyQp(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAh(0, 0, 1, 0, 1, 0, 64, 0, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.destroyAh(0)).isEqualTo(-EINVAL);
        assertThat(Verbs.attachMulticast(0, 0xff0e_0000_0000_0000L, 1, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.detachMulticast(0, 0xff0e_0000_0000_0000L, 1, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.chainErrno(Verbs.postSend(0, request.address(), 1))).isEqualTo(EINVAL);
        assertThat(Verbs.chainErrno(Verbs.postSend(FAKE_HANDLE, 0, 1))).isEqualTo(EINVAL);
        assertThat(Verbs.chainErrno(Verbs.postRecv(0, request.address(), 1))).isEqualTo(EINVAL);
        assertThat(Verbs.decodeSendWr(0, decoded.address())).isEqualTo(-EINVAL);
        assertThat(Verbs.decodeSendWr(request.address(), 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.destroyEventChannel(0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.createId(0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.destroyId(0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.bindAddr(0, 4, 0, 0x7f000001, 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.resolveAddr(0, 4, 0, 0x7f000001, 1, 1000)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.resolveRoute(0, 1000)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.listen(0, 1)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.createQp(0, FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, 1, 1, 1, 1, 0, out)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.destroyQp(0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.connect(0, 1, 1, 7, 7, 0, 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.accept(0, 1, 1, 7, 0, 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.reject(0, 0, 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.disconnect(0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.getEvent(0, out)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.idInfo(0, out)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.createUdId(0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.joinMulticast(0, 4, 0, 0xef010203L)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.leaveMulticast(0, 4, 0, 0xef010203L)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAhFromAttr(0, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAhFromAttr(FAKE_HANDLE, 0)).isEqualTo(-EINVAL);
    }

    @Test
    void shouldRefuseOutOfRangeMulticastAttributesBeforeTouchingAHandle()
    {
        assertThat(RdmaCm.joinMulticast(FAKE_HANDLE, 5, 0, 0xef010203L)).as("no such family").isEqualTo(-EINVAL);
        assertThat(RdmaCm.leaveMulticast(FAKE_HANDLE, 0, 0, 0xef010203L)).as("no such family").isEqualTo(-EINVAL);
        final int[][] bad = {
            {UdAttributes.PORT_NUM, 0}, {UdAttributes.PORT_NUM, 256}, {UdAttributes.SL, 16}, {UdAttributes.DLID, 0x10000},
            {UdAttributes.IS_GLOBAL, 2}, {UdAttributes.SGID_INDEX, 256}, {UdAttributes.HOP_LIMIT, -1},
            {UdAttributes.TRAFFIC_CLASS, 256}, {UdAttributes.FLOW_LABEL, 0x100000}, {40, 128}, {44, -1}};
        for (final int[] field : bad)
        {
            final ByteBuffer attributes = validAttributes();
            attributes.putInt(field[0], field[1]);
            assertThat(Verbs.createAhFromAttr(FAKE_HANDLE, Verbs.addressOf(attributes)))
                .as("offset %d = %d", field[0], field[1]).isEqualTo(-EINVAL);
        }
    }

    @Test
    void shouldReadTheAttributesOfAJoinEventInTheLayoutCWritesThem()
    {
        final ByteBuffer written = validAttributes();
        final UdAttributes attributes = new UdAttributes();
        attributes.copyFrom(new org.agrona.concurrent.UnsafeBuffer(written), 0);
        assertThat(attributes.gid().format()).isEqualTo("0000:0000:0000:0000:0000:ffff:ef01:0203/0");
        assertThat(attributes.qpNumber()).isEqualTo(0xFFFFFF);
        assertThat(attributes.qkey()).isEqualTo(UdAttributes.RDMA_UDP_QKEY);
        assertThat(attributes.portNumber()).isEqualTo(1);
        assertThat(attributes.sgidIndex()).isEqualTo(1);
        assertThat(attributes.hopLimit()).isEqualTo(64);
        assertThat(attributes.isGlobal()).isTrue();
        assertThat(attributes.serviceLevel()).isZero();
        assertThat(attributes.toString()).contains("qkey=0x1234567").contains("qpn=0xffffff");
    }

    /** What a RoCE v2 join of 239.1.2.3 gives: MGID ::ffff:239.1.2.3, MLID 0, port 1, GID index 1, hop limit 64. */
    private static ByteBuffer validAttributes()
    {
        final ByteBuffer attributes = ByteBuffer.allocateDirect(UdAttributes.SIZE).order(java.nio.ByteOrder.nativeOrder());
        attributes.put(10, (byte)0xff).put(11, (byte)0xff).put(12, (byte)239).put(13, (byte)1).put(14, (byte)2)
            .put(15, (byte)3);
        attributes.putInt(UdAttributes.SGID_INDEX, 1).putInt(UdAttributes.HOP_LIMIT, 64)
            .putInt(UdAttributes.IS_GLOBAL, 1).putInt(UdAttributes.PORT_NUM, 1)
            .putInt(UdAttributes.QP_NUM, 0xFFFFFF).putInt(UdAttributes.QKEY, UdAttributes.RDMA_UDP_QKEY);
        return attributes;
    }

    @Test
    void shouldRefuseOutOfRangeArgumentsBeforeTouchingAHandle()
    {
        // FAKE_HANDLE is not a real object: a call that got past its argument checks would crash the JVM
        final long out = Verbs.addressOf(ByteBuffer.allocateDirect(128));
        assertThat(Verbs.queryPort(FAKE_HANDLE, 0, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.queryPort(FAKE_HANDLE, 256, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.queryPort(FAKE_HANDLE, 1, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.queryGid(FAKE_HANDLE, 1, -1, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.regMr(FAKE_HANDLE, FAKE_HANDLE, 0, 1, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.regMr(FAKE_HANDLE, 0, 64, 1, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.createCq(FAKE_HANDLE, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.pollCq(FAKE_HANDLE, -1, out)).isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, 3, 16, 16, 4, 1, 0, out))
            .as("neither RC nor UD").isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, Verbs.QPT_UD, 0, 16, 4, 1, 0, out))
            .isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, Verbs.QPT_UD, 16, 0, 4, 1, 0, out))
            .isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, Verbs.QPT_UD, 16, 16, 5, 1, 0, out))
            .isEqualTo(-EINVAL);
        assertThat(Verbs.createQp(FAKE_HANDLE, FAKE_HANDLE, FAKE_HANDLE, Verbs.QPT_UD, 16, 16, 4, 1, -1, out))
            .isEqualTo(-EINVAL);
        assertThat(Verbs.udQpToRts(FAKE_HANDLE, 0, 0, 0x1111)).isEqualTo(-EINVAL);
        assertThat(Verbs.udQpToRts(FAKE_HANDLE, 1, 0x10000, 0x1111)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAh(FAKE_HANDLE, 0, 1, 0x10000, 1, 0, 64, 0, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAh(FAKE_HANDLE, 0, 1, 0, 0, 0, 64, 0, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAh(FAKE_HANDLE, 0, 1, 0, 1, 256, 64, 0, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAh(FAKE_HANDLE, 0, 1, 0, 1, 0, 256, 0, 0)).isEqualTo(-EINVAL);
        assertThat(Verbs.createAh(FAKE_HANDLE, 0, 1, 0, 1, 0, 64, 256, 0)).as("traffic class").isEqualTo(-EINVAL);
        assertThat(Verbs.createAh(FAKE_HANDLE, 0, 1, 0, 1, 0, 64, 0, 16)).isEqualTo(-EINVAL);
        assertThat(Verbs.attachMulticast(FAKE_HANDLE, -1, 1, 0x10000)).isEqualTo(-EINVAL);
        assertThat(Verbs.detachMulticast(FAKE_HANDLE, -1, 1, -1)).isEqualTo(-EINVAL);
        assertThat(Verbs.chainErrno(Verbs.postSend(FAKE_HANDLE, request.address(), 0))).isEqualTo(EINVAL);
        assertThat(Verbs.chainErrno(Verbs.postSend(FAKE_HANDLE, request.address(), Verbs.MAX_CHAIN + 1)))
            .isEqualTo(EINVAL);
        assertThat(RdmaCm.bindAddr(FAKE_HANDLE, 5, 0, 1, 0)).as("no such family").isEqualTo(-EINVAL);
        assertThat(RdmaCm.bindAddr(FAKE_HANDLE, 4, 0, 1, 0x10000)).as("port out of range").isEqualTo(-EINVAL);
        assertThat(RdmaCm.resolveAddr(FAKE_HANDLE, 4, 0, 1, 1, 0)).as("no timeout").isEqualTo(-EINVAL);
        assertThat(RdmaCm.listen(FAKE_HANDLE, 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.connect(FAKE_HANDLE, 256, 1, 7, 7, 0, 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.connect(FAKE_HANDLE, 1, 1, 8, 7, 0, 0)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.connect(FAKE_HANDLE, 1, 1, 7, 7, 0, 4)).as("private data without a buffer").isEqualTo(-EINVAL);
        assertThat(RdmaCm.accept(FAKE_HANDLE, 1, 1, 7, out, RdmaCm.PRIVATE_DATA_MAX + 1)).isEqualTo(-EINVAL);
        assertThat(RdmaCm.reject(FAKE_HANDLE, 0, 1)).isEqualTo(-EINVAL);

        // malformed descriptors are refused before ibv_post_send sees the queue pair, naming the failing one
        final SendChain chain = new SendChain(3);
        final SendWorkRequest send = new SendWorkRequest().opcode(Opcode.SEND).addSge(0x1000, 8, 1);
        chain.fill(0, send, 0).fill(1, send, 0)
            .fill(2, new SendWorkRequest().opcode(Opcode.ATOMIC_FETCH_AND_ADD).addSge(0x1000, 4, 1).remote(0x2000, 2), 0);
        final int result = chain.post(FAKE_HANDLE, 3);
        assertThat(Verbs.chainErrno(result)).isEqualTo(EINVAL);
        assertThat(Verbs.chainFailedIndex(result)).isEqualTo(2);
        final ReceiveChain receives = new ReceiveChain(2);
        receives.fill(0, new io.rivulet.transport.rdma.verbs.ReceiveWorkRequest().set(1, 0x1000, 64, 1))
            .fill(1, new io.rivulet.transport.rdma.verbs.ReceiveWorkRequest().set(2, 0x1000, -1, 1));
        final int received = receives.post(FAKE_HANDLE, 2);
        assertThat(Verbs.chainErrno(received)).isEqualTo(EINVAL);
        assertThat(Verbs.chainFailedIndex(received)).isEqualTo(1);
    }

    @Test
    void shouldPutCompareAndSwapOperandsIntoTheAtomicFields()
    {
        final SendWorkRequest cas = new SendWorkRequest().wrId(77).opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .flags(SendWorkRequest.SIGNALED | SendWorkRequest.FENCE).addSge(0x7000_0010L, 8, 0x1234)
            .remote(0x5555_0000_0008L, 0xcafe).atomic(0x1111_2222_3333_4444L, 0x5555_6666_7777_8888L);

        decode(cas, 0);

        assertThat(decoded.getLong(SendChain.WR_ID)).isEqualTo(77);
        assertThat(decoded.getInt(SendChain.OPCODE)).isEqualTo(5);
        assertThat(decoded.getInt(SendChain.SEND_FLAGS))
            .isEqualTo(WorkRequests.IBV_SEND_SIGNALED | WorkRequests.IBV_SEND_FENCE);
        assertThat(decoded.getLong(SendChain.REMOTE_ADDR)).isEqualTo(0x5555_0000_0008L);
        assertThat(decoded.getInt(SendChain.RKEY)).isEqualTo(0xcafe);
        assertThat(decoded.getLong(SendChain.COMPARE_ADD)).isEqualTo(0x1111_2222_3333_4444L);
        assertThat(decoded.getLong(SendChain.SWAP)).isEqualTo(0x5555_6666_7777_8888L);
        assertThat(decoded.getInt(SendChain.NUM_SGE)).isEqualTo(1);
        assertThat(decoded.getLong(SendChain.SGE)).isEqualTo(0x7000_0010L);
        assertThat(decoded.getInt(SendChain.SGE + 8)).isEqualTo(8);
        assertThat(decoded.getInt(SendChain.SGE + 12)).isEqualTo(0x1234);
        assertThat(decoded.getLong(SendChain.AH)).isZero();
    }

    @Test
    void shouldPutTheAddendOfFetchAndAddIntoCompareAdd()
    {
        decode(new SendWorkRequest().wrId(-1).opcode(Opcode.ATOMIC_FETCH_AND_ADD).addSge(0x1000, 8, 9)
            .remote(0x2000, 0x77).atomic(-5, 0), 0);

        assertThat(decoded.getLong(SendChain.WR_ID)).isEqualTo(-1);
        assertThat(decoded.getInt(SendChain.OPCODE)).isEqualTo(6);
        assertThat(decoded.getLong(SendChain.COMPARE_ADD)).isEqualTo(-5);
        assertThat(decoded.getLong(SendChain.SWAP)).isZero();
        assertThat(decoded.getInt(SendChain.RKEY)).isEqualTo(0x77);
    }

    @Test
    void shouldPutAddressHandleQpnAndQkeyIntoTheUdFieldsWithImmediateInNetworkOrder()
    {
        final SendWorkRequest send = new SendWorkRequest().wrId(5).opcode(Opcode.SEND_WITH_IMM).immData(0x0102_0304)
            .flags(SendWorkRequest.INLINE).addSge(0x1000, 100, 1).addSge(0x2000, 200, 2).addSge(0x3000, 300, 3)
            .addSge(0x4000, 400, 4).ud(null, 0xabcdef, 0x1111_2222);

        decode(send, FAKE_AH);

        assertThat(decoded.getInt(SendChain.OPCODE)).isEqualTo(3);
        assertThat(decoded.getLong(SendChain.AH)).isEqualTo(FAKE_AH);
        assertThat(decoded.getInt(SendChain.REMOTE_QPN)).isEqualTo(0xabcdef);
        assertThat(decoded.getInt(SendChain.REMOTE_QKEY)).isEqualTo(0x1111_2222);
        // decodeSendWr hands back imm_data as stored: the bytes 01 02 03 04 in wire (big-endian) order
        assertThat(decoded.getInt(SendChain.IMM_DATA)).isEqualTo(
            java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? 0x0403_0201 : 0x0102_0304);
        assertThat(decoded.getInt(SendChain.SEND_FLAGS)).isEqualTo(WorkRequests.IBV_SEND_INLINE);
        assertThat(decoded.getInt(SendChain.NUM_SGE)).isEqualTo(4);
        for (int i = 0; i < 4; i++)
        {
            final int offset = SendChain.SGE + i * SendChain.SGE_SIZE;
            assertThat(decoded.getLong(offset)).isEqualTo(0x1000L * (i + 1));
            assertThat(decoded.getInt(offset + 8)).isEqualTo(100 * (i + 1));
            assertThat(decoded.getInt(offset + 12)).isEqualTo(i + 1);
        }
        assertThat(decoded.getLong(SendChain.COMPARE_ADD)).isZero();
    }

    @Test
    void shouldPutRemoteAddressAndRkeyIntoTheRdmaFields()
    {
        decode(new SendWorkRequest().opcode(Opcode.RDMA_WRITE).addSge(0x1000, 64, 1).remote(0x9000, 0x4444), 0);

        assertThat(decoded.getInt(SendChain.OPCODE)).isEqualTo(0);
        assertThat(decoded.getLong(SendChain.REMOTE_ADDR)).isEqualTo(0x9000);
        assertThat(decoded.getInt(SendChain.RKEY)).isEqualTo(0x4444);
    }

    @Test
    void shouldZeroWhatAPreviousRequestLeftInTheDescriptor()
    {
        request.fill(0, new SendWorkRequest().opcode(Opcode.SEND).addSge(1, 2, 3).addSge(4, 5, 6).ud(null, 9, 10), FAKE_AH);
        request.fill(0, new SendWorkRequest().opcode(Opcode.ATOMIC_CMP_AND_SWP).addSge(0x1000, 8, 1).remote(0x2000, 2), 0);

        assertThat(request.getLong(SendChain.AH)).isZero();
        assertThat(request.getInt(SendChain.REMOTE_QPN)).isZero();
        assertThat(request.getInt(SendChain.REMOTE_QKEY)).isZero();
        assertThat(request.getLong(SendChain.SGE + SendChain.SGE_SIZE)).isZero();
        assertThat(request.getInt(SendChain.SGE + SendChain.SGE_SIZE + 8)).isZero();
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
        request.fill(0, new SendWorkRequest().addSge(0x1000, 8, 1), 0);
        request.putInt(SendChain.OPCODE, 9);
        assertThat(Verbs.decodeSendWr(request.address(), decoded.address())).isEqualTo(-EINVAL);
        request.fill(0, new SendWorkRequest().addSge(0x1000, 8, 1), 0);
        request.putInt(SendChain.NUM_SGE, 5);
        assertThat(Verbs.decodeSendWr(request.address(), decoded.address())).isEqualTo(-EINVAL);
        request.putInt(SendChain.NUM_SGE, -1);
        assertThat(Verbs.decodeSendWr(request.address(), decoded.address())).isEqualTo(-EINVAL);
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
                    WorkRequests.validateUdSend(ud, 0);
                    WorkRequests.validateSend(atomic, 0);
                }
                catch (final VerbsException ex)
                {
                    throw new IllegalStateException(ex);
                }
                request.fill(0, ud, FAKE_AH);
                checksum[0] += Verbs.decodeSendWr(request.address(), decoded.address());
                request.fill(0, atomic, 0);
                checksum[0] += Verbs.decodeSendWr(request.address(), decoded.address());
            }
        };
        round.run();
        final long before = threads.getCurrentThreadAllocatedBytes();
        round.run();
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(checksum[0]).as("every request was accepted").isZero();
        assertThat(decoded.getLong(SendChain.COMPARE_ADD)).isEqualTo(9_999);
        // the bound leaves room for a stray JIT or profiler allocation, far below one object per request
        assertThat(allocated).as("bytes allocated for 20,000 validated and built requests").isLessThan(4096);
    }

    private void decode(final SendWorkRequest source, final long ah)
    {
        assertThat(decodeResult(source, ah)).isZero();
    }

    private int decodeResult(final SendWorkRequest source, final long ah)
    {
        request.fill(0, source, ah);
        return Verbs.decodeSendWr(request.address(), decoded.address());
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
