package io.rivulet.transport.rdma.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;

/** An incoming RC connection request (RDMA_CM_EVENT_CONNECT_REQUEST). */
public interface CmRequest
{
    InetSocketAddress remoteAddress();

    /**
     * Creates the queue pair and accepts ({@code rdma_create_qp} + {@code rdma_accept}); post receives
     * on it before the peer can send.
     *
     * @return the connection, established when {@link CmConnection#poll()} returns the queue pair.
     */
    CmConnection accept(QueuePairConfig config) throws IOException;

    /** {@code rdma_reject}. */
    void reject();
}
