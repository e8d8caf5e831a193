package io.rivulet.transport.rdma.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * An open device ({@code ibv_context}) with its connection manager ({@code rdma_cm}). Resources
 * created here are freed by their own {@code close}; closing the context frees what is left.
 *
 * <p>Not thread-safe unless the provider says so: the engine uses one context from its conductor.
 */
public interface VerbsContext extends AutoCloseable
{
    /** @return the provider's name. */
    String providerName();

    /** @return the device's name ("mlx5_0", "soft0"). */
    String deviceName();

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocateProtectionDomain() throws IOException;

    /**
     * {@code ibv_create_cq}.
     *
     * @param entries the most completions it holds; overflowing it is an error on hardware.
     */
    CompletionQueue createCompletionQueue(int entries) throws IOException;

    /**
     * Listens for RC connection requests ({@code rdma_bind_addr} + {@code rdma_listen}).
     *
     * @param address local address; port 0 picks a free port.
     * @param backlog pending requests kept.
     */
    CmListener listen(InetSocketAddress address, int backlog) throws IOException;

    /**
     * Starts an RC connection ({@code rdma_resolve_addr}, {@code rdma_resolve_route},
     * {@code rdma_create_qp}, {@code rdma_connect}); {@link CmConnection#poll()} completes it.
     *
     * @param remote the listener's address.
     * @param config the queue pair to create for it.
     */
    CmConnection connect(InetSocketAddress remote, QueuePairConfig config) throws IOException;

    /**
     * Creates a UD queue pair, ready to send and receive (RTS), with no connection manager.
     *
     * @param config its resources; {@code qkey} guards who may send to it.
     */
    QueuePair createUdQueuePair(QueuePairConfig config) throws IOException;

    /**
     * @return the largest UD payload the device's port carries (its active path MTU, without the 40-byte GRH):
     *         4096 on InfiniBand and on RoCE with jumbo frames, 1024 on RoCE over 1500-byte Ethernet.
     * @throws IOException when the provider cannot tell (for example DiSNI without the JNI extension).
     */
    int udMtu() throws IOException;

    /**
     * {@code ibv_create_ah}: the route to a remote UD queue pair.
     *
     * @param pd     the protection domain of the sending queue pair.
     * @param remote the remote queue pair's address.
     */
    AddressHandle createAddressHandle(ProtectionDomain pd, UdAddress remote) throws IOException;

    @Override
    void close();
}
