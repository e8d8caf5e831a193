package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.impl.NatObject;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.BufferUtil;

import java.nio.ByteBuffer;

/**
 * The calls of librivulet-verbs ({@code src/main/c/rivulet_verbs.c}), loaded by
 * {@link NativeVerbsLibrary}, and the translation of their failures.
 *
 * <p>Handles are the C pointers DiSNI's {@code NatObject.getObjId()} returns ({@code ibv_pd},
 * {@code ibv_cq}, {@code ibv_qp}, {@code rdma_cm_id}) or that these calls create ({@code ibv_qp},
 * {@code ibv_ah}). Every call takes primitives only; a negative result is {@code -errno} (argument
 * checks in C return {@code -EINVAL}), which {@link #failure} turns into a {@link VerbsException}
 * naming the verb and the error text. Calling any of them before the library is loaded throws
 * {@link UnsatisfiedLinkError}: callers go through {@link NativeVerbsLibrary#require} first.
 *
 * <p>Thread-safe as far as ibverbs is (posting on one queue pair from two threads is not).
 */
final class NativeVerbs
{
    /** {@code EINVAL}: what every argument check in the library returns. */
    static final int EINVAL = 22;
    /** {@code ENOMEM}: what {@code ibv_post_send}/{@code ibv_post_recv} return for a full work queue. */
    static final int ENOMEM = 12;

    private NativeVerbs()
    {
    }

    static native int abiVersion();

    /** @return the size of the send descriptor the library reads ({@link NativeWorkRequest#SIZE}). */
    static native int descriptorSize();

    /** @return {@code strerror} of an errno (only on failure paths: it allocates a String). */
    static native String errnoText(int errno);

    /** @return the number of RDMA devices {@code ibv_get_device_list} sees, or -errno. */
    static native int deviceCount();

    /** @return the port an RDMA CM id is bound to, or -errno. */
    static native int cmIdPort(long cmId);

    /** {@code ibv_query_port} into 6 ints at {@code out}: state, lid, gid table length, active MTU (bytes), max message size, link layer. */
    static native int queryPort(long context, int port, long out);

    /** {@code ibv_query_gid}: the 16 raw bytes to {@code out}. */
    static native int queryGid(long context, int port, int index, long out);

    /** {@code ibv_create_qp} of type UD, 4 send SGEs, 1 receive SGE, not signalling all. */
    static native long createUdQp(long pd, long sendCq, long receiveCq, int maxSendWr, int maxReceiveWr, int maxInline);

    static native int modifyUdQpToInit(long qp, int port, int qkey, int pkeyIndex);

    static native int modifyUdQpToRtr(long qp);

    static native int modifyUdQpToRts(long qp, int sqPsn);

    static native int qpNumber(long qp);

    static native int destroyQp(long qp);

    /** {@code ibv_create_ah}; a GID of zero means LID routing (InfiniBand), anything else sets the GRH. */
    static native long createAh(
        long pd, long gidHigh, long gidLow, int lid, int port, int sgidIndex, int hopLimit, int serviceLevel);

    static native int destroyAh(long ah);

    static native int attachMulticast(long qp, long gidHigh, long gidLow, int lid);

    static native int detachMulticast(long qp, long gidHigh, long gidLow, int lid);

    /** {@code ibv_post_send} of the request at {@code descriptor} ({@link NativeWorkRequest}). */
    static native int postSend(long qp, long descriptor);

    /** {@code ibv_post_recv} of one single-SGE receive. */
    static native int postReceive(long qp, long wrId, long address, int length, int lkey);

    /** Builds the {@code ibv_send_wr} {@link #postSend} would post and writes it back to {@code out}, for tests. */
    static native int decodeSendWr(long descriptor, long out);

    /**
     * @param call   the verb, e.g. "ibv_create_ah".
     * @param result its negative result.
     * @return the exception naming the verb, the error text and the errno.
     */
    static VerbsException failure(final String call, final long result)
    {
        return new VerbsException(call + " failed: " + errorText(result));
    }

    /** @return "text (errno N)" for a negative result. */
    static String errorText(final long result)
    {
        final int errno = (int)-result;
        return errnoText(errno) + " (errno " + errno + ")";
    }

    /** @return the native address of a direct buffer (only for start-up queries: not on a hot path). */
    static long addressOf(final ByteBuffer direct)
    {
        return BufferUtil.address(direct);
    }

    /**
     * @param disniObject a DiSNI verbs object ({@code IbvPd}, {@code IbvCQ}, {@code IbvQP}, {@code RdmaCmId}...).
     * @param what        its role, for the message.
     * @return the C pointer DiSNI keeps for it ({@code NatObject.getObjId()}).
     * @throws VerbsException when it is not one of DiSNI's native objects or has no pointer.
     */
    static long handleOf(final Object disniObject, final String what) throws VerbsException
    {
        if (!(disniObject instanceof NatObject))
        {
            throw new VerbsException(what + " " + disniObject + " is not a DiSNI native object: it has no C handle " +
                "for the JNI extension");
        }
        final long handle = ((NatObject)disniObject).getObjId();
        if (handle <= 0)
        {
            throw new VerbsException(what + " has no valid C handle (" + handle + "): it was destroyed or never created");
        }
        return handle;
    }

    /**
     * @return a handle or count.
     * @throws VerbsException when {@code result} is negative.
     */
    static long check(final String call, final long result) throws VerbsException
    {
        if (result < 0)
        {
            throw failure(call, result);
        }
        return result;
    }

    /**
     * @return null when {@code ibv_get_device_list} sees a device, else why not ("no RDMA device: ...").
     */
    static String noDeviceReason()
    {
        final int count = deviceCount();
        if (count > 0)
        {
            return null;
        }
        if (count == 0)
        {
            return "no RDMA device: ibv_get_device_list returned 0 devices";
        }
        return "no RDMA device: ibv_get_device_list failed: " + errnoText(-count) + " (errno " + -count +
            "; the kernel's RDMA support, ib_uverbs, is not loaded or no device is present)";
    }
}
