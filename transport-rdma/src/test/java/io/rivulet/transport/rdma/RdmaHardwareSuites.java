package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.region.RemoteRegionSuite;
import io.rivulet.spi.Transport;
import io.rivulet.tck.TransportCompatibilitySuite;
import io.rivulet.topic.TopicFanOutSuite;
import io.rivulet.topic.TopicLivenessSuite;
import io.rivulet.topic.TopicSlowConsumerSuite;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every RDMA suite that runs over the soft provider, unchanged, over a hardware provider on a real device: the
 * transport compatibility suite (SHARED and DEDICATED engines), the topic suites over RC links and over a UD queue
 * pair, the remote region suite (one-sided READ, WRITE, both atomics, permission, bounds and revoke failures), the
 * registration count, and two processes with the server killed by SIGKILL. The actor suite runs the same way in the
 * actors module. A subclass names the provider and declares one {@code @Nested} class per suite below (one line each:
 * JUnit then reports every suite under the provider's own class name); its tests are skipped, with the reason, when
 * the provider or an RDMA address is not there (see {@link HardwareRdma}).
 *
 * <p>Run with {@code -Dgroups=rdma-hardware -Drivulet.rdma.address=<address of the RDMA interface>}; on Soft-RoCE
 * with the README's command, which also scales timeouts ({@code rivulet.test.timeScale}).
 */
public abstract class RdmaHardwareSuites
{
    private InetAddress address;

    /** @return the provider under test, new for each node. */
    protected abstract VerbsProvider provider();

    @BeforeEach
    void requireDevice()
    {
        final VerbsProvider provider = provider();
        final VerbsProvider.Availability availability = provider.availability();
        assumeTrue(availability.available(), () -> provider.name() + " unavailable: " + availability.reason());
        address = HardwareRdma.address();
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -D" + HardwareRdma.ADDRESS_PROP +
            "=<ip>");
    }

    /** @return the transport over the provider, opening its device on the RDMA address. */
    protected RdmaTransport transport()
    {
        return new RdmaTransport(provider()).localAddress(address);
    }

    /** @return the RDMA address with an ephemeral port. */
    protected String bindAddress()
    {
        return RdmaServerMain.hostPort(address.getHostAddress());
    }

    protected abstract class OnDeviceTransportCompatibility extends TransportCompatibilitySuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }
    }

    /** Each link's sending half on the sender thread, its receiving half on the conductor. */
    protected abstract class OnDeviceTransportCompatibilityDedicated extends TransportCompatibilitySuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }

        @Override
        protected Rivulet.Context context(final List<Throwable> errors)
        {
            return super.context(errors).threadingMode(ThreadingMode.DEDICATED);
        }
    }

    protected abstract class OnDeviceTopicFanOut extends TopicFanOutSuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }
    }

    protected abstract class OnDeviceTopicLiveness extends TopicLivenessSuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }
    }

    protected abstract class OnDeviceTopicSlowConsumer extends TopicSlowConsumerSuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }
    }

    /** Topic data as reliable datagrams over each node's UD queue pair; control frames on the RC link. */
    protected abstract class OnDeviceUdTopicFanOut extends TopicFanOutSuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }

        @Override
        protected Rivulet.Context context()
        {
            return super.context().topicDatagrams(true);
        }
    }

    /**
     * Every topic sent once to a UD multicast group on the device, joined through RDMA CM; control on the RC link.
     * After each test the nodes' counters must show that the group carried the topics ({@link MulticastUse}): the
     * suite's own checks would pass over per-path datagrams too.
     */
    protected abstract class OnDeviceMulticastTopicFanOut extends TopicFanOutSuite
    {
        @TempDir
        Path counters;

        private final MulticastUse multicast = new MulticastUse(() -> counters);

        /** Runs before the suite's own {@code @AfterEach} closes the nodes. */
        @AfterEach
        void assertTheGroupCarriedTheTopics() throws IOException
        {
            multicast.assertGroupUsed();
        }

        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }

        @Override
        protected Rivulet.Context context()
        {
            return multicast.track(UdTopics.overMulticast(super.context()));
        }
    }

    protected abstract class OnDeviceUdTopicLiveness extends TopicLivenessSuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }

        @Override
        protected Rivulet.Context livenessContext()
        {
            return super.livenessContext().topicDatagrams(true);
        }
    }

    protected abstract class OnDeviceUdTopicSlowConsumer extends TopicSlowConsumerSuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }

        @Override
        protected Rivulet.Context context()
        {
            return super.context().topicDatagrams(true);
        }
    }

    protected abstract class OnDeviceRemoteRegion extends RemoteRegionSuite
    {
        @Override
        protected Transport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }

        @Override
        protected boolean oneSided()
        {
            return true;
        }
    }

    protected abstract class OnDeviceRegistrationCount extends RdmaRegistrationCountTest
    {
        @Override
        protected RdmaTransport transport()
        {
            return RdmaHardwareSuites.this.transport();
        }

        @Override
        protected String bindAddress()
        {
            return RdmaHardwareSuites.this.bindAddress();
        }
    }

    protected abstract class OnDeviceTwoProcesses extends RdmaTwoProcessTest
    {
        @Override
        protected String providerName()
        {
            return provider().name();
        }

        @Override
        protected String host()
        {
            return address.getHostAddress();
        }
    }
}
