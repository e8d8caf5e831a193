package io.rivulet.actors;

import io.rivulet.spi.Transport;
import io.rivulet.transport.rdma.RdmaDevices;
import io.rivulet.transport.rdma.RdmaTransport;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.net.InetAddress;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The actor suite, unchanged, over a hardware RDMA provider on a real device (tag {@code rdma-hardware}; run with
 * {@code -Dgroups=rdma-hardware -Drivulet.rdma.address=<address of the RDMA interface>}). A subclass names the
 * provider and declares one {@code @Nested} class extending {@link OnDeviceRemoteActors}; its tests are skipped,
 * with the reason, when the provider or an RDMA address is not there.
 */
abstract class RdmaHardwareActorSuites
{
    private InetAddress address;

    /** @return the provider under test, new for each node. */
    protected abstract VerbsProvider provider();

    @BeforeEach
    void requireDevice() throws IOException
    {
        final VerbsProvider provider = provider();
        final VerbsProvider.Availability availability = provider.availability();
        assumeTrue(availability.available(), () -> provider.name() + " unavailable: " + availability.reason());
        final String configured = System.getProperty("rivulet.rdma.address");
        address = null != configured && !configured.isBlank() ? InetAddress.getByName(configured.strip()) :
            new RdmaDevices().rdmaInterfaceAddress().orElse(null);
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -Drivulet.rdma.address=<ip>");
    }

    protected abstract class OnDeviceRemoteActors extends RemoteActorSuite
    {
        @Override
        protected Transport transport()
        {
            return new RdmaTransport(provider()).localAddress(address);
        }

        @Override
        protected String bindAddress()
        {
            final String host = address.getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":0";
        }
    }
}
