package io.rivulet.transport.rdma.verbs;

import io.rivulet.transport.rdma.jni.Gid;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * This device's membership of a UD multicast group, modelled on {@code rdma_join_multicast}: made by
 * {@link VerbsContext#joinMulticast}, it is {@link State#JOINING} until the connection manager answers, which only
 * {@link VerbsContext#pollConnectionEvents()} takes (the context's owner thread, as for every connection manager
 * object), then {@link State#JOINED} with what the join event gave (the group's GID and LID, its Q_Key and the address
 * attributes an address handle for the group is made from) or {@link State#FAILED} with the event and errno named.
 *
 * <p>A joined membership is used two ways: {@link QueuePair#attachMulticast} makes a UD queue pair receive the group's
 * datagrams ({@code ibv_attach_mcast} with the group's GID and LID), and
 * {@link VerbsContext#createAddressHandle(ProtectionDomain, MulticastMembership)} the route a send to the group takes
 * (to QP number {@link #QP_NUMBER} with the group's {@link #qkey()}). A receiving queue pair's own Q_Key must be the
 * group's: the device drops a datagram whose Q_Key differs. Groups joined through RDMA CM in the UDP port space carry
 * librdmacm's {@code RDMA_UDP_QKEY} ({@link #RDMA_UDP_QKEY}).
 *
 * <p>Where hardware differs: on InfiniBand the subnet manager creates the group and gives it an MLID (a 0xc000.. LID)
 * and a MGID {@code ff1x:...}; on RoCE v2 (rxe, mlx5 in its default mode) the MGID is the group's IPv4-mapped address
 * ({@code ::ffff:239.1.2.3}), the MLID is 0, the kernel sends the IGMP report and only IPv4 groups are supported (an IPv6
 * group fails the join with ENOTSUPP); on RoCE v1 the MGID is {@code ff0e::ffff:a.b.c.d}.
 *
 * <p>Threading: the context's owner thread; {@link #state()} and the attributes are only read there.
 */
public interface MulticastMembership extends AutoCloseable
{
    /** The destination QP number of every multicast send ({@code 0xffffff}). */
    int QP_NUMBER = 0xFFFFFF;
    /** {@code RDMA_UDP_QKEY}: the Q_Key librdmacm gives UD ids and the multicast groups they join. */
    int RDMA_UDP_QKEY = 0x01234567;

    /** Where a membership stands. */
    enum State
    {
        /** Asked for; the connection manager has not answered. */
        JOINING,
        /** The group can be attached to and sent to. */
        JOINED,
        /** The join failed or the membership was lost; {@link #failure()} says why. Only {@link #close()} is left. */
        FAILED,
        /** Left ({@link #close()}). */
        LEFT
    }

    /** @return the group's IP address, as given to {@link VerbsContext#joinMulticast}. */
    InetAddress group();

    /** @return where the membership stands (progressed by {@link VerbsContext#pollConnectionEvents()}). */
    State state();

    /** @return why the membership failed (the event, the verb and its errno text), or null. */
    String failure();

    /**
     * @return the group's GID (MGID) and LID (MLID; 0 where the GID routes), as the join event gave them.
     * @throws IllegalStateException unless {@link State#JOINED}.
     */
    Gid gid();

    /**
     * @return the group's Q_Key as the join event gave it: a receiving queue pair must have it.
     * @throws IllegalStateException unless {@link State#JOINED}.
     */
    int qkey();

    /**
     * @return the group as a UD destination: the provider's gid text for it, {@link #QP_NUMBER} and {@link #qkey()}.
     * @throws IllegalStateException unless {@link State#JOINED}.
     */
    UdAddress destination();

    /**
     * Leaves the group ({@code rdma_leave_multicast}) and frees the membership's connection manager id. Queue pairs
     * should be detached first; address handles made for it stay valid until closed. Idempotent.
     */
    @Override
    void close();

    /**
     * @param group an address to join.
     * @return the group, when it is an IP multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8).
     * @throws VerbsException when it is not.
     */
    static InetAddress checkGroup(final InetAddress group) throws VerbsException
    {
        if (null == group || !(group instanceof Inet4Address || group instanceof Inet6Address) ||
            !group.isMulticastAddress())
        {
            throw new VerbsException("not a multicast group address: " + (null == group ? null : group.getHostAddress()) +
                " (IPv4 224.0.0.0/4 or IPv6 ff00::/8)");
        }
        return group;
    }
}
