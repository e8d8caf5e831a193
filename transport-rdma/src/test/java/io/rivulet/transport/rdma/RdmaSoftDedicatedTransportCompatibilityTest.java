package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.Transport;
import io.rivulet.tck.TransportCompatibilitySuite;

import java.util.List;

/**
 * The transport compatibility suite over RDMA (soft provider, in-process fabric) with the engine in
 * DEDICATED mode, where each link's sending half runs on the sender thread and its receiving half on the
 * conductor thread.
 */
class RdmaSoftDedicatedTransportCompatibilityTest extends TransportCompatibilitySuite
{
    @Override
    protected Transport transport()
    {
        return new RdmaTransport(RdmaTestSupport.provider());
    }

    @Override
    protected String bindAddress()
    {
        return "127.0.0.1:0";
    }

    @Override
    protected Rivulet.Context context(final List<Throwable> errors)
    {
        final Rivulet.Context context = super.context(errors);
        // The silent-peer test switches its node to INVOKER itself; every other node runs dedicated threads.
        return context.threadingMode(ThreadingMode.DEDICATED);
    }
}
