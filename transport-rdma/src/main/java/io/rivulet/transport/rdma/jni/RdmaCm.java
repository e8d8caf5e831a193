package io.rivulet.transport.rdma.jni;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * librdmacm, the RDMA connection manager, through librivulet-verbs
 * ({@code transport-rdma-native/src/main/c/rdma_cm.c}): event
 * channels (non-blocking), ids, address and route resolution, listen, connect, accept, reject, disconnect and
 * the queue pair an id owns. Conventions as {@link Verbs}: primitives only, {@code -errno} on failure.
 *
 * <p>Addresses cross as (family, high, low, port): family 4 with the IPv4 address in the low 32 bits of
 * {@code low}, or family 6 with the 16 bytes big-endian in {@code high} and {@code low}; {@link #family},
 * {@link #high} and {@link #low} split a Java address that way.
 *
 * <p>Thread-safe as far as librdmacm is; Rivulet drives one event channel from one thread.
 */
public final class RdmaCm
{
    // Event written by getEvent (E_* in rivulet_verbs.h).
    static final int E_TYPE = 0;
    static final int E_STATUS = 4;
    static final int E_ID = 8;
    static final int E_LISTEN_ID = 16;
    static final int E_RESPONDER_RESOURCES = 24;
    static final int E_INITIATOR_DEPTH = 28;
    static final int E_PRIVATE_DATA_LEN = 32;
    static final int E_PRIVATE_DATA = 40;
    /** The most private data bytes an event carries to Java (and a connect, accept or reject sends). */
    public static final int PRIVATE_DATA_MAX = 56;
    /** Where a UD id's event carries {@code param.ud} ({@link UdAttributes}' layout). */
    static final int E_UD = E_PRIVATE_DATA + PRIVATE_DATA_MAX;
    static final int E_SIZE = E_UD + UdAttributes.SIZE;

    // Id information written by idInfo (I_*).
    static final int I_VERBS = 0;
    static final int I_PORT = 8;
    static final int I_LOCAL_FAMILY = 12;
    static final int I_LOCAL_PORT = 16;
    static final int I_LOCAL_ADDR = 20;
    static final int I_REMOTE_FAMILY = 36;
    static final int I_REMOTE_PORT = 40;
    static final int I_REMOTE_ADDR = 44;
    static final int I_QP = 64;
    static final int I_SIZE = 72;

    private RdmaCm()
    {
    }

    /** {@code rdma_create_event_channel}, made non-blocking. */
    public static native long createEventChannel();

    public static native int destroyEventChannel(long channel);

    /** {@code rdma_create_id} in the TCP port space (RC). */
    public static native long createId(long channel);

    /**
     * {@code rdma_create_id} in the UDP port space (UD): for multicast membership. librdmacm gives such ids the Q_Key
     * {@code RDMA_UDP_QKEY} ({@link UdAttributes#RDMA_UDP_QKEY}).
     */
    public static native long createUdId(long channel);

    /**
     * {@code rdma_join_multicast} of a bound UD id to a group (port 0): MULTICAST_JOIN or MULTICAST_ERROR follows.
     * The id owns no queue pair, so nothing is attached: the caller attaches its own with the event's MGID and MLID.
     */
    public static native int joinMulticast(long id, int family, long high, long low);

    /** {@code rdma_leave_multicast} of a group joined with {@link #joinMulticast}. */
    public static native int leaveMulticast(long id, int family, long high, long low);

    /** {@code rdma_destroy_id}: every event of the id must have been taken (getEvent acknowledges each). */
    public static native int destroyId(long id);

    public static native int bindAddr(long id, int family, long high, long low, int port);

    /** {@code rdma_resolve_addr} from the bound address; ADDR_RESOLVED or ADDR_ERROR follows. */
    public static native int resolveAddr(long id, int family, long high, long low, int port, int timeoutMs);

    /** {@code rdma_resolve_route}; ROUTE_RESOLVED or ROUTE_ERROR follows. */
    public static native int resolveRoute(long id, int timeoutMs);

    public static native int listen(long id, int backlog);

    /** {@code rdma_create_qp}: an RC queue pair owned by the id; the granted capabilities to {@code out}. */
    public static native long createQp(long id, long pd, long sendCq, long receiveCq, int maxSendWr, int maxRecvWr,
        int maxSendSge, int maxRecvSge, int maxInline, long out);

    /** {@code rdma_destroy_qp}. */
    public static native int destroyQp(long id);

    /**
     * {@code rdma_connect}.
     *
     * @param responderResources READs and atomics this side serves for its peer at once.
     * @param initiatorDepth     READs and atomics this side issues at once.
     */
    public static native int connect(long id, int responderResources, int initiatorDepth, int retryCount,
        int rnrRetryCount, long privateData, int privateDataLength);

    /** {@code rdma_accept}, answering the request's resources with at most what the peer offered. */
    public static native int accept(long id, int responderResources, int initiatorDepth, int rnrRetryCount,
        long privateData, int privateDataLength);

    public static native int reject(long id, long privateData, int privateDataLength);

    public static native int disconnect(long id);

    /**
     * Takes one pending event without blocking and acknowledges it.
     *
     * @return 1 with the event at {@code out} ({@link CmEvent} reads it), 0 when none is pending, -errno.
     */
    public static native int getEvent(long channel, long out);

    /** What an id is bound to, at {@code out}: device context, port, local and remote address, queue pair. */
    public static native int idInfo(long id, long out);

    /** @return {@code rdma_event_str} (control path). */
    public static native String eventName(int type);

    /** @return 4 or 6. */
    public static int family(final InetAddress address)
    {
        return address instanceof Inet4Address ? 4 : 6;
    }

    /** @return the first 8 bytes of an IPv6 address big-endian, 0 for IPv4. */
    public static long high(final InetAddress address)
    {
        final byte[] bytes = address.getAddress();
        return bytes.length == 16 ? bigEndian(bytes, 0) : 0;
    }

    /** @return the last 8 bytes of an IPv6 address big-endian, or the IPv4 address in the low 32 bits. */
    public static long low(final InetAddress address)
    {
        final byte[] bytes = address.getAddress();
        if (bytes.length == 16)
        {
            return bigEndian(bytes, 8);
        }
        return ((bytes[0] & 0xffL) << 24) | ((bytes[1] & 0xffL) << 16) | ((bytes[2] & 0xffL) << 8) | (bytes[3] & 0xffL);
    }

    /**
     * Reads an address written by C (family, port, 16 bytes of which IPv4 uses the first 4).
     *
     * @return the address, or null when the family is 0 (not bound, not connected).
     */
    static InetSocketAddress socketAddress(final int family, final int port, final byte[] bytes)
    {
        try
        {
            if (family == 4)
            {
                return new InetSocketAddress(Inet4Address.getByAddress(java.util.Arrays.copyOf(bytes, 4)), port);
            }
            if (family == 6)
            {
                return new InetSocketAddress(Inet6Address.getByAddress(null, bytes, null), port);
            }
        }
        catch (final UnknownHostException ex)
        {
            // Lengths are right by construction; an unreadable address reads as none.
        }
        return null;
    }

    private static long bigEndian(final byte[] bytes, final int offset)
    {
        long value = 0;
        for (int i = 0; i < 8; i++)
        {
            value = value << 8 | (bytes[offset + i] & 0xffL);
        }
        return value;
    }
}
