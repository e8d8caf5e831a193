package io.rivulet.actors;

import io.rivulet.transport.rdma.ibverbs.IbverbsProvider;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The actor suite over the ibverbs provider on a real device. */
@Tag("rdma-hardware")
class IbverbsRemoteActorTest extends RdmaHardwareActorSuites
{
    @Override
    protected VerbsProvider provider()
    {
        return new IbverbsProvider();
    }

    @Nested
    class RemoteActors extends OnDeviceRemoteActors
    {
    }
}
