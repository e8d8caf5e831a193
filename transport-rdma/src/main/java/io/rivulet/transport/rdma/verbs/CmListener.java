package io.rivulet.transport.rdma.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;

/** A listening RDMA CM id; polled, never blocking. */
public interface CmListener extends AutoCloseable
{
    /** @return the next connection request, or null when none is pending. */
    CmRequest poll() throws IOException;

    /** @return the bound address, with the real port when 0 was asked for. */
    InetSocketAddress localAddress();

    @Override
    void close();
}
