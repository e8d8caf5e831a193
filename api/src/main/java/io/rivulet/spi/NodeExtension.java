package io.rivulet.spi;

/**
 * A protocol layer of a node that every connection carries: it claims frame types and gives each new connection
 * its {@link ConnectionExtension}. The node runs its extensions in the order they were registered, in the
 * conductor's duty cycle, and closes them with the node.
 *
 * <p>Frame types are claimed by one extension only, and never the core's (SETUP, requests, PAYLOAD, ERROR,
 * KEEPALIVE, CLOSE): the node refuses to start otherwise.
 */
public interface NodeExtension
{
    /** @return the frame types this layer's connection extensions take, as {@code io.rivulet.codec.FrameType}s. */
    int[] frameTypes();

    /**
     * Conductor: a connection opened; attaches this layer to it.
     *
     * @param connection what the connection offers its extensions.
     * @return the connection's part of this layer.
     */
    ConnectionExtension attach(ConnectionServices connection);

    /**
     * Conductor: one duty cycle of the node-level part (shared state, counters, a shared endpoint).
     *
     * @return work done.
     */
    default int doWork(final long nowNs)
    {
        return 0;
    }

    /** Conductor: the node is closing, after its connections. */
    default void close()
    {
    }
}
