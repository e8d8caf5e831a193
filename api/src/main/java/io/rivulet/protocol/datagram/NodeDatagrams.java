package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.DatagramTransport;
import io.rivulet.spi.MulticastTransport;

/**
 * The datagram network a node's datagram layers open their endpoints on: its transport's own (RDMA's UD queue
 * pairs), or one chosen beside it ({@code rivulet.datagrams}, a {@link DatagramProvider} such as UDP). The layers that
 * use it (topic datagrams per path, topic multicast) each {@link #retain()} it and {@link #release()} it when they
 * close, after their endpoints; a network the node opened itself closes with the last release.
 *
 * <p>Threading: retained and released on the conductor (node start and close).
 */
public final class NodeDatagrams
{
    private final DatagramTransport transport;
    private final String name;
    private final AutoCloseable owned;
    private int users;
    private boolean closed;

    /**
     * @param transport the datagram transport.
     * @param name      what it is, for messages ("rdma", "udp").
     * @param owned     what closes with the last release (a provider's network), or null when the node's transport
     *                  owns it.
     */
    public NodeDatagrams(final DatagramTransport transport, final String name, final AutoCloseable owned)
    {
        this.transport = transport;
        this.name = name;
        this.owned = owned;
    }

    /** @return the transport endpoints are opened on. */
    public DatagramTransport transport()
    {
        return transport;
    }

    /** @return the multicast capability, or null when this network has none. */
    public MulticastTransport multicast()
    {
        return transport instanceof MulticastTransport multicast ? multicast : null;
    }

    /** @return the network's name, for messages. */
    public String name()
    {
        return name;
    }

    /** A layer starts using the network. */
    public void retain()
    {
        users++;
    }

    /** A layer stopped using the network, its endpoints closed; the last one closes a network the node opened. */
    public void release()
    {
        if (--users <= 0)
        {
            close();
        }
    }

    /** Closes a network the node opened, whoever uses it (node start failed). Idempotent. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (owned != null)
        {
            try
            {
                owned.close();
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException("closing the " + name + " datagram network failed: " + ex.getMessage(), ex);
            }
        }
    }

    @Override
    public String toString()
    {
        return "NodeDatagrams{" + name + ", users=" + users + "}";
    }
}
