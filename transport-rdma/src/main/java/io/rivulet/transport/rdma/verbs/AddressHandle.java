package io.rivulet.transport.rdma.verbs;

/** {@code ibv_ah}: a route to a remote UD queue pair's port, reused for every send to it. */
public interface AddressHandle extends AutoCloseable
{
    /** @return the address it routes to. */
    UdAddress destination();

    @Override
    void close();
}
