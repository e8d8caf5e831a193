package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;

import java.nio.ByteBuffer;

/**
 * The verbs SPI in ibverbs' terms, for both hardware providers: opcodes, send and access flags, completion
 * opcodes, and the checks of a work request that a device would otherwise reject late (as an error completion
 * that breaks the connection) or obscurely (as EINVAL). Pure Java, so every mapping is tested without a device.
 *
 * <p>Stateless and thread-safe.
 */
public final class WorkRequests
{
    /** {@code IBV_WR_RDMA_WRITE}. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}. */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}. */
    public static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM}. */
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ}. */
    public static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_SEND_FENCE}. The SPI's flag bits differ from ibverbs', so they are mapped. */
    public static final int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}. */
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_INLINE}. */
    public static final int IBV_SEND_INLINE = 1 << 3;
    /** {@code IBV_WC_WITH_IMM} in {@code ibv_wc.wc_flags}. */
    public static final int IBV_WC_WITH_IMM = 1 << 1;
    /** {@code IBV_WC_GRH} in {@code ibv_wc.wc_flags}: a UD receive starts with a Global Routing Header. */
    public static final int IBV_WC_GRH = 1;
    /** {@code IBV_WC_RECV}: receive-side completion opcodes have this bit. */
    public static final int IBV_WC_RECV = 1 << 7;
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}. */
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = IBV_WC_RECV + 1;
    /** The largest RC message: ibverbs' {@code max_msg_sz} is 2^31 on current devices. */
    public static final long MAX_MESSAGE_LENGTH = 1L << 31;
    /** The size of an atomic operand and of the local buffer that receives the original value. */
    public static final int ATOMIC_LENGTH = 8;

    private static final int SPI_SEND_FLAGS = SendWorkRequest.SIGNALED | SendWorkRequest.INLINE | SendWorkRequest.FENCE;
    private static final int SPI_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ |
        Access.REMOTE_ATOMIC;
    private static final WcOpcode[] SEND_SIDE_OPCODES =
    {
        WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.COMP_SWAP, WcOpcode.FETCH_ADD
    };

    private static final int WRITE_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    private WorkRequests()
    {
    }

    /**
     * Checks a buffer about to be registered ({@code ibv_reg_mr} over its whole capacity).
     *
     * @param buffer the memory.
     * @param access {@link Access} bits.
     * @return the {@code IBV_ACCESS_*} bits.
     * @throws VerbsException when it is not direct, empty, read-only with write access, or the bits are bad.
     */
    public static int checkRegistration(final ByteBuffer buffer, final int access) throws VerbsException
    {
        if (null == buffer)
        {
            throw new VerbsException("no buffer to register");
        }
        if (!buffer.isDirect())
        {
            throw new VerbsException("only direct buffers can be registered: allocate with ByteBuffer.allocateDirect " +
                "or map a file");
        }
        if (buffer.capacity() == 0)
        {
            throw new VerbsException("cannot register an empty buffer");
        }
        if (buffer.isReadOnly() && (access & WRITE_ACCESS) != 0)
        {
            throw new VerbsException("a read-only buffer cannot be registered with write access");
        }
        return ibvAccess(access);
    }

    /**
     * @param length the bytes that could not be registered.
     * @param error  the call's error text.
     * @return the message, with the usual cause of ENOMEM: the locked-memory limit.
     */
    public static String registrationFailure(final long length, final String error)
    {
        if (error.contains("Cannot allocate memory"))
        {
            return "ibv_reg_mr of " + length + " bytes failed (" + error + "): the locked-memory limit is probably " +
                "too low; raise it (ulimit -l unlimited, LimitMEMLOCK=infinity under systemd, memlock in " +
                "/etc/security/limits.conf)";
        }
        return "ibv_reg_mr of " + length + " bytes failed: " + error;
    }

    /**
     * @param opcode an SPI opcode.
     * @return its {@code IBV_WR_*} value .
     */
    public static int ibvOpcode(final Opcode opcode)
    {
        switch (opcode)
        {
            case SEND:
                return IBV_WR_SEND;
            case SEND_WITH_IMM:
                return IBV_WR_SEND_WITH_IMM;
            case RDMA_WRITE:
                return IBV_WR_RDMA_WRITE;
            case RDMA_WRITE_WITH_IMM:
                return IBV_WR_RDMA_WRITE_WITH_IMM;
            case RDMA_READ:
                return IBV_WR_RDMA_READ;
            case ATOMIC_CMP_AND_SWP:
                return IBV_WR_ATOMIC_CMP_AND_SWP;
            default:
                return IBV_WR_ATOMIC_FETCH_AND_ADD;
        }
    }

    /** @return true for CMP_AND_SWP and FETCH_AND_ADD, . */
    public static boolean isAtomic(final Opcode opcode)
    {
        return opcode == Opcode.ATOMIC_CMP_AND_SWP || opcode == Opcode.ATOMIC_FETCH_AND_ADD;
    }

    /**
     * @param flags {@link SendWorkRequest} flag bits.
     * @return the {@code IBV_SEND_*} bits.
     */
    public static int ibvSendFlags(final int flags)
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
     * @param access {@link Access} bits (their values are ibverbs' {@code IBV_ACCESS_*}).
     * @return the {@code IBV_ACCESS_*} bits for {@code ibv_reg_mr}.
     * @throws VerbsException on unknown bits, or remote write/atomic without local write, which
     *                        {@code ibv_reg_mr} rejects with EINVAL.
     */
    public static int ibvAccess(final int access) throws VerbsException
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
    public static void validateSend(final SendWorkRequest request, final int maxInlineData) throws VerbsException
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
    public static void validateUdSend(final SendWorkRequest request, final int maxInlineData) throws VerbsException
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
    public static void validateAtomic(final SendWorkRequest request) throws VerbsException
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
     * @param ibvOpcode {@code ibv_wc.opcode}.
     * @return the SPI's opcode; unknown values map by side ({@link WcOpcode#RECV} when the receive bit
     *         is set, else {@link WcOpcode#SEND}).
     */
    public static WcOpcode wcOpcode(final int ibvOpcode)
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
}
