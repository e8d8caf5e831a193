package io.rivulet.spi;

/**
 * A {@link DatagramEndpoint} that can also send to and listen to multicast groups: one send reaches every member,
 * and the fabric or the kernel makes the copies (RDMA UD multicast through {@code rdma_join_multicast}, UDP
 * multicast). Everything a plain endpoint does (unicast to resolved peers, {@link #poll}) works as before; a group
 * is one more peer handle.
 *
 * <p>A datagram received from a group names its sender as a unicast datagram does: the sending endpoint's own
 * address (its {@link #localAddress()}), resolved or {@link #UNKNOWN_PEER}. So a receiver checks that a group's
 * data comes from the publisher it expects, whatever group it came through.
 *
 * <p>Joining may take time (RDMA CM answers with an event; the subnet manager or the switches route the group), so
 * it never blocks: {@link #joinGroup} returns a handle at once, {@link #groupState} says when it is usable, and
 * {@link #poll} progresses the join. Until then, {@link #send} to the group returns false.
 *
 * <p>Threading: as {@link DatagramEndpoint}, one thread calls every method.
 */
public interface MulticastEndpoint extends DatagramEndpoint
{
    /** {@link #groupState}: the join is under way; sends to the group return false. */
    int GROUP_JOINING = 0;
    /** {@link #groupState}: the group is usable for sending, and for receiving if asked. */
    int GROUP_JOINED = 1;
    /** {@link #groupState}: the group cannot be used; {@link #groupFailure} says why. */
    int GROUP_FAILED = 2;

    /**
     * Starts joining a group (control plane; may allocate; never blocks). The handle it returns is a peer handle:
     * {@link #send} to it reaches every member of the group once the group is {@link #GROUP_JOINED}. Joining the
     * same group twice gives two handles, each left on its own.
     *
     * @param group   the group, in the transport's form: {@code 239.1.2.3:40456} (UDP: the group's address and port),
     *                {@code 239.1.2.3} or an IPv6 multicast address (RDMA: RDMA CM maps it to the fabric's group).
     * @param receive whether this endpoint also receives what is sent to the group (a sender need not).
     * @return a peer handle for {@link #send}, {@link #groupState} and {@link #leaveGroup}.
     * @throws IllegalArgumentException when {@code group} is not a multicast group in this transport's form.
     */
    int joinGroup(String group, boolean receive);

    /**
     * @param group a handle from {@link #joinGroup}.
     * @return {@link #GROUP_JOINING}, {@link #GROUP_JOINED} or {@link #GROUP_FAILED}.
     * @throws IllegalArgumentException when the handle is not a group of this endpoint.
     */
    int groupState(int group);

    /**
     * @param group a handle from {@link #joinGroup}.
     * @return why the group failed (the verb's or the socket's error, named), or null while it has not.
     */
    String groupFailure(int group);

    /**
     * Leaves a group: no more of its datagrams arrive here, and the handle is no longer valid. Unknown or already
     * left handles are ignored.
     *
     * @param group a handle from {@link #joinGroup}.
     */
    void leaveGroup(int group);
}
