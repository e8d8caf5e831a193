package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicFanOutSuite;

/**
 * The topic fan-out suite with every topic sent to a UD multicast group of the soft provider's fabric (every node
 * publishes to it and takes from it), with seeded loss, duplication and reordering on each device; subscribing,
 * joins and snapshots stay on the RC connections.
 */
class RdmaMulticastTopicFanOutTest extends TopicFanOutSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(UdTopics.provider());
    }

    @Override
    protected Rivulet.Context context()
    {
        return UdTopics.overMulticast(super.context());
    }
}
