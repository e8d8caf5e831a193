package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.verbs.AbstractMulticastMembership;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.net.InetAddress;

/**
 * A {@link MulticastMembership} through librdmacm, for both hardware providers: one UD connection manager id
 * ({@code RDMA_PS_UDP}) per membership, bound to the context's address ({@code rdma_bind_addr}, so RDMA CM picks the
 * same device and port) on an event channel the provider's context polls, and {@code rdma_join_multicast} on it. The
 * id owns no queue pair, so librdmacm attaches none: the provider's UD queue pairs attach themselves
 * ({@link #attach}) with the MGID and MLID the MULTICAST_JOIN event gave, and the group's address handle is made from
 * the event's {@code ah_attr} ({@link #createAddressHandle}). The {@code disni} provider uses it too: DiSNI 2.1 cannot
 * make UD ids.
 *
 * <p>librdmacm opens each device once per process and hands the same {@code ibv_context} to every id bound to it, so
 * the id's device context is the provider's; {@link #join} checks that, since a queue pair can only be attached to a
 * group of its own device.
 *
 * <p>Not thread-safe: the thread that polls the channel (the context's owner).
 */
public final class CmMulticast extends AbstractMulticastMembership
{
    private static final System.Logger LOG = System.getLogger(CmMulticast.class.getName());
    /** {@code ENOTSUPP}: what the kernel answers for an IPv6 group on a RoCE v2 port (not in errno.h). */
    private static final int ENOTSUPP = 524;

    /** Told when a membership ends, so the context stops routing events to it. */
    public interface Owner
    {
        void forget(CmMulticast membership);
    }

    private final InetAddress group;
    private final String deviceName;
    private final Owner owner;
    private final UdAttributes attributes = new UdAttributes();
    private long id;
    private boolean joinIssued;

    private CmMulticast(final InetAddress group, final String deviceName, final Owner owner)
    {
        super(group);
        this.group = group;
        this.deviceName = deviceName;
        this.owner = owner;
    }

    /**
     * Creates the UD id, binds it to {@code local} and asks to join. Never blocks. A step refused at once leaves the
     * membership {@link State#FAILED} (its id destroyed), not an exception: the caller reports it like a failed join.
     *
     * @param channel       the librdmacm event channel the caller polls.
     * @param local         the context's address.
     * @param group         a multicast address.
     * @param expectedVerbs the caller's {@code ibv_context}, which the id must be bound to.
     * @param deviceName    for messages.
     * @param owner         told when the membership ends.
     * @return the membership, {@link State#JOINING} or {@link State#FAILED}.
     * @throws VerbsException when {@code group} is not a multicast address.
     */
    public static CmMulticast join(
        final long channel,
        final InetAddress local,
        final InetAddress group,
        final long expectedVerbs,
        final String deviceName,
        final Owner owner) throws VerbsException
    {
        MulticastMembership.checkGroup(group);
        final CmMulticast membership = new CmMulticast(group, deviceName, owner);
        final long id = RdmaCm.createUdId(channel);
        if (id < 0)
        {
            membership.fail("rdma_create_id (RDMA_PS_UDP) failed: " + Verbs.errorText(id));
            return membership;
        }
        membership.id = id;
        final int bound = RdmaCm.bindAddr(id, RdmaCm.family(local), RdmaCm.high(local), RdmaCm.low(local), 0);
        if (bound < 0)
        {
            membership.fail("rdma_bind_addr of the UD id to " + local.getHostAddress() + " failed: " +
                Verbs.errorText(bound));
            return membership;
        }
        final long verbs;
        try
        {
            verbs = CmIdInfo.of(id).verbs();
        }
        catch (final VerbsException ex)
        {
            membership.fail("the UD id's device is unknown: " + ex.getMessage());
            return membership;
        }
        if (verbs != expectedVerbs)
        {
            membership.fail("RDMA CM bound the UD id for " + local.getHostAddress() + " to " +
                (verbs == 0 ? "no device" : "another device context") + " than " + deviceName + "'s: its queue pairs " +
                "could not be attached to the group (is a second copy of librdmacm loaded?)");
            return membership;
        }
        final int joined = RdmaCm.joinMulticast(id, RdmaCm.family(group), RdmaCm.high(group), RdmaCm.low(group));
        if (joined < 0)
        {
            membership.fail("rdma_join_multicast of " + group.getHostAddress() + " on " + deviceName + " failed: " +
                errorText(joined, group));
            return membership;
        }
        membership.joinIssued = true;
        return membership;
    }

    /** @return the UD id, which the caller routes the channel's events by; 0 once destroyed. */
    public long id()
    {
        return id;
    }

