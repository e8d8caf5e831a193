package io.rivulet.transport.tcp;

import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicLivenessSuite;

/** The topic liveness suite over TCP on 127.0.0.1. */
class TopicLivenessTest extends TopicLivenessSuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }
}
