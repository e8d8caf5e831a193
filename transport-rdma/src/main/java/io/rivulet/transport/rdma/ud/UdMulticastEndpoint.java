package io.rivulet.transport.rdma.ud;

import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import org.agrona.collections.Int2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.concurrent.Executor;

/**
 * A {@link MulticastEndpoint} over one UD queue pair: everything {@link UdDatagramEndpoint} does for unicast peers,
 * plus groups joined through the verbs SPI ({@link VerbsContext#joinMulticast}, {@code rdma_join_multicast} on
 * hardware). Its queue pair's Q_Key is {@link MulticastMembership#RDMA_UDP_QKEY}, the one groups joined through RDMA CM
 * in the UDP port space carry, since a device drops a group datagram whose Q_Key is not the receiving queue pair's.
 *
 * <p><b>A group's life.</b> {@link #joinGroup} asks the context to join and returns a handle at once
 * ({@link #GROUP_JOINING}). Each {@link #poll} takes the context's connection manager events
 * ({@link VerbsContext#pollConnectionEvents()}) and moves joins on: when the membership is JOINED its Q_Key is checked
 * against this queue pair's (a group of another Q_Key fails, named, rather than be silently dropped by the device), the
 * queue pair is attached to the group when the caller receives from it ({@code ibv_attach_mcast}), and the group's
 * address handle is made from the join event's attributes (on the endpoint's executor, like a peer's); the group is
 * {@link #GROUP_JOINED} once that handle exists. Sends to it go to QP number 0xffffff with the group's Q_Key. A failed
 * join, attach or address handle, or a membership lost later (MULTICAST_ERROR, the device removed), makes the group
 * {@link #GROUP_FAILED} with the reason, the queue pair detached and the membership left; sends to it return false.
 * {@link #leaveGroup} detaches, leaves, and destroys the address handle once the sends posted before have completed.
 *
 * <p><b>Sources.</b> A group datagram names its sender as a unicast one does (GRH source GID and QP number, the resolved
 * peer or {@link #UNKNOWN_PEER}). One from this queue pair itself is dropped ({@link #ownDatagrams()}), since a
 * publisher must not read its own stream as a receiver's: rxe (Linux 6.1, seen in the Soft-RoCE guest) delivers a group
 * send to every queue pair of the device attached to the group, the sending one included; mlx5 loops group sends back
 * to the queue pairs of the same port as well, the sender's own unless it was created with
 * {@code IBV_QP_CREATE_BLOCK_SELF_MCAST_LB} (not checked on a ConnectX here); the soft provider never delivers to the
 * sending queue pair.
 *
 * <p>Threading: one thread, as the SPI says, which is also the owner of the context's connection manager: the driver
 * gives every multicast endpoint a device context of its own ({@code ownsContext}), closed with it.
 */
public final class UdMulticastEndpoint extends UdDatagramEndpoint implements MulticastEndpoint
{
    private static final Logger LOG = LoggerFactory.getLogger(UdMulticastEndpoint.class);

    /** One joined (or joining, or failed) group of this endpoint. */
    private static final class Group
    {
        final int handle;
        final String text;
        final boolean receive;
        MulticastMembership membership;
        int state = GROUP_JOINING;
        String failure;
        boolean attached;
        boolean routed;

        Group(final int handle, final String text, final boolean receive)
        {
            this.handle = handle;
            this.text = text;
            this.receive = receive;
        }
    }

    private final boolean ownsContext;
    private final Int2ObjectHashMap<Group> groups = new Int2ObjectHashMap<>();
    /** The same groups, for iterating without an iterator on the poll path. */
    private final ArrayList<Group> groupList = new ArrayList<>();
    /** Groups whose join or address handle is under way: looked at in every poll until joined or failed. */
    private final ArrayList<Group> pending = new ArrayList<>();
    private boolean endpointClosed;

