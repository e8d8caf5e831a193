package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaConnParam;
import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DisniWorkRequestsTest
{
    private static QueuePairConfig config(final int maxInline, final int retry, final int rnrRetry)
    {
        return new QueuePairConfig(null, null, null, 64, 128, maxInline, retry, rnrRetry, 0);
    }

    @Test
    void shouldMapSpiSendFlagsToIbverbsBits()
    {
        assertThat(WorkRequests.ibvSendFlags(0)).isZero();
        assertThat(WorkRequests.ibvSendFlags(SendWorkRequest.SIGNALED)).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        assertThat(WorkRequests.ibvSendFlags(SendWorkRequest.INLINE)).isEqualTo(IbvSendWR.IBV_SEND_INLINE);
        assertThat(WorkRequests.ibvSendFlags(SendWorkRequest.FENCE)).isEqualTo(IbvSendWR.IBV_SEND_FENCE);
        assertThat(WorkRequests.ibvSendFlags(SendWorkRequest.SIGNALED | SendWorkRequest.INLINE | SendWorkRequest.FENCE))
            .isEqualTo(IbvSendWR.IBV_SEND_SIGNALED | IbvSendWR.IBV_SEND_INLINE | IbvSendWR.IBV_SEND_FENCE);
        // the SPI's bits are not ibverbs' bits: passing them through would turn SIGNALED into FENCE
        assertThat(SendWorkRequest.SIGNALED).isNotEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
    }

    @Test
    void shouldMapOpcodesToDisniConstants() throws VerbsException
    {
        assertThat(WorkRequests.ibvOpcode(Opcode.SEND)).isEqualTo(IbvSendWR.IBV_WR_SEND);
        assertThat(WorkRequests.ibvOpcode(Opcode.SEND_WITH_IMM)).isEqualTo(IbvSendWR.IBV_WR_SEND_WITH_IMM);
        assertThat(WorkRequests.ibvOpcode(Opcode.RDMA_WRITE)).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE);
        assertThat(WorkRequests.ibvOpcode(Opcode.RDMA_WRITE_WITH_IMM)).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        assertThat(WorkRequests.ibvOpcode(Opcode.RDMA_READ)).isEqualTo(IbvSendWR.IBV_WR_RDMA_READ);
    }

    @Test
    void shouldMapAtomicsButNeverBuildThemAsDisniWorkRequests()
    {
        assertThat(WorkRequests.ibvOpcode(Opcode.ATOMIC_CMP_AND_SWP)).isEqualTo(IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP);
        assertThat(WorkRequests.ibvOpcode(Opcode.ATOMIC_FETCH_AND_ADD))
            .isEqualTo(IbvSendWR.IBV_WR_ATOMIC_FETCH_AND_ADD);
        for (final Opcode atomic : new Opcode[] {Opcode.ATOMIC_CMP_AND_SWP, Opcode.ATOMIC_FETCH_AND_ADD})
        {
            assertThat(WorkRequests.isAtomic(atomic)).isTrue();
            // DiSNI 2.1 would post the request with garbage operands: its SVC path must refuse it
            final SendWorkRequest request = new SendWorkRequest().opcode(atomic).addSge(0x1000, 8, 1).remote(0x2000, 2);
            assertThatThrownBy(() -> DisniWorkRequests.toIbvSendWr(request))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining(atomic.name())
                .hasMessageContaining("never reach native memory")
                .hasMessageContaining("librivulet-verbs");
        }
        assertThat(WorkRequests.isAtomic(Opcode.RDMA_READ)).isFalse();
    }

    @Test
    void shouldAcceptWellFormedAtomicsOnRcQueuePairs() throws VerbsException
    {
        WorkRequests.validateSend(new SendWorkRequest().opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .flags(SendWorkRequest.SIGNALED).addSge(0x1000, 8, 1).remote(0x2008, 2).atomic(1, 2), 0);
        WorkRequests.validateSend(new SendWorkRequest().opcode(Opcode.ATOMIC_FETCH_AND_ADD)
            .addSge(0x1000, 8, 1).remote(0x2000, 2).atomic(5, 0), 0);
    }

    @Test
    void shouldRefuseAtomicsTheDeviceWouldFailLate()
    {
        for (final Opcode atomic : new Opcode[] {Opcode.ATOMIC_CMP_AND_SWP, Opcode.ATOMIC_FETCH_AND_ADD})
        {
            assertThatThrownBy(() -> WorkRequests.validateSend(
                new SendWorkRequest().opcode(atomic).addSge(0x1000, 4, 1).remote(0x2000, 2), 0))
                .isInstanceOf(VerbsException.class).hasMessageContaining("one 8-byte local scatter-gather entry");
            assertThatThrownBy(() -> WorkRequests.validateSend(
                new SendWorkRequest().opcode(atomic).addSge(0x1000, 8, 1).addSge(0x1008, 8, 1).remote(0x2000, 2), 0))
                .isInstanceOf(VerbsException.class).hasMessageContaining("got 2 entries");
            assertThatThrownBy(() -> WorkRequests.validateSend(
                new SendWorkRequest().opcode(atomic).remote(0x2000, 2), 0))
                .isInstanceOf(VerbsException.class).hasMessageContaining("got 0 entries");
            assertThatThrownBy(() -> WorkRequests.validateSend(
                new SendWorkRequest().opcode(atomic).addSge(0x1000, 8, 1).remote(0x2004, 2), 0))
                .isInstanceOf(VerbsException.class).hasMessageContaining("0x2004 is not 8-byte aligned");
            assertThatThrownBy(() -> WorkRequests.validateSend(new SendWorkRequest().opcode(atomic)
                .flags(SendWorkRequest.INLINE).addSge(0x1000, 8, 1).remote(0x2000, 2), 64))
                .isInstanceOf(VerbsException.class).hasMessageContaining("cannot be INLINE");
        }
    }

    @Test
    void shouldAcceptOnlySendsToAnAddressHandleOnUdQueuePairs() throws VerbsException
    {
        final AddressHandle handle = handle();
        WorkRequests.validateUdSend(new SendWorkRequest().addSge(0x1000, 100, 1).ud(handle, 5, 6), 0);
        WorkRequests.validateUdSend(new SendWorkRequest().opcode(Opcode.SEND_WITH_IMM).immData(3)
            .flags(SendWorkRequest.INLINE).addSge(0x1000, 16, 0).ud(handle, 5, 6), 16);

        for (final Opcode opcode : new Opcode[] {Opcode.RDMA_WRITE, Opcode.RDMA_WRITE_WITH_IMM, Opcode.RDMA_READ,
            Opcode.ATOMIC_CMP_AND_SWP, Opcode.ATOMIC_FETCH_AND_ADD})
        {
            assertThatThrownBy(() -> WorkRequests.validateUdSend(
                new SendWorkRequest().opcode(opcode).addSge(0x1000, 8, 1).ud(handle, 5, 6), 0))
                .isInstanceOf(VerbsException.class).hasMessageContaining(opcode + " on a UD queue pair");
        }
        assertThatThrownBy(() -> WorkRequests.validateUdSend(new SendWorkRequest().addSge(0x1000, 8, 1), 0))
            .isInstanceOf(VerbsException.class).hasMessageContaining("without a destination");
        assertThatThrownBy(() -> WorkRequests.validateUdSend(new SendWorkRequest()
            .flags(SendWorkRequest.INLINE).addSge(0x1000, 17, 0).ud(handle, 5, 6), 16))
            .isInstanceOf(VerbsException.class).hasMessageContaining("maxInlineData 16");
        assertThatThrownBy(() -> WorkRequests.validateUdSend(new SendWorkRequest()
            .flags(1 << 6).addSge(0x1000, 8, 0).ud(handle, 5, 6), 0))
            .isInstanceOf(VerbsException.class).hasMessageContaining("unknown send flags 0x40");
    }

    private static AddressHandle handle()
    {
        return new AddressHandle()
        {
            @Override
            public UdAddress destination()
            {
                return new UdAddress("gid", 1, 2);
            }

            @Override
            public void close()
            {
            }
        };
    }

    @Test
    void shouldGiveEveryOpcodeAndSgeCountItsOwnShape()
    {
        final Set<Integer> shapes = new HashSet<>();
        for (final Opcode opcode : Opcode.values())
        {
            for (int sges = 0; sges <= SendWorkRequest.MAX_SGE; sges++)
            {
                final int shape = DisniWorkRequests.shape(opcode, sges);
                assertThat(shape).isBetween(0, DisniWorkRequests.SHAPES - 1);
                assertThat(shapes.add(shape)).isTrue();
            }
        }
    }

    @Test
    void shouldBuildWriteWithLocalKeysInSgesAndRemoteKeyInRdma() throws VerbsException
    {
        final SendWorkRequest request = new SendWorkRequest()
            .wrId(42)
            .opcode(Opcode.RDMA_WRITE)
            .flags(SendWorkRequest.SIGNALED)
            .addSge(0x1000, 100, 0x11)
            .addSge(0x2000, 200, 0x12)
            .remote(0xABC000L, 0x77);

        final IbvSendWR wr = DisniWorkRequests.toIbvSendWr(request);

        assertThat(wr.getWr_id()).isEqualTo(42);
        assertThat(wr.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_RDMA_WRITE);
        assertThat(wr.getSend_flags()).isEqualTo(IbvSendWR.IBV_SEND_SIGNALED);
        assertThat(wr.getNum_sge()).isEqualTo(2);
        assertThat(wr.getSg_list()).hasSize(2);
        assertThat(wr.getSge(0).getAddr()).isEqualTo(0x1000);
        assertThat(wr.getSge(0).getLength()).isEqualTo(100);
        assertThat(wr.getSge(0).getLkey()).isEqualTo(0x11);
        assertThat(wr.getSge(1).getAddr()).isEqualTo(0x2000);
        assertThat(wr.getSge(1).getLkey()).isEqualTo(0x12);
        assertThat(wr.getRdma().getRemote_addr()).isEqualTo(0xABC000L);
        assertThat(wr.getRdma().getRkey()).isEqualTo(0x77);
        assertThat(wr.getImm_data()).isZero();
    }

    @Test
    void shouldLeaveRemoteFieldsEmptyForSend() throws VerbsException
    {
        final IbvSendWR wr = DisniWorkRequests.toIbvSendWr(
            new SendWorkRequest().opcode(Opcode.SEND).addSge(0x1000, 10, 1).remote(0x5000, 9));

        assertThat(wr.getOpcode()).isEqualTo(IbvSendWR.IBV_WR_SEND);
        assertThat(wr.getRdma().getRemote_addr()).isZero();
        assertThat(wr.getRdma().getRkey()).isZero();
    }

    @Test
    void shouldWriteImmediateDataInNetworkByteOrder() throws VerbsException
    {
        final int value = 0x01020304;
        final IbvSendWR wr = DisniWorkRequests.toIbvSendWr(
            new SendWorkRequest().opcode(Opcode.RDMA_WRITE_WITH_IMM).immData(value).addSge(0x1000, 4, 1).remote(0x2000, 2));

        // DiSNI stores the int in host order; the bytes on the wire must be 01 02 03 04 (big endian)
        final ByteBuffer nativeField = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(0, wr.getImm_data());
        assertThat(nativeField.array()).containsExactly(1, 2, 3, 4);
        assertThat(DisniWorkRequests.fromWireImmData(DisniWorkRequests.toWireImmData(value))).isEqualTo(value);
        assertThat(DisniWorkRequests.hasImmData(Opcode.SEND_WITH_IMM)).isTrue();
        assertThat(DisniWorkRequests.hasImmData(Opcode.RDMA_WRITE)).isFalse();
    }

    @Test
    void shouldBuildReceiveWithOneSge()
    {
        final IbvRecvWR wr = DisniWorkRequests.toIbvRecvWr(new ReceiveWorkRequest().set(7, 0x3000, 4096, 0x21));

        assertThat(wr.getWr_id()).isEqualTo(7);
        assertThat(wr.getNum_sge()).isEqualTo(1);
        assertThat(wr.getSg_list().get(0).getAddr()).isEqualTo(0x3000);
        assertThat(wr.getSg_list().get(0).getLength()).isEqualTo(4096);
        assertThat(wr.getSg_list().get(0).getLkey()).isEqualTo(0x21);
    }

    @Test
    void shouldTranslateReceiveWithImmediate()
    {
        final IbvWC wc = new IbvWC();
        wc.setWr_id(99);
        wc.setStatus(0);
        wc.setOpcode(WorkRequests.IBV_WC_RECV_RDMA_WITH_IMM);
        wc.setByte_len(512);
        wc.setWc_flags(WorkRequests.IBV_WC_WITH_IMM);
        wc.setImm_data(DisniWorkRequests.toWireImmData(0xCAFE));
        wc.setQp_num(0x123);
        wc.setSrc_qp(0x456);

        final WorkCompletion completion = DisniWorkRequests.toCompletion(wc, new WorkCompletion(), 0);

        assertThat(completion.wrId()).isEqualTo(99);
        assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(completion.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(completion.byteLength()).isEqualTo(512);
        assertThat(completion.hasImmData()).isTrue();
        assertThat(completion.immData()).isEqualTo(0xCAFE);
        assertThat(completion.qpNumber()).isEqualTo(0x123);
        assertThat(completion.sourceQpNumber()).isEqualTo(0x456);
    }

    @Test
    void shouldIgnoreImmediateFieldWithoutTheFlag()
    {
        final IbvWC wc = new IbvWC();
        wc.setStatus(0);
        wc.setOpcode(WorkRequests.IBV_WC_RECV);
        wc.setImm_data(1234);
        wc.setWc_flags(1); // IBV_WC_GRH only

        final WorkCompletion completion = DisniWorkRequests.toCompletion(wc, new WorkCompletion(), 0);

        assertThat(completion.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(completion.hasImmData()).isFalse();
        assertThat(completion.immData()).isZero();
    }

    @Test
    void shouldNotReportStaleFieldsOfAnErrorCompletion()
    {
        final IbvWC wc = new IbvWC();
        // What the slot held from an earlier successful UD receive: DiSNI's poll call copies only wr_id, status and
        // opcode of an error completion out of native memory (NatPollCqCall.update), so the rest is left over.
        wc.setByte_len(4096);
        wc.setWc_flags(WorkRequests.IBV_WC_WITH_IMM | WorkRequests.IBV_WC_GRH);
        wc.setImm_data(5);
        wc.setQp_num(0x999);
        wc.setSrc_qp(0x777);
        wc.setSlid((short)0x33);
        wc.setVendor_err(0x5a);
        // the error itself, with whatever opcode the device left (undefined in an error completion)
        wc.setWr_id(17);
        wc.setStatus(12);
        wc.setOpcode(WorkRequests.IBV_WC_RECV);

        final WorkCompletion completion = DisniWorkRequests.toCompletion(wc, new WorkCompletion(), 0x42);

        assertThat(completion.wrId()).isEqualTo(17);
        assertThat(completion.status()).isEqualTo(WcStatus.RETRY_EXCEEDED_ERROR);
        assertThat(completion.opcode()).isEqualTo(WcOpcode.UNKNOWN);
        assertThat(completion.qpNumber()).isEqualTo(0x42);
        assertThat(completion.vendorError()).as("DiSNI does not copy vendor_err of an error: not the stale one").isZero();
        assertThat(completion.byteLength()).isZero();
        assertThat(completion.hasImmData()).isFalse();
        assertThat(completion.immData()).isZero();
        assertThat(completion.sourceQpNumber()).isZero();
        assertThat(completion.hasGrh()).isFalse();
        assertThat(completion.sourceLid()).isZero();
    }

    @Test
    void shouldReportTheGrhAndSourceLidOfAUdReceive()
    {
        final IbvWC wc = new IbvWC();
        wc.setWr_id(5);
        wc.setStatus(0);
        wc.setOpcode(WorkRequests.IBV_WC_RECV);
        wc.setByte_len(40 + 64);
        wc.setWc_flags(WorkRequests.IBV_WC_GRH);
        wc.setQp_num(0x100);
        wc.setSrc_qp(0x200);
        wc.setSlid((short)0xBEEF);
        wc.setVendor_err(0x5a); // copied by DiSNI for a success too, where ibverbs leaves it undefined

        final WorkCompletion completion = DisniWorkRequests.toCompletion(wc, new WorkCompletion(), 0);

        assertThat(completion.hasGrh()).isTrue();
        assertThat(completion.sourceLid()).as("unsigned 16 bits").isEqualTo(0xBEEF);
        assertThat(completion.sourceQpNumber()).isEqualTo(0x200);
        assertThat(completion.byteLength()).isEqualTo(104);
        assertThat(completion.vendorError()).isZero();

        wc.setWc_flags(0);
        assertThat(DisniWorkRequests.toCompletion(wc, completion, 0).hasGrh())
            .as("without IBV_WC_GRH the first 40 bytes are no header").isFalse();
    }

    @Test
    void shouldMapStatusCodesLikeIbverbs()
    {
        for (final IbvWC.IbvWcStatus status : IbvWC.IbvWcStatus.values())
        {
            final IbvWC wc = new IbvWC();
            wc.setStatus(status.ordinal());
            final WcStatus mapped = DisniWorkRequests.toCompletion(wc, new WorkCompletion(), 0).status();
            assertThat(mapped.code() == status.ordinal() || mapped == WcStatus.GENERAL_ERROR)
                .as("%s -> %s", status, mapped).isTrue();
        }
        final IbvWC flush = new IbvWC();
        flush.setStatus(IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal());
        assertThat(DisniWorkRequests.toCompletion(flush, new WorkCompletion(), 0).status())
            .isEqualTo(WcStatus.WR_FLUSH_ERROR);
        final IbvWC remoteAccess = new IbvWC();
        remoteAccess.setStatus(IbvWC.IbvWcStatus.IBV_WC_REM_ACCESS_ERR.ordinal());
        assertThat(DisniWorkRequests.toCompletion(remoteAccess, new WorkCompletion(), 0).status())
            .isEqualTo(WcStatus.REMOTE_ACCESS_ERROR);
    }

    @Test
    void shouldMapCompletionOpcodesLikeDisni()
    {
        assertThat(WorkRequests.wcOpcode(IbvWC.IbvWcOpcode.IBV_WC_SEND.getOpcode())).isEqualTo(WcOpcode.SEND);
        assertThat(WorkRequests.wcOpcode(IbvWC.IbvWcOpcode.IBV_WC_RDMA_WRITE.getOpcode())).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(WorkRequests.wcOpcode(IbvWC.IbvWcOpcode.IBV_WC_RDMA_READ.getOpcode())).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(WorkRequests.wcOpcode(IbvWC.IbvWcOpcode.IBV_WC_COMP_SWAP.getOpcode())).isEqualTo(WcOpcode.COMP_SWAP);
        assertThat(WorkRequests.wcOpcode(IbvWC.IbvWcOpcode.IBV_WC_FETCH_ADD.getOpcode())).isEqualTo(WcOpcode.FETCH_ADD);
        assertThat(WorkRequests.wcOpcode(IbvWC.IbvWcOpcode.IBV_WC_RECV.getOpcode())).isEqualTo(WcOpcode.RECV);
        assertThat(WorkRequests.wcOpcode(IbvWC.IbvWcOpcode.IBV_WC_RECV_RDMA_WITH_IMM.getOpcode()))
            .isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(WorkRequests.wcOpcode(130)).isEqualTo(WcOpcode.RECV);
        assertThat(WorkRequests.wcOpcode(5)).isEqualTo(WcOpcode.SEND);
    }

    @Test
    void shouldPassAccessBitsThroughUnchangedAndRefuseWhatIbvRegMrRejects() throws VerbsException
    {
        assertThat(Access.LOCAL_WRITE).isEqualTo(IbvMr.IBV_ACCESS_LOCAL_WRITE);
        assertThat(Access.REMOTE_WRITE).isEqualTo(IbvMr.IBV_ACCESS_REMOTE_WRITE);
        assertThat(Access.REMOTE_READ).isEqualTo(IbvMr.IBV_ACCESS_REMOTE_READ);
        assertThat(Access.REMOTE_ATOMIC).isEqualTo(IbvMr.IBV_ACCESS_REMOTE_ATOMIC);

        final int all = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        assertThat(WorkRequests.ibvAccess(all)).isEqualTo(all);
        assertThat(WorkRequests.ibvAccess(0)).isZero();
        assertThat(WorkRequests.ibvAccess(Access.REMOTE_READ)).isEqualTo(IbvMr.IBV_ACCESS_REMOTE_READ);

        assertThatThrownBy(() -> WorkRequests.ibvAccess(Access.REMOTE_WRITE))
            .isInstanceOf(VerbsException.class).hasMessageContaining("LOCAL_WRITE");
        assertThatThrownBy(() -> WorkRequests.ibvAccess(Access.REMOTE_ATOMIC | Access.REMOTE_READ))
            .isInstanceOf(VerbsException.class).hasMessageContaining("LOCAL_WRITE");
        assertThatThrownBy(() -> WorkRequests.ibvAccess(1 << 6))
            .isInstanceOf(VerbsException.class).hasMessageContaining("unknown access bits 0x40");
    }

    @Test
    void shouldRefuseInlineSendsAboveTheQueuePairLimit() throws VerbsException
    {
        final SendWorkRequest small = new SendWorkRequest().flags(SendWorkRequest.INLINE).addSge(0x1000, 64, 0);
        WorkRequests.validateSend(small, 64);

        final SendWorkRequest large = new SendWorkRequest().flags(SendWorkRequest.INLINE)
            .addSge(0x1000, 60, 0).addSge(0x2000, 8, 0);
        assertThatThrownBy(() -> WorkRequests.validateSend(large, 64))
            .isInstanceOf(VerbsException.class).hasMessageContaining("68 bytes").hasMessageContaining("maxInlineData 64");
        assertThatThrownBy(() -> WorkRequests.validateSend(small, 0))
            .isInstanceOf(VerbsException.class).hasMessageContaining("maxInlineData 0");

        final SendWorkRequest inlineRead = new SendWorkRequest().opcode(Opcode.RDMA_READ)
            .flags(SendWorkRequest.INLINE).addSge(0x1000, 8, 0).remote(0x2000, 1);
        assertThatThrownBy(() -> WorkRequests.validateSend(inlineRead, 64))
            .isInstanceOf(VerbsException.class).hasMessageContaining("RDMA_READ");
    }

    @Test
    void shouldRefuseUdDestinationsNegativeLengthsAndUnknownFlags()
    {
        final AddressHandle handle = new AddressHandle()
        {
            @Override
            public UdAddress destination()
            {
                return new UdAddress("gid", 1, 2);
            }

            @Override
            public void close()
            {
            }
        };
        assertThatThrownBy(() -> WorkRequests.validateSend(
            new SendWorkRequest().addSge(0x1000, 8, 0).ud(handle, 5, 6), 0))
            .isInstanceOf(VerbsException.class)
            .hasMessageContaining("UD destination (address handle / remote QPN) on an RC queue pair")
            .hasMessageContaining("createUdQueuePair");
        assertThatThrownBy(() -> WorkRequests.validateSend(new SendWorkRequest().addSge(0x1000, -1, 0), 0))
            .isInstanceOf(VerbsException.class).hasMessageContaining("negative length");
        assertThatThrownBy(() -> WorkRequests.validateSend(new SendWorkRequest().flags(1 << 5), 0))
            .isInstanceOf(VerbsException.class).hasMessageContaining("unknown send flags 0x20");
    }

    @Test
    void shouldCreateRcQueuePairsWithTheConfiguredInlineLimit()
    {
        final IbvQPInitAttr attr = DisniWorkRequests.rcInitAttr(config(220, 7, 7));

        assertThat(attr.getQp_type()).isEqualTo(IbvQP.IBV_QPT_RC);
        assertThat(attr.cap().getMax_send_wr()).isEqualTo(64);
        assertThat(attr.cap().getMax_recv_wr()).isEqualTo(128);
        assertThat(attr.cap().getMax_inline_data()).isEqualTo(220);
        assertThat(attr.cap().getMax_send_sge()).isEqualTo(SendWorkRequest.MAX_SGE);
        assertThat(attr.getSq_sig_all()).isZero();
    }

    @Test
    void shouldSetRetryCountsExplicitlyBecauseDisniDefaultsThemToZero() throws Exception
    {
        assertThat(new RdmaConnParam().getRetry_count()).isZero();
        assertThat(new RdmaConnParam().getRnr_retry_count()).isZero();

        final RdmaConnParam infinite = DisniWorkRequests.connParam(config(0, 7, 7));
        assertThat(infinite.getRetry_count()).isEqualTo((byte)7);
        assertThat(infinite.getRnr_retry_count()).isEqualTo((byte)7);

        final RdmaConnParam custom = DisniWorkRequests.connParam(config(0, 3, 5));
        assertThat(custom.getRetry_count()).isEqualTo((byte)3);
        assertThat(custom.getRnr_retry_count()).isEqualTo((byte)5);
    }
}
