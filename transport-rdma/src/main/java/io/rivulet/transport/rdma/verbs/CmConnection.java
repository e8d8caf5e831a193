package io.rivulet.transport.rdma.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;

/** An RC connection being set up or established; polled, never blocking. */
public interface CmConnection extends AutoCloseable
{
    /**
     * @return the queue pair once ESTABLISHED, null before.
     * @throws IOException when the attempt failed (rejected, unreachable, route error, timeout).
     */
    QueuePair poll() throws IOException;

    /**
     * @return the queue pair, usable for posting receives before the connection is established.
     */
    QueuePair queuePair();

    /**
     * @return true once the peer disconnected (RDMA_CM_EVENT_DISCONNECTED) or the connection failed. Reads state
     *         only: any thread may call it; events are taken by the context's owner thread
     *         ({@link VerbsContext#pollConnectionEvents()}).
     */
    boolean isDisconnected();

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /** {@code rdma_disconnect} and free the queue pair and id. Idempotent. */
    @Override
    void close();
}
