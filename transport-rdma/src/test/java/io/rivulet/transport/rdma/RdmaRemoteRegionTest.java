package io.rivulet.transport.rdma;

import io.rivulet.region.RemoteRegionSuite;
import io.rivulet.spi.Transport;

/**
 * The remote region suite over the soft provider's in-process fabric: every operation is a one-sided verb on a
 * queue pair apart from the messaging link; the target's engine applies none of them and its handlers run zero
 * times (the suite asserts both through counters).
 */
class RdmaRemoteRegionTest extends RemoteRegionSuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(RdmaTestSupport.provider());
    }

    @Override
    protected boolean oneSided()
    {
        return true;
    }
}
