package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.verbs.AbstractMulticastMembership;

import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * A soft device's membership of a group: {@link State#JOINING} until its context's next
 * {@link SoftVerbsContext#pollConnectionEvents()} (like an RDMA CM event, never during the join call), then
 * {@link State#JOINED} on the in-memory fabric or {@link State#FAILED} (across processes: the soft UDP port has no
 * multicast; or the fabric's group limit). Its GID is the group's address in GID form (IPv4-mapped, as RoCE v2), its LID
 * 0 and its Q_Key {@link #RDMA_UDP_QKEY}, as a RoCE v2 join gives; the destination's gid text is the group's address.
 *
 * <p>Thread-safe: the state is volatile; it changes on the context's owner thread.
 */
final class SoftMulticastMembership extends AbstractMulticastMembership
{
    private final SoftVerbsContext context;
    private volatile SoftMulticastGroup fabricGroup;
    /** The group it joined, kept after a leave so that queue pairs can still be detached. */
    private volatile SoftMulticastGroup joinedGroup;

    SoftMulticastMembership(final SoftVerbsContext context, final InetAddress group)
    {
        super(group);
        this.context = context;
    }

    SoftVerbsContext context()
    {
        return context;
    }

    /** @return the fabric's group while joined, else null. */
    SoftMulticastGroup fabricGroup()
    {
        return state() == State.JOINED ? fabricGroup : null;
    }

    /** @return the group it joined (even after leaving it), or null when it never did. */
    SoftMulticastGroup attachedGroup()
    {
        return joinedGroup;
    }

    void joined(final SoftMulticastGroup fabricGroup)
    {
        this.fabricGroup = fabricGroup;
        this.joinedGroup = fabricGroup;
        final ByteBuffer bytes = ByteBuffer.wrap(Addresses.gidBytes(group()));
        joined(new Gid(bytes.getLong(0), bytes.getLong(8), 0), group().getHostAddress(), RDMA_UDP_QKEY);
    }

    void fail(final String why)
    {
        failed(why);
    }

    @Override
    public void close()
    {
        context.leave(this);
    }

    /** The context's part of {@link #close()}: the state becomes LEFT; the group returned, once, for the fabric. */
    synchronized SoftMulticastGroup markLeft()
    {
        final SoftMulticastGroup group = state() == State.JOINED ? fabricGroup : null;
        left();
        fabricGroup = null;
        return group;
    }
}
