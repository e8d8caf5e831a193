package io.rivulet.spi;

import java.io.IOException;

/**
 * A kind of network transport (TCP, RDMA, ...): what applications choose in
 * {@code Rivulet.Context#transport}. Stateless; {@link #open(TransportSettings)} creates the per-node
 * {@link TransportDriver} that owns sockets or queue pairs.
 *
 * <p>Implementations are found by name through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.rivulet.spi.Transport}) so that the api module does not depend on them.
 */
public interface Transport
{
    /**
     * @return the short name users give in {@code rivulet.transport} ("tcp", "rdma").
     */
    String name();

    /**
     * Opens this transport for one node.
     *
     * @param settings sizes and limits the engine needs the transport to honour.
     * @return a driver owned by the node's engine thread.
     * @throws IOException when the transport cannot start (for example no device or library).
     */
    TransportDriver open(TransportSettings settings) throws IOException;
}
