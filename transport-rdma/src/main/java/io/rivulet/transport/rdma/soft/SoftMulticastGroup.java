package io.rivulet.transport.rdma.soft;

import java.net.InetAddress;

/**
 * A multicast group on an in-memory {@link SoftFabric}: the devices whose queue pairs are attached to it (their
 * datagram ports), and the memberships that hold it. A send to the group writes one copy into each such device's inbox;
 * each receiving device applies its own faults and bottleneck to its copy and hands it to its attached queue pairs.
 *
 * <p>Thread-safe: membership changes are made under the fabric's lock; senders read {@link #members()}, an array
 * replaced whole, without one.
 */
final class SoftMulticastGroup
{
    private static final MemoryDatagramPort[] NONE = new MemoryDatagramPort[0];

    private final int id;
    private final InetAddress address;
    private volatile MemoryDatagramPort[] members = NONE;
    /** Under the fabric's lock. */
    int joins;

    SoftMulticastGroup(final int id, final InetAddress address)
    {
        this.id = id;
        this.address = address;
    }

    /** @return the fabric's number for the group, carried in its datagrams. */
    int id()
    {
        return id;
    }

    InetAddress address()
    {
        return address;
    }

    /** @return the devices attached now; never modified in place. */
    MemoryDatagramPort[] members()
    {
        return members;
    }

    /** Under the fabric's lock. */
    void add(final MemoryDatagramPort port)
    {
        final MemoryDatagramPort[] current = members;
        for (final MemoryDatagramPort member : current)
        {
            if (member == port)
            {
                return;
            }
        }
        final MemoryDatagramPort[] grown = java.util.Arrays.copyOf(current, current.length + 1);
        grown[current.length] = port;
        members = grown;
    }

    /** Under the fabric's lock. */
    void remove(final MemoryDatagramPort port)
    {
        final MemoryDatagramPort[] current = members;
        int kept = 0;
        final MemoryDatagramPort[] shrunk = new MemoryDatagramPort[current.length];
        for (final MemoryDatagramPort member : current)
        {
            if (member != port)
            {
                shrunk[kept++] = member;
            }
        }
        members = kept == 0 ? NONE : java.util.Arrays.copyOf(shrunk, kept);
    }

    @Override
    public String toString()
    {
        return "SoftMulticastGroup{" + address.getHostAddress() + ", devices=" + members.length + ", joins=" + joins + "}";
    }
}