    /**
     * @param context               the device; its connection manager events are taken by this endpoint's polls.
     * @param maxDatagramLength     longest datagram sent or delivered, at most the port's UD MTU.
     * @param receiveSlots          receive slots kept posted.
     * @param sendSlots             send slots, so sends in flight at once.
     * @param addressHandleExecutor where address handles are made (see {@link UdDatagramEndpoint}).
     * @param ownsContext           whether {@link #close()} closes the context too.
     * @throws IOException when the device refuses a resource; whatever was made is released (the context too, when
     *                     owned).
     */
    public UdMulticastEndpoint(
        final VerbsContext context,
        final int maxDatagramLength,
        final int receiveSlots,
        final int sendSlots,
        final Executor addressHandleExecutor,
        final boolean ownsContext) throws IOException
    {
        super(context, maxDatagramLength, receiveSlots, sendSlots, MulticastMembership.RDMA_UDP_QKEY,
            addressHandleExecutor);
        this.ownsContext = ownsContext;
        try
        {
            dropOwnDatagrams();
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The group is an IP multicast address written as a literal ({@code 239.1.2.3}, {@code ff0e::1:2}; no name is
     * looked up), which RDMA CM maps to the fabric's group. A join the device refuses at once gives a handle that is
     * already {@link #GROUP_FAILED}.
     */
    @Override
    public int joinGroup(final String group, final boolean receive)
    {
        final InetAddress address = parseGroup(group);
        final int handle = addGroupPeer(address.getHostAddress());
        final Group joined = new Group(handle, address.getHostAddress(), receive);
        groups.put(handle, joined);
        groupList.add(joined);
        try
        {
            joined.membership = context().joinMulticast(address);
        }
        catch (final IOException | RuntimeException ex)
        {
            fail(joined, "cannot join " + joined.text + ": " + ex.getMessage());
            return handle;
        }
        pending.add(joined);
        advance(joined);
        return handle;
    }

    @Override
    public int groupState(final int group)
    {
        return group(group).state;
    }

    @Override
    public String groupFailure(final int group)
    {
        return group(group).failure;
    }

    @Override
    public void leaveGroup(final int group)
    {
        final Group left = groups.remove(group);
        if (null == left)
        {
            return;
        }
        groupList.remove(left);
        pending.remove(left);
        release(left);
        retireGroupPeer(left.handle);
    }

    /** Takes the connection manager's events and moves joins on, then polls as {@link UdDatagramEndpoint#poll}. */
    @Override
    public int poll(final DatagramHandler handler, final int limit)
    {
        if (!groups.isEmpty() && !endpointClosed)
        {
            progress();
        }
        return super.poll(handler, limit);
    }

    /** @return groups joined or being joined (failed ones included until left). */
    public int groupCount()
    {
        return groups.size();
    }

    /** Leaves every group, closes the queue pair and its resources, then the context when it owns it. */
    @Override
    public void close()
    {
        if (endpointClosed)
        {
            return;
        }
        endpointClosed = true;
        for (int i = 0; i < groupList.size(); i++)
        {
            release(groupList.get(i));
        }
        groups.clear();
        groupList.clear();
        pending.clear();
        try
        {
            super.close();
        }
        finally
        {
            if (ownsContext)
            {
                context().close();
            }
        }
    }

    @Override
    public String toString()
    {
        return "UdMulticastEndpoint{" + localAddress() + ", groups=" + groups.size() + "}";
    }

    // ---------------------------------------------------------------------------------------------- joins

    private void progress()
    {
        try
        {
            context().pollConnectionEvents();
        }
        catch (final IOException ex)
        {
            for (int i = 0; i < groupList.size(); i++)
            {
                final Group group = groupList.get(i);
                if (group.state != GROUP_FAILED)
                {
                    fail(group, "the connection manager's event channel failed: " + ex.getMessage());
                }
            }
            return;
        }
        for (int i = pending.size() - 1; i >= 0; i--)
        {
            advance(pending.get(i));
        }
        checkJoinedMemberships();
    }

    /** A membership lost after the join (MULTICAST_ERROR, device removal) fails its group. */
    private void checkJoinedMemberships()
    {
        for (int i = 0; i < groupList.size(); i++)
        {
            final Group group = groupList.get(i);
            if (group.state == GROUP_JOINED && group.membership.state() == MulticastMembership.State.FAILED)
            {
                fail(group, group.membership.failure());
            }
        }
    }

    private void advance(final Group group)
    {
        if (group.state != GROUP_JOINING)
        {
            pending.remove(group);
            return;
        }
        final MulticastMembership membership = group.membership;
        switch (membership.state())
        {
            case JOINING:
                return;
            case FAILED:
            case LEFT:
                fail(group, null == membership.failure() ? "the membership of " + group.text + " ended" :
                    membership.failure());
                return;
            case JOINED:
            default:
                break;
        }
        if (!group.routed)
        {
            if (membership.qkey() != MulticastMembership.RDMA_UDP_QKEY)
            {
                fail(group, "the group " + group.text + " has Q_Key 0x" + Integer.toHexString(membership.qkey()) +
                    ", this endpoint's queue pair 0x" + Integer.toHexString(MulticastMembership.RDMA_UDP_QKEY) +
                    ": the device would drop its datagrams");
                return;
            }
            if (group.receive)
            {
                try
                {
                    queuePair().attachMulticast(membership);
                    group.attached = true;
                }
                catch (final IOException | RuntimeException ex)
                {
                    fail(group, "cannot attach queue pair " + qpNumber() + " to " + group.text + ": " + ex.getMessage());
                    return;
                }
            }
            group.routed = true;
            routeGroup(group.handle, membership);
        }
        if (isReachable(group.handle))
        {
            group.state = GROUP_JOINED;
            pending.remove(group);
        }
        else if (null != unreachableCause(group.handle))
        {
            fail(group, "no address handle for " + group.text + ": " + unreachableCause(group.handle).getMessage());
        }
    }

    private void fail(final Group group, final String why)
    {
        group.state = GROUP_FAILED;
        group.failure = why;
        pending.remove(group);
        LOG.warn("UD multicast endpoint {}: group {} failed: {}", localAddress(), group.text, why);
        release(group);
    }

    /** Detaches the queue pair and leaves the membership; the group's handle stays until {@link #leaveGroup}. */
    private void release(final Group group)
    {
        final MulticastMembership membership = group.membership;
        if (null == membership)
        {
            return;
        }
        if (group.attached)
        {
            group.attached = false;
            try
            {
                queuePair().detachMulticast(membership);
            }
            catch (final IOException | RuntimeException ex)
            {
                LOG.warn("UD multicast endpoint {}: cannot detach from {}: {}", localAddress(), group.text,
                    ex.getMessage());
            }
        }
        membership.close();
    }

    private Group group(final int handle)
    {
        final Group group = groups.get(handle);
        if (null == group)
        {
            throw new IllegalArgumentException("no group " + handle + " on this endpoint");
        }
        return group;
    }

    private static byte[] ipv4(final String text)
    {
        final byte[] bytes = new byte[4];
        int part = 0;
        int value = -1;
        for (int i = 0; i <= text.length(); i++)
        {
            final char c = i < text.length() ? text.charAt(i) : '.';
            if (c == '.')
            {
                if (value < 0 || part == 4)
                {
                    throw new IllegalArgumentException("not a multicast group: '" + text + "' (IPv4 takes four " +
                        "numbers 0-255)");
                }
                bytes[part++] = (byte)value;
                value = -1;
            }
            else
            {
                value = value < 0 ? c - '0' : value * 10 + (c - '0');
                if (value > 255)
                {
                    throw new IllegalArgumentException("not a multicast group: '" + text + "' (IPv4 takes four " +
                        "numbers 0-255)");
                }
            }
        }
        if (part != 4)
        {
            throw new IllegalArgumentException("not a multicast group: '" + text + "' (IPv4 takes four numbers 0-255)");
        }
        return bytes;
    }

    /**
     * @param group an IP multicast literal.
     * @return its address.
     * @throws IllegalArgumentException for anything else (a name, a unicast address, a port).
     */
    static InetAddress parseGroup(final String group)
    {
        if (null == group || group.isEmpty() || group.length() > 64)
        {
            throw new IllegalArgumentException("not a multicast group: '" + group + "' (an IP multicast address such " +
                "as 239.1.2.3 or ff0e::1:2)");
        }
        final boolean ipv6 = group.indexOf(':') >= 0;
        for (int i = 0; i < group.length(); i++)
        {
            final char c = group.charAt(i);
            final boolean allowed = (c >= '0' && c <= '9') || c == '.' ||
                (ipv6 && (c == ':' || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
            if (!allowed)
            {
                throw new IllegalArgumentException("not a multicast group: '" + group + "' (a literal IP multicast " +
                    "address, no name or port)");
            }
        }
        final InetAddress address;
        try
        {
            // IPv4 parsed here, so that nothing malformed is ever handed to a name lookup; a text with ':' is only
            // ever parsed as an IPv6 literal by the JDK.
            address = ipv6 ? InetAddress.getByName(group) : InetAddress.getByAddress(ipv4(group));
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("not a multicast group: '" + group + "': " + ex.getMessage(), ex);
        }
        if (!address.isMulticastAddress() || (ipv6 && !(address instanceof Inet6Address)))
        {
            throw new IllegalArgumentException("not a multicast group: '" + group + "' (IPv4 224.0.0.0/4 or IPv6 " +
                "ff00::/8)");
        }
        return address;
    }
}
