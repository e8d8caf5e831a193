package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaConnParam;
import io.rivulet.transport.rdma.verbs.Access;
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
    /** {@code IBV_SEND_FENCE}. The SPI's flag bits differ from ibverbs', so they are mapped. */
    static final int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}. */
    static final int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_INLINE}. */
    static final int IBV_SEND_INLINE = 1 << 3;
    /** {@code IBV_WC_WITH_IMM} in {@code ibv_wc.wc_flags}. */
    static final int IBV_WC_WITH_IMM = 1 << 1;
    /** {@code IBV_WC_RECV}: receive-side completion opcodes have this bit. */
    static final int IBV_WC_RECV = 1 << 7;
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}. */
    static final int IBV_WC_RECV_RDMA_WITH_IMM = IBV_WC_RECV + 1;
    /** The largest RC message: ibverbs' {@code max_msg_sz} is 2^31 on current devices. */
    static final long MAX_MESSAGE_LENGTH = 1L << 31;
    /** The size of an atomic operand and of the local buffer that receives the original value. */
    static final int ATOMIC_LENGTH = 8;

    /** Number of distinct (opcode, SGE count) shapes: index space of {@link #shape}. */
    static final int SHAPES = Opcode.values().length * (SendWorkRequest.MAX_SGE + 1);

    private static final int SPI_SEND_FLAGS = SendWorkRequest.SIGNALED | SendWorkRequest.INLINE | SendWorkRequest.FENCE;
    private static final int SPI_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;
    private static final boolean LITTLE_ENDIAN_HOST = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final WcOpcode[] SEND_SIDE_OPCODES =
    {
        WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.COMP_SWAP, WcOpcode.FETCH_ADD
    };

    private DisniWorkRequests()
    {
    }

    /**
     * @param opcode an SPI opcode.
     * @return its {@code IBV_WR_*} value (DiSNI's constants are ibverbs' values).
     */
    static int ibvOpcode(final Opcode opcode)
    {
        switch (opcode)
        {
            case SEND:
                return IbvSendWR.IBV_WR_SEND;
            case SEND_WITH_IMM:
                return IbvSendWR.IBV_WR_SEND_WITH_IMM;
            case RDMA_WRITE:
                return IbvSendWR.IBV_WR_RDMA_WRITE;
            case RDMA_WRITE_WITH_IMM:
                return IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM;
            case RDMA_READ:
                return IbvSendWR.IBV_WR_RDMA_READ;
            case ATOMIC_CMP_AND_SWP:
                return IbvSendWR.IBV_WR_ATOMIC_CMP_AND_SWP;
            default:
                return IbvSendWR.IBV_WR_ATOMIC_FETCH_AND_ADD;
        }
    }

    /** @return true for CMP_AND_SWP and FETCH_AND_ADD, which are posted through the JNI extension. */
    static boolean isAtomic(final Opcode opcode)
    {
        return opcode == Opcode.ATOMIC_CMP_AND_SWP || opcode == Opcode.ATOMIC_FETCH_AND_ADD;
    }

    static VerbsException atomicsThroughDisni(final Opcode opcode)
    {
        return new VerbsException(opcode + " cannot be posted through DiSNI 2.1 (its compare/swap and rkey fields " +
            "never reach native memory): atomics go through Rivulet's JNI extension (NativeVerbs)");
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
     * @param flags {@link SendWorkRequest} flag bits.
     * @return the {@code IBV_SEND_*} bits.
     */
    static int ibvSendFlags(final int flags)
    {
        int ibv = 0;
        if ((flags & SendWorkRequest.SIGNALED) != 0)
        {
            ibv |= IBV_SEND_SIGNALED;
        }
        if ((flags & SendWorkRequest.INLINE) != 0)
        {
            ibv |= IBV_SEND_INLINE;
        }
        if ((flags & SendWorkRequest.FENCE) != 0)
        {
            ibv |= IBV_SEND_FENCE;
        }
        return ibv;
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
     * @param access {@link Access} bits (their values are ibverbs' {@code IBV_ACCESS_*}).
     * @return the {@code IBV_ACCESS_*} bits for {@code ibv_reg_mr}.
     * @throws VerbsException on unknown bits, or remote write/atomic without local write, which
     *                        {@code ibv_reg_mr} rejects with EINVAL.
     */
    static int ibvAccess(final int access) throws VerbsException
    {
        if ((access & ~SPI_ACCESS) != 0)
        {
            throw new VerbsException("unknown access bits 0x" + Integer.toHexString(access & ~SPI_ACCESS) +
                " (Access has LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC)");
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (access & Access.LOCAL_WRITE) == 0)
        {
            throw new VerbsException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too (ibv_reg_mr rejects them " +
                "alone): register with Access.LOCAL_WRITE | ...");
        }
        return access;
    }

    /**
     * Checks what the device would reject late or obscurely, and what DiSNI 2.1 cannot post.
     *
     * @param request       the request about to be posted on an RC queue pair.
     * @param maxInlineData the queue pair's inline limit.
     * @throws VerbsException naming the problem.
     */
    static void validateSend(final SendWorkRequest request, final int maxInlineData) throws VerbsException
    {
        final Opcode opcode = request.opcode();
        if (null != request.addressHandle() || 0 != request.remoteQpNumber())
        {
            throw new VerbsException("UD destination (address handle / remote QPN) on an RC queue pair: post UD " +
                "sends on a queue pair from createUdQueuePair");
        }
        checkFlagsAndLengths(request, maxInlineData);
        if (isAtomic(opcode))
        {
            validateAtomic(request);
        }
    }

    /**
     * Checks a send for a UD queue pair: SEND or SEND_WITH_IMM to an address handle.
     *
     * @throws VerbsException naming the problem.
     */
    static void validateUdSend(final SendWorkRequest request, final int maxInlineData) throws VerbsException
    {
        final Opcode opcode = request.opcode();
        if (opcode != Opcode.SEND && opcode != Opcode.SEND_WITH_IMM)
        {
            throw new VerbsException(opcode + " on a UD queue pair: UD carries only SEND and SEND_WITH_IMM");
        }
        if (null == request.addressHandle())
        {
            throw new VerbsException("UD send without a destination: set ud(addressHandle, remoteQpNumber, remoteQkey)");
        }
        checkFlagsAndLengths(request, maxInlineData);
    }

    /**
     * An atomic reads and writes one aligned 8-byte word of remote memory and returns the original value
     * into one 8-byte local SGE; anything else the device rejects late (as an error completion that
     * breaks the connection) or not at all.
     */
    static void validateAtomic(final SendWorkRequest request) throws VerbsException
    {
        final Opcode opcode = request.opcode();
        if (request.sgeCount() != 1 || request.sge(0).length() != ATOMIC_LENGTH)
        {
            throw new VerbsException(opcode + " needs exactly one 8-byte local scatter-gather entry for the original " +
                "value (got " + request.sgeCount() + " entries, " + request.totalLength() + " bytes)");
        }
        if ((request.remoteAddress() & (ATOMIC_LENGTH - 1)) != 0)
        {
            throw new VerbsException(opcode + " remote address 0x" + Long.toHexString(request.remoteAddress()) +
                " is not 8-byte aligned");
        }
        if ((request.flags() & SendWorkRequest.INLINE) != 0)
        {
            throw new VerbsException(opcode + " cannot be INLINE: the device writes the original value into the SGE");
        }
    }

    private static void checkFlagsAndLengths(final SendWorkRequest request, final int maxInlineData)
        throws VerbsException
    {
        final Opcode opcode = request.opcode();
        final int flags = request.flags();
        if ((flags & ~SPI_SEND_FLAGS) != 0)
        {
            throw new VerbsException("unknown send flags 0x" + Integer.toHexString(flags & ~SPI_SEND_FLAGS));
        }

        long total = 0;
        for (int i = 0, n = request.sgeCount(); i < n; i++)
        {
            final int length = request.sge(i).length();
            if (length < 0)
            {
                throw new VerbsException("scatter-gather entry " + i + " has a negative length " + length);
            }
            total += length;
        }
        if (total > MAX_MESSAGE_LENGTH)
        {
            throw new VerbsException("work request of " + total + " bytes exceeds the 2 GiB RC message limit");
        }
        if ((flags & SendWorkRequest.INLINE) != 0)
        {
            if (opcode == Opcode.RDMA_READ)
            {
                throw new VerbsException("INLINE applies to SEND and RDMA_WRITE, not RDMA_READ");
            }
            if (total > maxInlineData)
            {
                throw new VerbsException("inline send of " + total + " bytes exceeds the queue pair's maxInlineData " +
                    maxInlineData);
            }
        }
    }

    /**
     * Builds the DiSNI work request a prebuilt call is serialised from: every field, including the
     * ones fixed for the call's lifetime (opcode, SGE count, imm_data).
     */
    static IbvSendWR toIbvSendWr(final SendWorkRequest request) throws VerbsException
    {
        if (isAtomic(request.opcode()))
        {
            throw atomicsThroughDisni(request.opcode());
        }
        final IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(request.wrId());
        wr.setOpcode(ibvOpcode(request.opcode()));
        wr.setSend_flags(ibvSendFlags(request.flags()));
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
     * @param ibvOpcode {@code ibv_wc.opcode}.
     * @return the SPI's opcode; unknown values map by side ({@link WcOpcode#RECV} when the receive bit
     *         is set, else {@link WcOpcode#SEND}).
     */
    static WcOpcode wcOpcode(final int ibvOpcode)
    {
        if (ibvOpcode >= 0 && ibvOpcode < SEND_SIDE_OPCODES.length)
        {
            return SEND_SIDE_OPCODES[ibvOpcode];
        }
        if (ibvOpcode == IBV_WC_RECV_RDMA_WITH_IMM)
        {
            return WcOpcode.RECV_RDMA_WITH_IMM;
        }
        return (ibvOpcode & IBV_WC_RECV) != 0 ? WcOpcode.RECV : WcOpcode.SEND;
    }

    /**
     * Fills an SPI completion from a DiSNI one.
     *
     * <p>DiSNI's poll call copies only wr_id, status and opcode for an error completion and leaves the
     * other {@link IbvWC} fields as the previous completion in that slot left them, so for errors the
     * length and immediate data are reported as 0 and the queue pair as {@code qpNumberIfUnknown}.
     *
     * @param wc                what DiSNI polled.
     * @param into              the reusable SPI record.
     * @param qpNumberIfUnknown the queue pair number to report for errors (the CQ's only queue pair, or 0).
     * @return {@code into}.
     */
    static WorkCompletion toCompletion(final IbvWC wc, final WorkCompletion into, final int qpNumberIfUnknown)
    {
        final WcStatus status = WcStatus.of(wc.getStatus());
        if (status == WcStatus.SUCCESS)
        {
            final boolean hasImm = (wc.getWc_flags() & IBV_WC_WITH_IMM) != 0;
            return into.set(
                wc.getWr_id(),
                status,
                wcOpcode(wc.getOpcode()),
                wc.getByte_len(),
                hasImm,
                hasImm ? fromWireImmData(wc.getImm_data()) : 0,
                wc.getQp_num(),
                wc.getSrc_qp());
        }
        return into.set(wc.getWr_id(), status, wcOpcode(wc.getOpcode()), 0, false, 0, qpNumberIfUnknown, 0);
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
     * device's {@code max_qp_rd_atom}.
     */
    static RdmaConnParam connParam(final QueuePairConfig config) throws IOException
    {
        final RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte)config.retryCount());
        param.setRnr_retry_count((byte)config.rnrRetryCount());
        return param;
    }
}
