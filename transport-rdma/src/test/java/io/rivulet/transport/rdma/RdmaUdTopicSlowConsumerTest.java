package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicSlowConsumerSuite;

/** The topic slow-consumer suite with topic data as reliable datagrams over soft UD queue pairs, with faults. */
class RdmaUdTopicSlowConsumerTest extends TopicSlowConsumerSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(UdTopics.provider());
    }

    @Override
    protected Rivulet.Context context()
    {
        return UdTopics.over(super.context());
    }
}
