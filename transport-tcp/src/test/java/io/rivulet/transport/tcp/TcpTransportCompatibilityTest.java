package io.rivulet.transport.tcp;

import io.rivulet.spi.Transport;
import io.rivulet.tck.TransportCompatibilitySuite;

/** The transport compatibility suite over TCP on 127.0.0.1. */
class TcpTransportCompatibilityTest extends TransportCompatibilitySuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }

    @Override
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }
}
