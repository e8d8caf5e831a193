package io.rivulet.spi;

import java.nio.channels.SelectableChannel;

/**
 * Where a datagram endpoint puts its sockets so that an engine sleeping in its transport's selector
 * ({@link TransportDriver#awaitWork}) wakes when a datagram arrives, as it does for the links' bytes. Without it a node
 * with UDP datagrams cannot sleep in the selector: a datagram would wait for the sleep's timeout.
 *
 * <p>Watching only wakes the sleep: the endpoint still reads its sockets in its own poll. A watched channel stays the
 * endpoint's: closing it ends the watch, and the driver never closes it.
 */
public interface ReadinessWatch
{
    /**
     * The engine's thread (or the node's start, before it runs): wake the engine's sleep whenever {@code channel} is
     * readable, from now until it closes.
     *
     * @param channel a non-blocking channel the endpoint reads.
     * @throws java.io.UncheckedIOException when the selector refuses it (closed).
     */
    void watch(SelectableChannel channel);
}
