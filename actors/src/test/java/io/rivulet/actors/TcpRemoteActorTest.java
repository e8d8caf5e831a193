package io.rivulet.actors;

import io.rivulet.Transports;
import io.rivulet.spi.Transport;

/** The actor acceptance tests over TCP. */
class TcpRemoteActorTest extends RemoteActorSuite
{
    @Override
    protected Transport transport()
    {
        return Transports.tcp();
    }
}
