package io.rivulet.transport.rdma;

import io.rivulet.spi.Transport;
import io.rivulet.topic.TopicLivenessSuite;

/** The topic liveness suite over RDMA RC links with the soft provider (in-process fabric). */
class RdmaTopicLivenessTest extends TopicLivenessSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(RdmaTestSupport.provider());
    }
}
