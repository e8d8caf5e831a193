package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.UdAddress;

import java.net.InetSocketAddress;

/**
 * The route to a remote UD queue pair's device: its gid resolved to a socket address (UDP) or a fabric
 * inbox. Thread-safe; the cached route is touched by the NIC thread only.
 */
final class SoftAddressHandle implements AddressHandle
{
    private final SoftVerbsContext context;
    private final UdAddress destination;
    private final InetSocketAddress socketAddress;
    /** The group a multicast handle sends to, else null. */
    private final SoftMulticastGroup group;
    private Object route;
    private volatile boolean closed;

    SoftAddressHandle(final SoftVerbsContext context, final UdAddress destination, final InetSocketAddress address)
    {
        this.context = context;
        this.destination = destination;
        this.socketAddress = address;
        this.group = null;
    }

    /** A handle that sends to a multicast group of the in-memory fabric. */
    SoftAddressHandle(final SoftVerbsContext context, final UdAddress destination, final SoftMulticastGroup group)
    {
        this.context = context;
        this.destination = destination;
        this.socketAddress = null;
        this.group = group;
    }

    /** @return the group of a multicast handle, else null. */
    SoftMulticastGroup group()
    {
        return group;
    }

    @Override
    public UdAddress destination()
    {
        return destination;
    }

    SoftVerbsContext context()
    {
        return context;
    }

    InetSocketAddress socketAddress()
    {
        return socketAddress;
    }

    Object route()
    {
        return route;
    }

    void route(final Object route)
    {
        this.route = route;
    }

    boolean isClosed()
    {
        return closed;
    }

    @Override
    public void close()
    {
        closed = true;
    }

    @Override
    public String toString()
    {
        return "SoftAddressHandle{" + destination + "}";
    }
}
