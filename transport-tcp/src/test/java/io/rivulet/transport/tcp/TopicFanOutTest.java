package io.rivulet.transport.tcp;

import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicFanOutSuite;

/** The topic fan-out suite over TCP on 127.0.0.1. */
class TopicFanOutTest extends TopicFanOutSuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }
}
