package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaConnParam;
import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.ScatterGatherEntry;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.io.IOException;
import java.nio.ByteOrder;
import java.util.LinkedList;

/**
 * Translates the verbs SPI into DiSNI's structures and back: opcodes, send flags, access flags,
 * immediate data byte order, work requests, queue pair attributes, connection parameters and work
 * completions. Pure Java (none of the DiSNI classes used here touch the native library), so every
 * mapping is unit-tested without a device.
 *
 * <p>Stateless and thread-safe.
 */
final class DisniWorkRequests
{
    /** Number of distinct (opcode, SGE count) shapes: index space of {@link #shape}. */
    static final int SHAPES = Opcode.values().length * (SendWorkRequest.MAX_SGE + 1);

    private static final boolean LITTLE_ENDIAN_HOST = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private DisniWorkRequests()
    {
    }

    static VerbsException atomicsThroughDisni(final Opcode opcode)
    {
        return new VerbsException(opcode + " cannot be posted through DiSNI 2.1 (its compare/swap and rkey fields " +
            "never reach native memory): atomics go through librivulet-verbs (jni.Verbs)");
    }

    /** @return the index of a work-request shape, the key of the prebuilt-call cache. */
    static int shape(final Opcode opcode, final int sgeCount)
    {
        return opcode.ordinal() * (SendWorkRequest.MAX_SGE + 1) + sgeCount;
    }

    /** @return true when the opcode carries immediate data, which DiSNI fixes per prebuilt call. */
    static boolean hasImmData(final Opcode opcode)
    {
        return opcode == Opcode.SEND_WITH_IMM || opcode == Opcode.RDMA_WRITE_WITH_IMM;
    }

    /** @return true when the request names remote memory (address and rkey). */
    static boolean targetsRemoteMemory(final Opcode opcode)
    {
        return opcode == Opcode.RDMA_WRITE || opcode == Opcode.RDMA_WRITE_WITH_IMM || opcode == Opcode.RDMA_READ;
    }

    /**
     * ibverbs carries immediate data in network byte order ({@code __be32}); DiSNI copies the Java int
     * into {@code ibv_send_wr.imm_data} in host order. Swapping here makes the SPI's int the value a C
     * peer sees after {@code ntohl}, and keeps DiSNI-to-DiSNI peers consistent.
     *
     * @param immData the SPI's value.
     * @return what to hand DiSNI.
     */
    static int toWireImmData(final int immData)
    {
        return LITTLE_ENDIAN_HOST ? Integer.reverseBytes(immData) : immData;
    }

    /**
     * @param wireImmData {@code ibv_wc.imm_data} as DiSNI read it (host order of network bytes).
     * @return the SPI's value.
     */
    static int fromWireImmData(final int wireImmData)
    {
        return LITTLE_ENDIAN_HOST ? Integer.reverseBytes(wireImmData) : wireImmData;
    }

    /**
     * Builds the DiSNI work request a prebuilt call is serialised from: every field, including the
     * ones fixed for the call's lifetime (opcode, SGE count, imm_data).
     */
    static IbvSendWR toIbvSendWr(final SendWorkRequest request) throws VerbsException
    {
        if (WorkRequests.isAtomic(request.opcode()))
        {
            throw atomicsThroughDisni(request.opcode());
        }
        final IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(request.wrId());
        wr.setOpcode(WorkRequests.ibvOpcode(request.opcode()));
        wr.setSend_flags(WorkRequests.ibvSendFlags(request.flags()));
        wr.setImm_data(hasImmData(request.opcode()) ? toWireImmData(request.immData()) : 0);
        final LinkedList<IbvSge> sges = new LinkedList<>();
        for (int i = 0, n = request.sgeCount(); i < n; i++)
        {
            sges.add(toIbvSge(request.sge(i)));
        }
        wr.setSg_list(sges);
        wr.setNum_sge(sges.size());
        if (targetsRemoteMemory(request.opcode()))
        {
            wr.getRdma().setRemote_addr(request.remoteAddress());
            wr.getRdma().setRkey(request.rkey());
        }
        return wr;
    }

