package io.rivulet.transport.tcp;

import io.rivulet.region.RemoteRegionSuite;
import io.rivulet.spi.Transport;

/** The remote region suite over TCP on 127.0.0.1: the target's engine emulates every operation. */
class TcpRemoteRegionTest extends RemoteRegionSuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }

    @Override
    protected boolean oneSided()
    {
        return false;
    }
}
