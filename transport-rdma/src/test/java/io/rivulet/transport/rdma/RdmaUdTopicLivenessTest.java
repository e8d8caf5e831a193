package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicLivenessSuite;

/** The topic liveness suite with topic data as reliable datagrams over soft UD queue pairs, with faults. */
class RdmaUdTopicLivenessTest extends TopicLivenessSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(UdTopics.provider());
    }

    @Override
    protected Rivulet.Context livenessContext()
    {
        return UdTopics.over(super.livenessContext());
    }
}
