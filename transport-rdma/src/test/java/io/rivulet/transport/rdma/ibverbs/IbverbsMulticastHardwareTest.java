package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.ud.MulticastHardwareSuite;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link MulticastHardwareSuite} through rdma-core (librivulet-verbs' RDMA CM and verbs). Skipped, with the reason,
 * without the ibverbs provider.
 *
 * <pre>
 * mvn -B -pl transport-rdma surefire:test -Dgroups=rdma-hardware -Dtest=IbverbsMulticastHardwareTest \
 *     -Drivulet.rdma.address=&lt;ip of the RDMA interface&gt;
 * </pre>
 */
@Tag("rdma-hardware")
class IbverbsMulticastHardwareTest extends MulticastHardwareSuite
{
    @Override
    protected VerbsProvider availableProvider()
    {
        final IbverbsProvider provider = new IbverbsProvider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "ibverbs unavailable: " + availability.reason());
        return provider;
    }
}
