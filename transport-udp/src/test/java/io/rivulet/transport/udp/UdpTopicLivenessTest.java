package io.rivulet.transport.udp;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicLivenessSuite;
import io.rivulet.transport.tcp.TcpTransport;

/**
 * The topic liveness suite with connections over TCP and topic data as reliable datagrams over UDP on 127.0.0.1
 * (rivulet.datagrams=udp); control frames stay on the connection.
 */
class UdpTopicLivenessTest extends TopicLivenessSuite
{
    @Override
    protected Transport transport()
    {
        return new TcpTransport();
    }

    @Override
    protected Rivulet.Context livenessContext()
    {
        return UdpTopics.over(super.livenessContext());
    }
}
