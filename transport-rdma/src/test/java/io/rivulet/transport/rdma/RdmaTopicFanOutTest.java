package io.rivulet.transport.rdma;

import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicFanOutSuite;

/** The topic fan-out suite over RDMA RC links with the soft provider (in-process fabric). */
class RdmaTopicFanOutTest extends TopicFanOutSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(RdmaTestSupport.provider());
    }
}
