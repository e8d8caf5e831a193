package io.rivulet.spi;

import java.io.IOException;

/**
 * One node's instance of a transport. Every method is called by the node's conductor only (single
 * writer), so implementations need no locks; none of them may block, except that resolving a host
 * name in {@link #listen} or {@link #connect} may (control plane; IP literals never do).
 */
public interface TransportDriver extends AutoCloseable
{
    /**
     * Starts listening on an address without blocking.
     *
     * @param address {@code host:port} ({@code [v6]:port} for IPv6); port 0 picks a free port.
     * @return the listener, whose {@link LinkListener#localAddress()} tells the bound port.
     * @throws IOException when the address cannot be bound.
     */
    LinkListener listen(String address) throws IOException;

    /**
     * Starts connecting without blocking; {@link LinkConnector#poll()} completes it.
     *
     * @param address {@code host:port}.
     * @return the connection attempt.
     * @throws IOException when the attempt cannot start (unresolvable address...).
     */
    LinkConnector connect(String address) throws IOException;

    /**
     * Housekeeping, called on every conductor duty cycle before links are polled, such as polling a
     * selector for readiness.
     *
     * @param nowNs the cycle's clock.
     * @return work done, 0 when idle.
     */
    int doWork(long nowNs);

    /** Closes every listener and link this driver created. */
    @Override
    void close();
}
