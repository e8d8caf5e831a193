package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.VerbsProvider;

import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * The {@code soft} verbs provider: RDMA semantics in user space, the role rdma-core's rxe or
 * libfabric's tcp provider plays. Always available; devices live on loopback addresses only.
 *
 * <h2>Two fabrics</h2>
 * <ul>
 *   <li><b>Sockets</b> (the default, {@link #SoftVerbsProvider()}): each RC connection is a TCP
 *       connection carrying the provider's own frames ("RoCE over TCP": SEND, WRITE, READ request and
 *       response, atomic request and response, ACK/NAK); each device has one UDP socket for its UD
 *       queue pairs. Works between processes on the same host and within one JVM.</li>
 *   <li><b>In-process</b> ({@link #SoftVerbsProvider(SoftFabric)}): devices of one JVM meet on a
 *       {@link SoftFabric} through bounded in-memory rings; the same protocol, no sockets, for fast
 *       deterministic tests.</li>
 * </ul>
 *
 * <h2>What it emulates</h2>
 * Registered memory with unique, never reused lkeys and rkeys (they differ from each other); bounded
 * completion queues (overrun is an error); RC queue pairs through the connection manager, reliable and
 * in order, with RNR retry and error semantics of InfiniBand; remote READ, WRITE and atomics applied by
 * the target device's NIC thread after rkey, bounds and permission checks; UD queue pairs with MTU-sized
 * datagrams, a 40-byte GRH in front of every receive, silent drops without a posted receive, and seeded
 * {@link SoftFaults}. See {@link SoftVerbsContext} for the per-device counters.
 *
 * <p>Immutable and thread-safe; the {@code with...} methods return configured copies.
 */
public final class SoftVerbsProvider implements VerbsProvider
{
    public static final String NAME = "soft";
    public static final int DEFAULT_MTU = 4096;
    public static final int MIN_MTU = 256;
    public static final int MAX_MTU = 65_000;
    public static final long DEFAULT_RNR_DELAY_NS = TimeUnit.MICROSECONDS.toNanos(640);
    public static final long DEFAULT_CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private final SoftFabric fabric;
    private final int mtu;
    private final SoftFaults faults;
    private final long rnrDelayNs;
    private final long connectTimeoutNs;

    /** Devices on TCP and UDP sockets: reachable from other processes on this host. */
    public SoftVerbsProvider()
    {
        this(null, DEFAULT_MTU, SoftFaults.NONE, DEFAULT_RNR_DELAY_NS, DEFAULT_CONNECT_TIMEOUT_NS);
    }

    /**
     * @param fabric the in-memory fabric devices meet on; null for sockets.
     */
    public SoftVerbsProvider(final SoftFabric fabric)
    {
        this(fabric, DEFAULT_MTU, SoftFaults.NONE, DEFAULT_RNR_DELAY_NS, DEFAULT_CONNECT_TIMEOUT_NS);
    }

    private SoftVerbsProvider(
        final SoftFabric fabric,
        final int mtu,
        final SoftFaults faults,
        final long rnrDelayNs,
        final long connectTimeoutNs)
    {
        this.fabric = fabric;
        this.mtu = mtu;
        this.faults = faults;
        this.rnrDelayNs = rnrDelayNs;
        this.connectTimeoutNs = connectTimeoutNs;
    }

    /** @return a provider whose devices use this in-memory fabric (null: sockets). */
    public SoftVerbsProvider withFabric(final SoftFabric fabric)
    {
        return new SoftVerbsProvider(fabric, mtu, faults, rnrDelayNs, connectTimeoutNs);
    }

    /** @return a provider whose UD queue pairs carry payloads of up to {@code mtu} bytes. */
    public SoftVerbsProvider withMtu(final int mtu)
    {
        if (mtu < MIN_MTU || mtu > MAX_MTU)
        {
            throw new IllegalArgumentException("mtu must be within [" + MIN_MTU + ", " + MAX_MTU + "]: " + mtu);
        }
        return new SoftVerbsProvider(fabric, mtu, faults, rnrDelayNs, connectTimeoutNs);
    }

    /** @return a provider whose devices start with these UD faults. */
    public SoftVerbsProvider withFaults(final SoftFaults faults)
    {
        return new SoftVerbsProvider(fabric, mtu, faults == null ? SoftFaults.NONE : faults, rnrDelayNs,
            connectTimeoutNs);
    }

    /** @return a provider whose RC requesters wait this long before retrying after an RNR NAK. */
    public SoftVerbsProvider withRnrDelayNs(final long rnrDelayNs)
    {
        if (rnrDelayNs < 0)
        {
            throw new IllegalArgumentException("rnrDelayNs must not be negative: " + rnrDelayNs);
        }
        return new SoftVerbsProvider(fabric, mtu, faults, rnrDelayNs, connectTimeoutNs);
    }

    /** @return a provider whose RC connection attempts fail after this long. */
    public SoftVerbsProvider withConnectTimeoutNs(final long connectTimeoutNs)
    {
        if (connectTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("connectTimeoutNs must be positive: " + connectTimeoutNs);
        }
        return new SoftVerbsProvider(fabric, mtu, faults, rnrDelayNs, connectTimeoutNs);
    }

    /** @return the in-memory fabric, or null for sockets. */
    public SoftFabric fabric()
    {
        return fabric;
    }

    public int mtu()
    {
        return mtu;
    }

    public SoftFaults faults()
    {
        return faults;
    }

    public long rnrDelayNs()
    {
        return rnrDelayNs;
    }

    public long connectTimeoutNs()
    {
        return connectTimeoutNs;
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public Availability availability()
    {
        return Availability.yes("soft: RDMA verbs in user space on loopback, over " +
            (fabric == null ? "TCP and UDP sockets" : "an in-memory fabric"));
    }

    /**
     * Opens a soft device on a loopback address; it starts its NIC thread.
     *
     * @throws IOException when the address is not loopback: soft runs on loopback only.
     */
    @Override
    public SoftVerbsContext open(final InetAddress localAddress) throws IOException
    {
        Addresses.checkLoopback(localAddress, "device address");
        return new SoftVerbsContext(this, localAddress);
    }

    @Override
    public String toString()
    {
        return "SoftVerbsProvider{" + (fabric == null ? "sockets" : "in-process") + ", mtu=" + mtu + ", faults=" +
            faults + "}";
    }
}
