package io.rivulet.transport.rdma;

import io.rivulet.spi.Transport;
import io.rivulet.tck.TransportCompatibilitySuite;

/** The transport compatibility suite over RDMA with the soft provider's in-process fabric, on 127.0.0.1. */
class RdmaSoftTransportCompatibilityTest extends TransportCompatibilitySuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(RdmaTestSupport.provider());
    }

    @Override
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }
}
