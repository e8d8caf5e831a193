package io.rivulet.transport.udp;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicSlowConsumerSuite;
import io.rivulet.transport.tcp.TcpTransport;

/**
 * The topic slow-consumer suite with connections over TCP and topic data as reliable datagrams over UDP on 127.0.0.1
 * (rivulet.datagrams=udp); control frames stay on the connection.
 */
class UdpTopicSlowConsumerTest extends TopicSlowConsumerSuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }

    @Override
    protected Rivulet.Context context()
    {
        return UdpTopics.over(super.context());
    }
}
