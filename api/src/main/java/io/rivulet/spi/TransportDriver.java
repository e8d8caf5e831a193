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

    /**
     * Whether the engine may sleep in {@link #awaitWork} when idle instead of parking: the driver can wait until one
     * of its links or listeners is ready and be woken by {@link #wakeUp()} (a selector). Asked once, at start.
     *
     * @return false unless the driver implements both.
     */
    default boolean canAwaitWork()
    {
        return false;
    }

    /**
     * Conductor only: blocks until a link, listener or connector is ready (flagged as {@link #doWork} flags it),
     * {@link #wakeUp()} is called, or {@code timeoutMs} passes. A wake-up asked for before the call ends it at once.
     *
     * @param timeoutMs at most this long, at least 1.
     * @return channels found ready.
     * @throws UnsupportedOperationException unless {@link #canAwaitWork()}.
     */
    default int awaitWork(final long timeoutMs)
    {
        throw new UnsupportedOperationException("this transport cannot wait for work");
    }

    /**
     * Where datagram endpoints beside this driver put their sockets so that {@link #awaitWork} also ends when a datagram
     * arrives ({@link DatagramEndpoint#wakeWhenReadable}).
     *
     * @return null unless {@link #canAwaitWork()} and the driver's selector can watch foreign channels.
     */
    default ReadinessWatch readinessWatch()
    {
        return null;
    }

    /** Any thread: ends the conductor's current {@link #awaitWork}, or its next one at once. */
    default void wakeUp()
    {
    }

    /** Closes every listener and link this driver created. */
    @Override
    void close();
}
