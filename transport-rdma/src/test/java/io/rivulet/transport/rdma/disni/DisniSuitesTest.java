package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.RdmaHardwareSuites;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * Every RDMA suite over the disni provider on a real device (see {@link RdmaHardwareSuites}); needs libdisni on
 * {@code java.library.path}.
 */
@Tag("rdma-hardware")
class DisniSuitesTest extends RdmaHardwareSuites
{
    @Override
    protected VerbsProvider provider()
    {
        return new DisniVerbsProvider();
    }

    @Nested
    class TransportCompatibility extends OnDeviceTransportCompatibility
    {
    }

    @Nested
    class TransportCompatibilityDedicated extends OnDeviceTransportCompatibilityDedicated
    {
    }

    @Nested
    class TopicFanOut extends OnDeviceTopicFanOut
    {
    }

    @Nested
    class TopicLiveness extends OnDeviceTopicLiveness
    {
    }

    @Nested
    class TopicSlowConsumer extends OnDeviceTopicSlowConsumer
    {
    }

    @Nested
    class UdTopicFanOut extends OnDeviceUdTopicFanOut
    {
    }

    @Nested
    class MulticastTopicFanOut extends OnDeviceMulticastTopicFanOut
    {
    }

    @Nested
    class UdTopicLiveness extends OnDeviceUdTopicLiveness
    {
    }

    @Nested
    class UdTopicSlowConsumer extends OnDeviceUdTopicSlowConsumer
    {
    }

    @Nested
    class RemoteRegion extends OnDeviceRemoteRegion
    {
    }

    @Nested
    class RegistrationCount extends OnDeviceRegistrationCount
    {
    }

    @Nested
    class TwoProcesses extends OnDeviceTwoProcesses
    {
    }
}
