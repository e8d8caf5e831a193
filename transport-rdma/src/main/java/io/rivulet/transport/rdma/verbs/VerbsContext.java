package io.rivulet.transport.rdma.verbs;

import io.rivulet.transport.rdma.jni.Gid;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * An open device ({@code ibv_context}) with its connection manager ({@code rdma_cm}). Resources
 * created here are freed by their own {@code close}; closing the context frees what is left.
 *
 * <p>Connection management progresses only on the thread that owns the context (the engine's conductor):
 * {@link #pollConnectionEvents()}, and the {@code poll} methods of its listeners and connections, take the
 * connection manager's events; every other thread only reads what they left ({@link CmConnection#isDisconnected()}).
 *
 * <p>Not thread-safe unless the provider says so: the engine uses one context from its conductor.
 */
public interface VerbsContext extends AutoCloseable
{
    /** @return the provider's name. */
    String providerName();

    /** @return the device's name ("mlx5_0", "soft0"). */
    String deviceName();

    /** @return what the device can do ({@code ibv_query_device}), read once when the context opened. */
    DeviceAttributes attributes();

    /**
     * Takes the connection manager's pending events ({@code rdma_get_cm_event}, never blocking) and hands each to
     * the listener or connection it concerns. The owner thread calls it every duty cycle, so that set-ups advance
     * and disconnects are seen even while nobody polls a particular connection. Providers that progress on a
     * thread of their own do nothing here.
     *
     * @return events handled.
     * @throws IOException when the event channel itself failed.
     */
    default int pollConnectionEvents() throws IOException
    {
        return 0;
    }

    /**
     * @return memory registrations ({@code ibv_reg_mr}) made through this context since it opened, deregistered or
     *         not: what proves that the data path registers nothing.
     */
    long totalRegistrations();

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocateProtectionDomain() throws IOException;

    /**
     * {@code ibv_create_cq}.
     *
     * @param entries the most completions it holds; overflowing it is an error on hardware.
     */
    CompletionQueue createCompletionQueue(int entries) throws IOException;

    /**
     * Listens for RC connection requests ({@code rdma_bind_addr} + {@code rdma_listen}).
     *
     * @param address local address; port 0 picks a free port.
     * @param backlog pending requests kept.
     */
    CmListener listen(InetSocketAddress address, int backlog) throws IOException;

    /**
     * Starts an RC connection ({@code rdma_resolve_addr}, {@code rdma_resolve_route},
     * {@code rdma_create_qp}, {@code rdma_connect}); {@link CmConnection#poll()} completes it.
     *
     * @param remote the listener's address.
     * @param config the queue pair to create for it.
     */
    CmConnection connect(InetSocketAddress remote, QueuePairConfig config) throws IOException;

    /**
     * Creates a UD queue pair, ready to send and receive (RTS), with no connection manager.
     *
     * @param config its resources; {@code qkey} guards who may send to it.
     */
    QueuePair createUdQueuePair(QueuePairConfig config) throws IOException;

    /**
     * @return the largest UD payload the device's port carries (its active path MTU, without the 40-byte GRH):
     *         4096 on InfiniBand and on RoCE with jumbo frames, 1024 on RoCE over 1500-byte Ethernet.
     * @throws IOException when the provider cannot tell (for example DiSNI without the JNI extension).
     */
    int udMtu() throws IOException;

    /**
     * {@code ibv_create_ah}: the route to a remote UD queue pair.
     *
     * @param pd     the protection domain of the sending queue pair.
     * @param remote the remote queue pair's address.
     */
    AddressHandle createAddressHandle(ProtectionDomain pd, UdAddress remote) throws IOException;

    /**
     * Starts joining a UD multicast group ({@code rdma_join_multicast} on a UD connection manager id bound to this
     * context's address): never blocks; the membership progresses in {@link #pollConnectionEvents()} to
     * {@link MulticastMembership.State#JOINED} or {@link MulticastMembership.State#FAILED}. A join the connection manager
     * refuses at once (an IPv6 group on a RoCE v2 port) gives a membership already FAILED. Control plane; may allocate.
     * Closing the context leaves every group still joined.
     *
     * @param group an IP multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8).
     * @return the membership.
     * @throws VerbsException when {@code group} is not a multicast address, or the provider has no multicast.
     */
    default MulticastMembership joinMulticast(final InetAddress group) throws IOException
    {
        MulticastMembership.checkGroup(group);
        throw new VerbsException(providerName() + " has no multicast");
    }

    /**
     * {@code ibv_create_ah} for sending to a joined group: from the join event's address attributes (group GID and LID,
     * service level, rate, hop limit), to QP number {@link MulticastMembership#QP_NUMBER} with the group's Q_Key.
     *
     * @param pd    the protection domain of the sending queue pair.
     * @param group a {@link MulticastMembership.State#JOINED} membership of this context.
     */
    default AddressHandle createAddressHandle(final ProtectionDomain pd, final MulticastMembership group)
        throws IOException
    {
        throw new VerbsException(providerName() + " has no multicast");
    }

    /**
     * Who a datagram sent from {@code remote}'s queue pair says it comes from when it reaches a receiver: the source
     * GID its GRH carries and the source LID its receive completion reports. A UD receiver compares them with the
     * completion and the GRH to name the sender, since QP numbers alone repeat across hosts.
     *
     * <p>Default: the hardware providers' gid text ({@code <8 groups of hex digits>/<lid>}, {@link Gid}), which is
     * exactly that GID and LID. A provider whose gid text is something else (soft: host and port) says what its
     * datagrams carry. Control plane; may allocate.
     *
     * @param remote a UD address as its queue pair reported it (from the network: parsed strictly).
     * @return the GID (big-endian halves) and LID; the LID is 0 where only the GID routes (RoCE).
     * @throws VerbsException when the address's gid is malformed.
     */
    default Gid udSourceOf(final UdAddress remote) throws VerbsException
    {
        return Gid.parse(remote.gid());
    }

    @Override
    void close();
}
