package io.rivulet.counters;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The counters of a node's receiving plane of multicast (one endpoint, every image it keeps): datagrams and bytes
 * taken, NAKs sent and suppressed, repairs and duplicates received, bytes the publisher declared LOST, datagrams
 * refused, and the images now. The conductor copies its images' statistics into them about every 100 ms
 * ({@code MulticastReceivers}), so receiving pays nothing for them.
 *
 * <p>Single writer: the conductor.
 */
public final class MulticastReceiveCounters implements AutoCloseable
{
    /** {@link CounterTypes#MULTICAST_DATAGRAMS_RECEIVED}. */
    public final AtomicCounter datagramsReceived;
    /** {@link CounterTypes#MULTICAST_BYTES_RECEIVED}. */
    public final AtomicCounter bytesReceived;
    /** {@link CounterTypes#MULTICAST_NAKS_SENT}. */
    public final AtomicCounter naksSent;
    /** {@link CounterTypes#MULTICAST_NAKS_SUPPRESSED}. */
    public final AtomicCounter naksSuppressed;
    /** {@link CounterTypes#MULTICAST_REPAIRS_RECEIVED}. */
    public final AtomicCounter repairsReceived;
    /** {@link CounterTypes#MULTICAST_DUPLICATES}. */
    public final AtomicCounter duplicates;
    /** {@link CounterTypes#MULTICAST_LOST_BYTES}. */
    public final AtomicCounter lostBytes;
    /** {@link CounterTypes#MULTICAST_IMAGES}, a level. */
    public final AtomicCounter images;
    /** {@link CounterTypes#MULTICAST_REFUSED}. */
    public final AtomicCounter refused;

    private MulticastReceiveCounters(final CounterFactory factory, final String endpoint)
    {
        datagramsReceived = counter(factory, CounterTypes.MULTICAST_DATAGRAMS_RECEIVED, endpoint, "datagrams");
        bytesReceived = counter(factory, CounterTypes.MULTICAST_BYTES_RECEIVED, endpoint, "bytes");
        naksSent = counter(factory, CounterTypes.MULTICAST_NAKS_SENT, endpoint, "naks sent");
        naksSuppressed = counter(factory, CounterTypes.MULTICAST_NAKS_SUPPRESSED, endpoint, "naks suppressed");
        repairsReceived = counter(factory, CounterTypes.MULTICAST_REPAIRS_RECEIVED, endpoint, "repairs");
        duplicates = counter(factory, CounterTypes.MULTICAST_DUPLICATES, endpoint, "duplicates");
        lostBytes = counter(factory, CounterTypes.MULTICAST_LOST_BYTES, endpoint, "lost bytes");
        images = counter(factory, CounterTypes.MULTICAST_IMAGES, endpoint, "images");
        refused = counter(factory, CounterTypes.MULTICAST_REFUSED, endpoint, "datagrams refused");
    }

    private static AtomicCounter counter(
        final CounterFactory factory, final int typeId, final String endpoint, final String what)
    {
        return factory.newCounter(typeId, CounterTypes.NO_OWNER, endpoint,
            "multicast receive " + what + ": " + endpoint);
    }

    /**
     * @param factory  the node's factory.
     * @param endpoint the receiving endpoint's address, the counters' tag.
     * @return the plane's counters, all 0.
     */
    public static MulticastReceiveCounters allocate(final CounterFactory factory, final String endpoint)
    {
        return new MulticastReceiveCounters(factory, endpoint);
    }

    /** Frees the counters. */
    @Override
    public void close()
    {
        datagramsReceived.close();
        bytesReceived.close();
        naksSent.close();
        naksSuppressed.close();
        repairsReceived.close();
        duplicates.close();
        lostBytes.close();
        images.close();
        refused.close();
    }
}
