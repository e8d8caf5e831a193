package io.rivulet.transport.rdma;

import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicSlowConsumerSuite;

/** The topic slow-consumer suite over RDMA RC links with the soft provider (in-process fabric). */
class RdmaTopicSlowConsumerTest extends TopicSlowConsumerSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(RdmaTestSupport.provider());
    }
}
