package io.rivulet.transport.rdma.soft;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory fabric joining soft devices of one JVM: RC connection requests find listeners by
 * address and UD datagrams find devices by their gid, without sockets. Devices opened by a
 * {@link SoftVerbsProvider} built with a fabric only reach other devices on the same fabric, which
 * makes tests fast and deterministic and lets them run in parallel on separate fabrics.
 *
 * <p>Ports are simulated: port 0 asks the fabric for a free one, and the same port may be in use on
 * the operating system at the same time. Thread-safe.
 */
public final class SoftFabric
{
    private static final SoftFabric SHARED = new SoftFabric();
    private static final int FIRST_EPHEMERAL_PORT = 32768;
    private static final int LAST_EPHEMERAL_PORT = 65535;

    private final ConcurrentHashMap<InetSocketAddress, SoftListener> listeners = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetSocketAddress, MemoryDatagramPort> datagramPorts = new ConcurrentHashMap<>();
    private final AtomicInteger nextPort = new AtomicInteger(FIRST_EPHEMERAL_PORT);
    /** Multicast groups with a membership or an attached device; under {@code this}. */
    private final java.util.HashMap<InetAddress, SoftMulticastGroup> groups = new java.util.HashMap<>();
    private int nextGroupId = 1;
    private int maxMulticastGroups = Integer.MAX_VALUE;

    /** @return the fabric shared by the whole JVM. */
    public static SoftFabric shared()
    {
        return SHARED;
    }

    /** @return how many RC listeners are bound. */
    public int listenerCount()
    {
        return listeners.size();
    }

    InetSocketAddress bindListener(final InetSocketAddress address, final SoftListener listener) throws IOException
    {
        if (address.getPort() != 0)
        {
            if (listeners.putIfAbsent(address, listener) != null)
            {
                throw new IOException("address in use on the soft fabric: " + address);
            }
            return address;
        }
        for (int attempt = 0; attempt < LAST_EPHEMERAL_PORT - FIRST_EPHEMERAL_PORT; attempt++)
        {
            final InetSocketAddress candidate = new InetSocketAddress(address.getAddress(), ephemeralPort());
            if (listeners.putIfAbsent(candidate, listener) == null)
            {
                return candidate;
            }
        }
        throw new IOException("no free port on the soft fabric for " + address.getAddress());
    }

    void unbindListener(final InetSocketAddress address, final SoftListener listener)
    {
        listeners.remove(address, listener);
    }

    SoftListener listener(final InetSocketAddress address)
    {
        return listeners.get(address);
    }

    InetSocketAddress bindDatagramPort(final InetSocketAddress address, final MemoryDatagramPort port)
    {
        while (true)
        {
            final InetSocketAddress candidate = new InetSocketAddress(address.getAddress(), ephemeralPort());
            if (datagramPorts.putIfAbsent(candidate, port) == null)
            {
                return candidate;
            }
        }
    }

    void unbindDatagramPort(final InetSocketAddress address, final MemoryDatagramPort port)
    {
        datagramPorts.remove(address, port);
    }

    MemoryDatagramPort datagramPort(final InetSocketAddress address)
    {
        return datagramPorts.get(address);
    }

    /**
     * The most multicast groups the fabric holds at once, as a device's {@code max_mcast_grp}: a join of one more
     * fails (tests use it to see a join fail).
     *
     * @return this.
     */
    public synchronized SoftFabric maxMulticastGroups(final int maxMulticastGroups)
    {
        if (maxMulticastGroups < 0)
        {
            throw new IllegalArgumentException("maxMulticastGroups must not be negative: " + maxMulticastGroups);
        }
        this.maxMulticastGroups = maxMulticastGroups;
        return this;
    }

    /** @return the multicast groups that have a membership or an attached device now. */
    public synchronized int multicastGroupCount()
    {
        return groups.size();
    }

    /** A membership of {@code address}: the group, made on the first. */
    synchronized SoftMulticastGroup join(final InetAddress address) throws IOException
    {
        SoftMulticastGroup group = groups.get(address);
        if (null == group)
        {
            if (groups.size() >= maxMulticastGroups)
            {
                throw new IOException("the soft fabric holds at most " + maxMulticastGroups + " multicast group(s) " +
                    "(as a device's max_mcast_grp; ENOSPC)");
            }
            group = new SoftMulticastGroup(nextGroupId++, address);
            groups.put(address, group);
        }
        group.joins++;
        return group;
    }

    synchronized void leave(final SoftMulticastGroup group)
    {
        group.joins--;
        forgetIfUnused(group);
    }

    synchronized void attach(final SoftMulticastGroup group, final MemoryDatagramPort port)
    {
        group.add(port);
    }

    synchronized void detach(final SoftMulticastGroup group, final MemoryDatagramPort port)
    {
        group.remove(port);
        forgetIfUnused(group);
    }

    private void forgetIfUnused(final SoftMulticastGroup group)
    {
        if (group.joins <= 0 && group.members().length == 0)
        {
            groups.remove(group.address(), group);
        }
    }

    int ephemeralPort()
    {
        final int span = LAST_EPHEMERAL_PORT - FIRST_EPHEMERAL_PORT + 1;
        final int next = nextPort.getAndIncrement();
        return FIRST_EPHEMERAL_PORT + Math.floorMod(next - FIRST_EPHEMERAL_PORT, span);
    }

    @Override
    public String toString()
    {
        return "SoftFabric{listeners=" + listeners.size() + ", datagramPorts=" + datagramPorts.size() + "}";
    }
}
