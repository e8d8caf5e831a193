package io.rivulet.spi;

import java.io.IOException;

/**
 * The optional capability of a {@link TransportDriver} whose links can reach a peer's memory without its CPU
 * (RDMA). A driver that implements it registers the memory of exposed regions with the access the application
 * asked for, names an endpoint that peers open one-sided queue pairs to, and opens such paths to peers.
 * Drivers without it (TCP) still serve regions: the engine then emulates the operations with frames.
 *
 * <p>Threading: {@link #expose} from any thread (exposing is control plane); the rest on the conductor.
 */
public interface OneSidedTransport
{
    /** Access bit: peers may read ({@code REGION_INFO.access}). */
    int READ = 1;
    /** Access bit: peers may write. */
    int WRITE = 2;
    /** Access bit: peers may run compare-and-swap and fetch-and-add on aligned 8-byte words. */
    int ATOMIC = 4;

    /**
     * Allocates and registers memory for one exposed region with exactly the given remote access.
     *
     * @param length bytes, positive.
     * @param access a non-empty combination of {@link #READ}, {@link #WRITE}, {@link #ATOMIC}.
     * @return the registered memory; closing it deregisters it so that its remote key stops working.
     * @throws IOException when the memory cannot be registered.
     */
    ExposedMemory expose(int length, int access) throws IOException;

    /** @return the longest READ or WRITE one operation on a path may carry; longer ones are split. */
    int maxOperationLength();

    /**
     * Conductor: where peers connected over this link should open one-sided paths to, listening lazily.
     *
     * @param link a link of this driver.
     * @return {@code host:port}, or null when this link cannot serve one-sided access.
     * @throws IOException when listening fails.
     */
    String oneSidedEndpoint(ReliableLink link) throws IOException;

    /**
     * Conductor: starts opening a one-sided path to a peer's endpoint, without blocking.
     *
     * @param link     the link to the same peer (messaging), whose driver this is.
     * @param endpoint the peer's {@link #oneSidedEndpoint}.
     * @return the path; it queues operations until it is connected.
     * @throws IOException when the attempt cannot start.
     */
    OneSidedPath openPath(ReliableLink link, String endpoint) throws IOException;
}
