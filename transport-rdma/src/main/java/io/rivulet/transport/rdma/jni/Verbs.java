package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * libibverbs through librivulet-verbs ({@code transport-rdma-native/src/main/c/verbs.c}), loaded by
 * {@link NativeLibrary}: devices,
 * protection domains, memory regions, completion queues, queue pairs, address handles, posting and polling.
 *
 * <p>Handles are C pointers ({@code ibv_context}, {@code ibv_pd}, {@code ibv_mr}, {@code ibv_cq}, {@code ibv_qp},
 * {@code ibv_ah}), made here or by librdmacm ({@link RdmaCm}) or DiSNI. Every call takes primitives only; a
 * negative result is {@code -errno} (argument checks in C return {@code -EINVAL}), which {@link #check} turns into
 * a {@link VerbsException} naming the call and the error text. Structured input and output go through native
 * memory at the offsets the layout classes ({@link SendChain}, {@link ReceiveChain}, {@link CompletionBatch} and
 * the constants below) share with C; {@link NativeLibrary} refuses a library whose sizes differ.
 *
 * <p>Calling any of them before the library is loaded throws {@link UnsatisfiedLinkError}: go through
 * {@link NativeLibrary#require} first. Thread-safe as far as ibverbs is (posting on one queue pair from two
 * threads is not).
 */
public final class Verbs
{
    /** {@code EINVAL}: what every argument check in the library returns. */
    public static final int EINVAL = 22;
    /** {@code ENOMEM}: what {@code ibv_post_send}/{@code ibv_post_recv} return for a full work queue. */
    public static final int ENOMEM = 12;
    /** {@code ENODATA}: an empty GID table entry. */
    public static final int ENODATA = 61;
    /** {@code IBV_QPT_RC}. */
    public static final int QPT_RC = 2;
    /** {@code IBV_QPT_UD}. */
    public static final int QPT_UD = 4;
    /** The longest chain {@link #postSend}/{@link #postRecv} take, and the most completions one poll returns. */
    public static final int MAX_CHAIN = 64;

    // Device attributes written by queryDevice (offsets; A_* in rivulet_verbs.h).
    static final int A_MAX_QP_WR = 0;
    static final int A_MAX_SGE = 4;
    static final int A_MAX_CQE = 8;
    static final int A_MAX_QP_RD_ATOM = 12;
    static final int A_MAX_QP_INIT_RD_ATOM = 16;
    static final int A_ATOMIC_CAP = 20;
    static final int A_PHYS_PORT_CNT = 24;
    static final int A_SIZE = 64;

    // Port attributes written by queryPort (P_*).
    static final int P_STATE = 0;
    static final int P_LID = 4;
    static final int P_GID_TABLE = 8;
    static final int P_ACTIVE_MTU = 12;
    static final int P_LINK_LAYER = 20;
    static final int P_MAX_MTU = 24;
    static final int P_SIZE = 28;

    // GID entry written by queryGid (G_*).
    static final int G_TYPE = 16;
    static final int G_SIZE = 24;

    // Queue pair capabilities written by createQp (Q_*).
    static final int Q_QP_NUM = 0;
    static final int Q_MAX_SEND_WR = 4;
    static final int Q_MAX_RECV_WR = 8;
    static final int Q_MAX_INLINE = 20;
    static final int Q_SIZE = 24;

    // Memory region keys written by regMr (M_*).
    static final int M_LKEY = 0;
    static final int M_RKEY = 4;
    static final int M_SIZE = 8;

    // Layout ids of layoutSize (LAYOUT_* in rivulet_verbs.h).
    static final int LAYOUT_UD = 12;
    static final int LAYOUT_SEND = 1;
    static final int LAYOUT_RECEIVE = 2;
    static final int LAYOUT_COMPLETION = 3;
    static final int LAYOUT_DEVICE = 4;
    static final int LAYOUT_PORT = 5;
    static final int LAYOUT_GID = 6;
    static final int LAYOUT_QP = 7;
    static final int LAYOUT_MR = 8;
    static final int LAYOUT_EVENT = 9;
    static final int LAYOUT_ID_INFO = 10;
    static final int LAYOUT_MAX_CHAIN = 11;

    private Verbs()
    {
    }

    static native int abiVersion();

    /** @return the size in bytes C gives a layout ({@code LAYOUT_*}), or -EINVAL for an unknown one. */
    static native int layoutSize(int layout);

    /** @return {@code strerror} of an errno (only on failure paths: it allocates a String). */
    public static native String errnoText(int errno);

    /** @return the number of RDMA devices {@code ibv_get_device_list} sees, or -errno. */
    public static native int deviceCount();

    /** @return the names of the devices {@code ibv_get_device_list} sees (control path: allocates). */
    public static native String[] deviceNames();

    /** @return {@code ibv_get_device_name} of a context's device. */
    public static native String deviceName(long context);

    /** {@code ibv_query_device} into {@code A_*} at {@code out}. */
    public static native int queryDevice(long context, long out);

    /** {@code ibv_query_port} into {@code P_*} at {@code out}: state, lid, gid table length, MTUs in bytes, link layer. */
    public static native int queryPort(long context, int port, long out);

    /** {@code ibv_query_gid_ex}: 16 raw bytes, the GID type and the netdev ifindex at {@code out}; -ENODATA when empty. */
    public static native int queryGid(long context, int port, int index, long out);

    public static native long allocPd(long context);

    public static native int deallocPd(long pd);

    /** {@code ibv_reg_mr}; lkey and rkey to {@code out} ({@code M_*}). */
    public static native long regMr(long pd, long address, long length, int access, long out);

    public static native int deregMr(long mr);

    /** {@code ibv_create_cq} without a completion channel. */
    public static native long createCq(long context, int entries);

    /** @return the entries the device actually gave a completion queue ({@code cq->cqe}). */
    public static native int cqEntries(long cq);

    public static native int destroyCq(long cq);

    /** {@code ibv_poll_cq} of up to {@code max} completions into {@link CompletionBatch} records at {@code out}. */
    public static native int pollCq(long cq, int max, long out);

    /** {@code ibv_create_qp}; the granted capabilities to {@code out} ({@code Q_*}). */
    public static native long createQp(long pd, long sendCq, long receiveCq, int type, int maxSendWr, int maxRecvWr,
        int maxSendSge, int maxRecvSge, int maxInline, long out);

    /** A UD queue pair from RESET to RTS: INIT (port, P_Key index, Q_Key), RTR, RTS. */
    public static native int udQpToRts(long qp, int port, int pkeyIndex, int qkey);

    public static native int modifyQpToReset(long qp);

    public static native int modifyQpToError(long qp);

    /** @return {@code ibv_query_qp}'s state ({@code enum ibv_qp_state}), or -errno. */
    public static native int queryQpState(long qp);

    public static native int qpNumber(long qp);

    public static native int destroyQp(long qp);

    /**
     * {@code ibv_create_ah}; a GID of zero means LID routing (InfiniBand), anything else sets the GRH. May block
     * while the kernel resolves a RoCE peer's MAC address: never call it on the duty cycle.
     */
    public static native long createAh(long pd, long gidHigh, long gidLow, int lid, int port, int sgidIndex,
        int hopLimit, int trafficClass, int serviceLevel);

    public static native int destroyAh(long ah);

    /**
     * {@code ibv_create_ah} from address attributes in {@link UdAttributes}' layout (a join event's, for a
     * multicast group), each field range-checked in C.
     */
    public static native long createAhFromAttr(long pd, long attributes);

    public static native int attachMulticast(long qp, long gidHigh, long gidLow, int lid);

    public static native int detachMulticast(long qp, long gidHigh, long gidLow, int lid);

    /**
     * {@code ibv_post_send} of {@code count} descriptors ({@link SendChain}) as one chain.
     *
     * @return 0, or a negative {@link #chainErrno errno} and {@link #chainFailedIndex index of the first not posted}.
     */
    public static native int postSend(long qp, long descriptors, int count);

    /** {@code ibv_post_recv} of {@code count} descriptors ({@link ReceiveChain}) as one chain; results as postSend. */
    public static native int postRecv(long qp, long descriptors, int count);

    /** Builds the {@code ibv_send_wr} {@link #postSend} would post and writes it back to {@code out}, for tests. */
    static native int decodeSendWr(long descriptor, long out);

    /** @return the errno of a failed {@link #postSend}/{@link #postRecv}. */
    public static int chainErrno(final int result)
    {
        return -result & 0xffff;
    }

    /** @return the index of the first request of the chain that was not posted (the ones before it were). */
    public static int chainFailedIndex(final int result)
    {
        return -result >>> 16;
    }

    /**
     * @param call   the verb, e.g. "ibv_create_ah".
     * @param result its negative result.
     * @return the exception naming the verb, the error text and the errno.
     */
    public static VerbsException failure(final String call, final long result)
    {
        return new VerbsException(call + " failed: " + errorText(result));
    }

    /** @return "text (errno N)" for a negative result. */
    public static String errorText(final long result)
    {
        final int errno = (int)-result;
        return errnoText(errno) + " (errno " + errno + ")";
    }

    /**
     * @return a handle or count.
     * @throws VerbsException when {@code result} is negative.
     */
    public static long check(final String call, final long result) throws VerbsException
    {
        if (result < 0)
        {
            throw failure(call, result);
        }
        return result;
    }

    /** @return the native address of a direct buffer (control path). */
    public static long addressOf(final ByteBuffer direct)
    {
        return BufferUtil.address(direct);
    }

    /**
     * {@code ibv_query_device} of a context (control path: allocates).
     *
     * @throws VerbsException naming the device when the query fails.
     */
    public static DeviceAttributes deviceAttributes(final long context) throws VerbsException
    {
        final ByteBuffer out = ByteBuffer.allocateDirect(A_SIZE).order(ByteOrder.nativeOrder());
        check("ibv_query_device", queryDevice(context, addressOf(out)));
        return new DeviceAttributes(
            Math.max(1, out.getInt(A_MAX_QP_WR)),
            Math.max(1, out.getInt(A_MAX_SGE)),
            Math.max(1, out.getInt(A_MAX_CQE)),
            Math.max(0, out.getInt(A_MAX_QP_RD_ATOM)),
            Math.max(0, out.getInt(A_MAX_QP_INIT_RD_ATOM)),
            DeviceAttributes.AtomicCapability.of(out.getInt(A_ATOMIC_CAP)));
    }

    /**
     * @return null when {@code ibv_get_device_list} sees a device, else why not ("no RDMA device: ...").
     */
    public static String noDeviceReason()
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
