package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicFanOutSuite;

/**
 * The topic fan-out suite with topic data as reliable datagrams over the soft provider's UD queue pairs
 * (one per node), with seeded loss, duplication and reordering; control frames stay on the RC connection.
 */
class RdmaUdTopicFanOutTest extends TopicFanOutSuite
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
