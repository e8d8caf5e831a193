package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;

/**
 * Multicast on UD queue pairs of the {@code disni} provider ({@code ibv_attach_mcast} /
 * {@code ibv_detach_mcast} through the JNI extension). The verbs SPI has no multicast, so this is the
 * provider's own entry point.
 *
 * <p>Attaching only tells the device to deliver the group's datagrams to the queue pair. The fabric must
 * route the group here: on InfiniBand the group must be joined with the subnet manager (its MLID is the
 * LID given here), on RoCE the switches must forward it (IGMP snooping needs a membership report).
 * {@code rdma_join_multicast} does both, but needs a UD RDMA CM id, which DiSNI 2.1 cannot create.
 * To send to a group, create an address handle for {@code <group gid>/<mlid>} and send to QPN 0xffffff.
 */
public final class DisniMulticast
{
    /** The queue pair number of a multicast destination. */
    public static final int MULTICAST_QPN = 0xffffff;

    private DisniMulticast()
    {
    }

    /**
     * @param queuePair a UD queue pair of the {@code disni} provider.
     * @param group     the group as {@code <8 hex groups starting ff>/<mlid>} (see {@link Gid}).
     * @throws IOException naming what is wrong, or the verb's errno text.
     */
    public static void attach(final QueuePair queuePair, final String group) throws IOException
    {
        final Gid gid = groupOf(group);
        final int rc = Verbs.attachMulticast(udQueuePairOf(queuePair).handle(), gid.high(), gid.low(), gid.lid());
        if (rc != 0)
        {
            throw Verbs.failure("ibv_attach_mcast of " + group + " to queue pair " + queuePair.qpNumber(), rc);
        }
    }

    /**
     * @param queuePair a UD queue pair the group is attached to.
     * @param group     the group, as given to {@link #attach}.
     * @throws IOException naming what is wrong, or the verb's errno text.
     */
    public static void detach(final QueuePair queuePair, final String group) throws IOException
    {
        final Gid gid = groupOf(group);
        final int rc = Verbs.detachMulticast(udQueuePairOf(queuePair).handle(), gid.high(), gid.low(), gid.lid());
        if (rc != 0)
        {
            throw Verbs.failure("ibv_detach_mcast of " + group + " from queue pair " + queuePair.qpNumber(), rc);
        }
    }

    static Gid groupOf(final String group) throws VerbsException
    {
        final Gid gid = Gid.parse(group);
        if (!gid.isMulticast())
        {
            throw new VerbsException("'" + group + "' is not a multicast GID: multicast GIDs start with ff");
        }
        return gid;
    }

    private static DisniUdQueuePair udQueuePairOf(final QueuePair queuePair) throws VerbsException
    {
        if (queuePair instanceof DisniUdQueuePair)
        {
            return (DisniUdQueuePair)queuePair;
        }
        throw new VerbsException("multicast needs a UD queue pair of the disni provider, not " + queuePair);
    }
}
