package io.rivulet.counters;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The counters of a node's publishing plane of multicast (one endpoint, every stream it sends): datagrams and bytes
 * sent, NAKs received, repairs to the group and to one receiver, LOST notices, and, as levels, the streams, the
 * receivers their flow control follows and the smallest congestion window. The plane's owner thread copies its
 * streams' statistics into them about every 100 ms ({@code MulticastSenders}), so sending pays nothing for them.
 *
 * <p>Single writer: the thread that sends topic data.
 */
public final class MulticastSendCounters implements AutoCloseable
{
    /** {@link CounterTypes#MULTICAST_DATAGRAMS_SENT}. */
    public final AtomicCounter datagramsSent;
    /** {@link CounterTypes#MULTICAST_BYTES_SENT}. */
    public final AtomicCounter bytesSent;
    /** {@link CounterTypes#MULTICAST_NAKS_RECEIVED}. */
    public final AtomicCounter naksReceived;
    /** {@link CounterTypes#MULTICAST_REPAIRS_TO_GROUP}. */
    public final AtomicCounter repairsToGroup;
    /** {@link CounterTypes#MULTICAST_REPAIRS_TO_RECEIVER}. */
    public final AtomicCounter repairsToReceiver;
    /** {@link CounterTypes#MULTICAST_REPAIR_DATAGRAMS}. */
    public final AtomicCounter repairDatagrams;
    /** {@link CounterTypes#MULTICAST_LOST_SENT}. */
    public final AtomicCounter lostSent;
    /** {@link CounterTypes#MULTICAST_STREAMS}, a level. */
    public final AtomicCounter streams;
    /** {@link CounterTypes#MULTICAST_RECEIVERS}, a level. */
    public final AtomicCounter receivers;
    /** {@link CounterTypes#MULTICAST_CWND}, a level. */
    public final AtomicCounter congestionWindow;
    /** {@link CounterTypes#MULTICAST_REFUSED}. */
    public final AtomicCounter refused;

    private MulticastSendCounters(final CounterFactory factory, final String endpoint)
    {
        datagramsSent = counter(factory, CounterTypes.MULTICAST_DATAGRAMS_SENT, endpoint, "datagrams sent");
        bytesSent = counter(factory, CounterTypes.MULTICAST_BYTES_SENT, endpoint, "bytes sent");
        naksReceived = counter(factory, CounterTypes.MULTICAST_NAKS_RECEIVED, endpoint, "naks received");
        repairsToGroup = counter(factory, CounterTypes.MULTICAST_REPAIRS_TO_GROUP, endpoint, "repairs to group");
        repairsToReceiver = counter(factory, CounterTypes.MULTICAST_REPAIRS_TO_RECEIVER, endpoint,
            "repairs to one receiver");
        repairDatagrams = counter(factory, CounterTypes.MULTICAST_REPAIR_DATAGRAMS, endpoint, "repair datagrams");
        lostSent = counter(factory, CounterTypes.MULTICAST_LOST_SENT, endpoint, "lost notices sent");
        streams = counter(factory, CounterTypes.MULTICAST_STREAMS, endpoint, "streams");
        receivers = counter(factory, CounterTypes.MULTICAST_RECEIVERS, endpoint, "receivers followed");
        congestionWindow = counter(factory, CounterTypes.MULTICAST_CWND, endpoint, "smallest cwnd");
        refused = counter(factory, CounterTypes.MULTICAST_REFUSED, endpoint, "datagrams refused");
    }

    private static AtomicCounter counter(
        final CounterFactory factory, final int typeId, final String endpoint, final String what)
    {
        return factory.newCounter(typeId, CounterTypes.NO_OWNER, endpoint, "multicast send " + what + ": " + endpoint);
    }

    /**
     * @param factory  the node's factory.
     * @param endpoint the publishing endpoint's address, the counters' tag.
     * @return the plane's counters, all 0.
     */
    public static MulticastSendCounters allocate(final CounterFactory factory, final String endpoint)
    {
        return new MulticastSendCounters(factory, endpoint);
    }

    /** Frees the counters. */
    @Override
    public void close()
    {
        datagramsSent.close();
        bytesSent.close();
        naksReceived.close();
        repairsToGroup.close();
        repairsToReceiver.close();
        repairDatagrams.close();
        lostSent.close();
        streams.close();
        receivers.close();
        congestionWindow.close();
        refused.close();
    }
}
