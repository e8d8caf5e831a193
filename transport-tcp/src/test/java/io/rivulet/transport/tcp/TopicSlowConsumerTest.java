package io.rivulet.transport.tcp;

import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicSlowConsumerSuite;

/** The topic slow-consumer suite over TCP on 127.0.0.1. */
class TopicSlowConsumerTest extends TopicSlowConsumerSuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }
}
