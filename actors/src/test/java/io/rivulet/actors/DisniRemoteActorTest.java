package io.rivulet.actors;

import io.rivulet.transport.rdma.disni.DisniVerbsProvider;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The actor suite over the disni provider on a real device; needs libdisni on {@code java.library.path}. */
@Tag("rdma-hardware")
class DisniRemoteActorTest extends RdmaHardwareActorSuites
{
    @Override
    protected VerbsProvider provider()
    {
        return new DisniVerbsProvider();
    }

    @Nested
    class RemoteActors extends OnDeviceRemoteActors
    {
    }
}