    static IbvRecvWR toIbvRecvWr(final ReceiveWorkRequest request)
    {
        final IbvRecvWR wr = new IbvRecvWR();
        wr.setWr_id(request.wrId());
        final LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(toIbvSge(request.sge()));
        wr.setSg_list(sges);
        wr.setNum_sge(1);
        return wr;
    }

    private static IbvSge toIbvSge(final ScatterGatherEntry entry)
    {
        final IbvSge sge = new IbvSge();
        sge.setAddr(entry.address());
        sge.setLength(entry.length());
        sge.setLkey(entry.lkey());
        return sge;
    }

    /**
     * Fills an SPI completion from a DiSNI one.
     *
     * <p>libdisni's {@code _pollCQ} hands DiSNI the whole {@code ibv_wc}, but DiSNI's poll call
     * ({@code NatPollCqCall.update}) copies only wr_id, status and opcode of an error completion into the
     * {@link IbvWC} and leaves its other fields as the previous completion in that slot left them: the queue pair
     * number and {@code vendor_err}, which ibverbs defines for an error, never reach Java. So an error is reported
     * with what ibverbs defines in it ({@link WorkCompletion#setError}): opcode {@link WcOpcode#UNKNOWN} (whatever
     * DiSNI copied is undefined), the queue pair as {@code qpNumberIfUnknown} and no vendor detail (0). A success
     * reports {@code IBV_WC_GRH} and the source LID of a UD receive; its {@code vendor_err}, undefined there, is 0.
     *
     * @param wc                what DiSNI polled.
     * @param into              the reusable SPI record.
     * @param qpNumberIfUnknown the queue pair number to report for errors (the CQ's only queue pair, or 0).
     * @return {@code into}.
     */
    static WorkCompletion toCompletion(final IbvWC wc, final WorkCompletion into, final int qpNumberIfUnknown)
    {
        final WcStatus status = WcStatus.of(wc.getStatus());
        if (status != WcStatus.SUCCESS)
        {
            return into.setError(wc.getWr_id(), status, qpNumberIfUnknown, 0);
        }
        final int flags = wc.getWc_flags();
        final boolean hasImm = (flags & WorkRequests.IBV_WC_WITH_IMM) != 0;
        return into.set(
            wc.getWr_id(),
            status,
            WorkRequests.wcOpcode(wc.getOpcode()),
            wc.getByte_len(),
            hasImm,
            hasImm ? fromWireImmData(wc.getImm_data()) : 0,
            wc.getQp_num(),
            wc.getSrc_qp(),
            (flags & WorkRequests.IBV_WC_GRH) != 0,
            wc.getSlid() & 0xffff,
            0);
    }

    /**
     * The init attributes of an RC queue pair. DiSNI's native side reads only the type, the work
     * request limits and {@code max_inline_data} (0 unless set: then every INLINE send fails), and
     * hard-codes four SGEs each way; the CQs are set by the caller.
     */
    static IbvQPInitAttr rcInitAttr(final QueuePairConfig config)
    {
        final IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSq_sig_all((byte)0);
        attr.cap().setMax_send_wr(config.maxSendWr());
        attr.cap().setMax_recv_wr(config.maxReceiveWr());
        attr.cap().setMax_send_sge(SendWorkRequest.MAX_SGE);
        attr.cap().setMax_recv_sge(1);
        attr.cap().setMax_inline_data(Math.max(0, config.maxInlineData()));
        return attr;
    }

    /**
     * {@code rdma_conn_param} for connect and accept. DiSNI defaults both retry counts to 0, which turns
     * the first lost packet or the first receiver-not-ready NAK into a broken connection: they are
     * always copied from the config. DiSNI forces initiator depth and responder resources to the
     * device's {@code max_qp_rd_atom} (its setters throw "not supported"), on both sides: a requester
     * whose device allows more than the target's serves must keep fewer in flight itself, as
     * {@code RdmaOneSidedPath} does.
     */
    static RdmaConnParam connParam(final QueuePairConfig config) throws IOException
    {
        final RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte)config.retryCount());
        param.setRnr_retry_count((byte)config.rnrRetryCount());
        return param;
    }
}
