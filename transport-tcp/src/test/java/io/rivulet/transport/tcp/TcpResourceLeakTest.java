package io.rivulet.transport.tcp;

import io.rivulet.spi.Transport;
import io.rivulet.tck.ResourceLeakSuite;

/** The leak suite over TCP on loopback. */
class TcpResourceLeakTest extends ResourceLeakSuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }
}