    /**
     * The channel's event for this membership's id (the owner thread, after {@link CmEvent#take}).
     *
     * @param type  its type, or null for one this side does not know.
     * @param event its fields.
     */
    public void onCmEvent(final CmEventType type, final CmEvent event)
    {
        final State state = state();
        if (state != State.JOINING && state != State.JOINED)
        {
            return;
        }
        if (type == CmEventType.MULTICAST_JOIN && state == State.JOINING)
        {
            event.copyUdTo(attributes);
            final Gid gid = attributes.gid();
            if (attributes.qpNumber() != QP_NUMBER)
            {
                LOG.log(System.Logger.Level.WARNING, "rivulet rdma: the join of {0} gave QP number 0x{1}; sending to " +
                    "0xffffff as multicast requires", group.getHostAddress(), Integer.toHexString(attributes.qpNumber()));
            }
            joined(gid, gid.format(), attributes.qkey());
        }
        else if (type == CmEventType.MULTICAST_ERROR)
        {
            fail("RDMA_CM_EVENT_MULTICAST_ERROR for " + group.getHostAddress() + " on " + deviceName + ": " +
                errorText(event.status(), group) + (state == State.JOINED ? " (the membership was lost)" : ""));
        }
        else if (type == CmEventType.DEVICE_REMOVAL)
        {
            fail("RDMA_CM_EVENT_DEVICE_REMOVAL: " + deviceName + " went away");
        }
        else
        {
            LOG.log(System.Logger.Level.DEBUG, "rivulet rdma: ignored {0} for the membership of {1}", event,
                group.getHostAddress());
        }
    }

    /** @return the join event's address attributes (for tests and messages). */
    public UdAttributes attributes()
    {
        checkJoined();
        return attributes;
    }

    /**
     * {@code ibv_create_ah} from the join event's {@code ah_attr}, on a protection domain of the same device.
     *
     * @param pd an {@code ibv_pd} pointer (the provider's, or DiSNI's).
     * @return the {@code ibv_ah} pointer.
     * @throws VerbsException naming the group and the errno text.
     */
    public long createAddressHandle(final long pd) throws VerbsException
    {
        checkJoined();
        return Verbs.check("ibv_create_ah for the group " + group.getHostAddress() + " (" + attributes + ")",
            Verbs.createAhFromAttr(pd, attributes.address()));
    }

    /**
     * {@code ibv_attach_mcast} of a UD queue pair to the group's MGID and MLID.
     *
     * @param qp an {@code ibv_qp} pointer of the same device.
     */
    public void attach(final long qp, final int qpNumber) throws VerbsException
    {
        final Gid gid = gid();
        final int rc = Verbs.attachMulticast(qp, gid.high(), gid.low(), gid.lid());
        if (rc != 0)
        {
            throw Verbs.failure("ibv_attach_mcast of queue pair " + qpNumber + " to " + group.getHostAddress() + " (" +
                gid.format() + ")", rc);
        }
    }

    /** {@code ibv_detach_mcast}; the membership may have failed since the attach. */
    public void detach(final long qp, final int qpNumber) throws VerbsException
    {
        final Gid gid = joinedGid();
        if (null == gid)
        {
            throw new VerbsException("queue pair " + qpNumber + " was never attached to " + group.getHostAddress());
        }
        final int rc = Verbs.detachMulticast(qp, gid.high(), gid.low(), gid.lid());
        if (rc != 0)
        {
            throw Verbs.failure("ibv_detach_mcast of queue pair " + qpNumber + " from " + group.getHostAddress(), rc);
        }
    }

    /** {@code rdma_leave_multicast} (when the join went out) and {@code rdma_destroy_id}. Idempotent. */
    @Override
    public void close()
    {
        if (state() == State.LEFT)
        {
            return;
        }
        release();
        left();
    }

    private void fail(final String why)
    {
        failed(why);
        release();
    }

    /**
     * Frees the id; a failed membership keeps no native state, so nothing leaks however long its owner holds it. The
     * leave also frees librdmacm's record of the join (its destroy_id would not).
     */
    private void release()
    {
        if (id == 0)
        {
            return;
        }
        if (joinIssued)
        {
            joinIssued = false;
            final int left = RdmaCm.leaveMulticast(id, RdmaCm.family(group), RdmaCm.high(group), RdmaCm.low(group));
            if (left < 0 && state() == State.JOINED)
            {
                LOG.log(System.Logger.Level.WARNING, "rivulet rdma: rdma_leave_multicast of {0} failed: {1}",
                    group.getHostAddress(), Verbs.errorText(left));
            }
        }
        final int destroyed = RdmaCm.destroyId(id);
        if (destroyed < 0)
        {
            LOG.log(System.Logger.Level.WARNING, "rivulet rdma: rdma_destroy_id of the UD id for {0} failed: {1}",
                group.getHostAddress(), Verbs.errorText(destroyed));
        }
        owner.forget(this); // while id() still names the id its events were routed by
        id = 0;
    }


    private static String errorText(final long status, final InetAddress group)
    {
        if (status == -ENOTSUPP)
        {
            return "not supported (ENOTSUPP" + (group instanceof java.net.Inet6Address ?
                ": RoCE v2 carries IPv4 multicast groups only)" : ")");
        }
        return status < 0 ? Verbs.errorText(status) : "status " + status;
    }
}
