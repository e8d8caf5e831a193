package io.rivulet.spi;

import java.io.IOException;

/**
 * Where a node's datagrams go when they do not go through its connections' transport: a kind of datagram network
 * chosen on its own ({@code rivulet.datagrams}, e.g. {@code udp}), so that a node whose connections run over TCP can
 * carry topic data as reliable datagrams, per path or to multicast groups. By default a node uses its transport's
 * own datagrams, where it has them (RDMA's UD queue pairs).
 *
 * <p>Implementations are found by name through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.rivulet.spi.DatagramProvider}), as transports are.
 */
public interface DatagramProvider
{
    /** @return the short name users give in {@code rivulet.datagrams} ("udp"). */
    String name();

    /**
     * Opens this datagram network for one node.
     *
     * @param settings the node's sizes and counters.
     * @return the node's datagram transport, which may also be a {@link MulticastTransport}; the node closes it.
     * @throws IOException when it cannot start.
     */
    OpenDatagrams open(TransportSettings settings) throws IOException;

    /** A datagram transport the node owns: closed after every endpoint it opened. */
    interface OpenDatagrams extends DatagramTransport, AutoCloseable
    {
        @Override
        void close();
    }
}
