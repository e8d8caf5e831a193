package io.rivulet.counters;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The counters of one reliable-datagram channel (a connection's topic data over UD, both directions): NAKs
 * both ways, retransmissions, the round-trip estimate and the congestion window. {@code DatagramChannels}
 * allocates one set per connection with {@link #allocate} when both ends agreed to datagrams, copies the
 * paths' figures into them about every 100 ms, and {@link #close() closes} them when the connection ends.
 */
public final class UdPathCounters implements AutoCloseable
{
    /** NAKs this side sent ({@link CounterTypes#UD_NAKS_SENT}). */
    public final AtomicCounter naksSent;
    /** NAKs this side received ({@link CounterTypes#UD_NAKS_RECEIVED}). */
    public final AtomicCounter naksReceived;
    /** Datagrams retransmitted ({@link CounterTypes#UD_RETRANSMISSIONS}). */
    public final AtomicCounter retransmissions;
    /** Smoothed RTT in ns, a level: set it with {@code setRelease} ({@link CounterTypes#UD_RTT_NS}). */
    public final AtomicCounter rttNs;
    /** Congestion window in datagrams, a level ({@link CounterTypes#UD_CWND}). */
    public final AtomicCounter congestionWindow;

    private UdPathCounters(final CounterFactory factory, final long ownerId, final String path)
    {
        naksSent = factory.newCounter(CounterTypes.UD_NAKS_SENT, ownerId, path, "ud naks sent: " + path);
        naksReceived = factory.newCounter(CounterTypes.UD_NAKS_RECEIVED, ownerId, path, "ud naks received: " + path);
        retransmissions = factory.newCounter(CounterTypes.UD_RETRANSMISSIONS, ownerId, path, "ud retransmissions: " + path);
        rttNs = factory.newCounter(CounterTypes.UD_RTT_NS, ownerId, path, "ud rtt ns: " + path);
        congestionWindow = factory.newCounter(CounterTypes.UD_CWND, ownerId, path, "ud cwnd: " + path);
    }

    /**
     * @param factory the node's factory ({@code TransportSettings.counters()}).
     * @param ownerId the connection the path serves, or {@link CounterTypes#NO_OWNER}.
     * @param path    names the path for readers, e.g. {@code "qpn 0x1a2 10.0.0.2"}.
     * @return the path's counters, all 0.
     */
    public static UdPathCounters allocate(final CounterFactory factory, final long ownerId, final String path)
    {
        return new UdPathCounters(factory, ownerId, path);
    }

    /** Frees the five counters. */
    @Override
    public void close()
    {
        naksSent.close();
        naksReceived.close();
        retransmissions.close();
        rttNs.close();
        congestionWindow.close();
    }
}
