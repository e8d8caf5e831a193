package io.rivulet.actors;

import io.rivulet.spi.Transport;
import io.rivulet.transport.rdma.RdmaTransport;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;

/**
 * The actor acceptance tests over the RDMA transport with the soft provider (RC over TCP sockets on
 * loopback, as between processes; no RDMA hardware needed).
 */
class RdmaRemoteActorTest extends RemoteActorSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(new SoftVerbsProvider());
    }
}
