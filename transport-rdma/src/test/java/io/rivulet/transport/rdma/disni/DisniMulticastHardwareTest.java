package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.jni.NativeLibraryTestSupport;
import io.rivulet.transport.rdma.ud.MulticastHardwareSuite;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link MulticastHardwareSuite} through DiSNI: DiSNI's protection domain, completion queues and polling, the UD
 * queue pair and address handles through librivulet-verbs on DiSNI's objects, and the fabric join through the
 * library's own RDMA CM on a UD id (DiSNI 2.1 cannot make one). Needs libdisni and librivulet-verbs (see
 * {@link DisniHardwareTest}); skipped with the reason otherwise.
 */
@Tag("rdma-hardware")
class DisniMulticastHardwareTest extends MulticastHardwareSuite
{
    @Override
    protected VerbsProvider availableProvider()
    {
        final DisniVerbsProvider provider = new DisniVerbsProvider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "disni unavailable: " + availability.reason());
        NativeLibraryTestSupport.requireLibrary();
        return provider;
    }
}
