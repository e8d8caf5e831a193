package io.rivulet.transport.rdma;

import io.rivulet.spi.Transport;
import io.rivulet.tck.TransportCompatibilitySuite;

/**
 * The transport compatibility suite over RDMA with the soft provider's socket mode (RC over TCP, as
 * between processes), on 127.0.0.1.
 */
class RdmaSoftSocketTransportCompatibilityTest extends TransportCompatibilitySuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(RdmaTestSupport.socketProvider());
    }

    @Override
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }
}
