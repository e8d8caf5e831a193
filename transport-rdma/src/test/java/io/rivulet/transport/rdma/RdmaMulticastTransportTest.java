package io.rivulet.transport.rdma;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.MulticastTransport;
import io.rivulet.tck.Await;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import io.rivulet.transport.rdma.ud.UdMulticastEndpoint;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static io.rivulet.transport.rdma.RdmaTestSupport.SETTINGS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The RDMA driver as a {@link MulticastTransport} on the soft provider: each multicast endpoint on a device context of
 * its own (its owner thread takes that context's joins), Q_Key RDMA_UDP_QKEY, datagrams between two nodes' endpoints
 * through a group, the soft provider's multicast timers, and everything released when the driver closes.
 */
class RdmaMulticastTransportTest
{
    @Test
    void shouldOpenMulticastEndpointsOnContextsOfTheirOwnThatReachEachOtherThroughAGroup() throws IOException
    {
        final SoftFabric fabric = new SoftFabric();
        final RdmaTransport transport = new RdmaTransport(new SoftVerbsProvider(fabric));
        final int[] received = new int[1];
        try (RdmaTransportDriver publisherNode = transport.open(SETTINGS);
            RdmaTransportDriver subscriberNode = transport.open(SETTINGS))
        {
            assertThat(publisherNode).isInstanceOf(MulticastTransport.class);
            final SoftVerbsContext nodeDevice = (SoftVerbsContext)publisherNode.verbsContext();
            final long nodeRegistrations = nodeDevice.registrations();
            final MulticastEndpoint publisher = publisherNode.openMulticastEndpoint(1024, 64, 16);
            final MulticastEndpoint subscriber = subscriberNode.openMulticastEndpoint(1024, 64, 16);
            assertThat(publisher.localAddress()).as("the UD queue pair carries RDMA CM's UDP Q_Key")
                .contains("/" + 0x01234567 + "/");
            assertThat(nodeDevice.registrations()).as("its regions are on a device context of its own")
                .isEqualTo(nodeRegistrations);
            final int group = publisher.joinGroup("239.5.5.5", false);
            final int joined = subscriber.joinGroup("239.5.5.5", true);
            final int source = subscriber.resolve(publisher.localAddress());
            final int[] named = new int[1];
            final DatagramEndpoint.DatagramHandler handler = (peer, buffer, offset, length) ->
            {
                received[0]++;
                named[0] += peer == source ? 1 : 0;
            };
            Await.until("both joins answered", () ->
            {
                publisher.poll(handler, 16);
                subscriber.poll(handler, 16);
                return publisher.groupState(group) == MulticastEndpoint.GROUP_JOINED &&
                    subscriber.groupState(joined) == MulticastEndpoint.GROUP_JOINED;
            });
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            for (int i = 0; i < 10; i++)
            {
                final int number = i;
                Await.until("room for datagram " + number, () ->
                {
                    publisher.poll(handler, 16);
                    return publisher.send(group, message, 0, 64);
                });
            }
            Await.until("10 datagrams through the group", () ->
            {
                subscriber.poll(handler, 16);
                return received[0] >= 10;
            });
            assertThat(named[0]).isEqualTo(10);
            assertThatThrownBy(() -> publisherNode.openMulticastEndpoint(1 << 20, 4, 4))
                .isInstanceOf(IOException.class).hasMessageContaining("do not fit the UD path MTU");
            assertThat(fabric.multicastGroupCount()).isEqualTo(1);
        }
        assertThat(fabric.multicastGroupCount()).as("closing the drivers closed their endpoints").isZero();
        assertThat(received[0]).isEqualTo(10);
    }

    @Test
    void shouldScaleTheMulticastTimersForTheSoftProviderAndKeepWhatTheUserSet() throws IOException
    {
        System.setProperty("rivulet.multicast.nakDelay", "7ms");
        try (RdmaTransportDriver driver = new RdmaTransport(new SoftVerbsProvider(new SoftFabric())).open(SETTINGS))
        {
            final MulticastSettings hardware = new MulticastSettings();
            assertThat(hardware.targetDelayNs()).isEqualTo(TimeUnit.MICROSECONDS.toNanos(200));
            final MulticastSettings soft = driver.defaultMulticastSettings(new MulticastSettings());
            assertThat(soft.targetDelayNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
            assertThat(soft.nakDelayNs()).as("set by property: kept").isEqualTo(TimeUnit.MILLISECONDS.toNanos(7));
            assertThat(soft.nakRetryNs()).isGreaterThan(soft.repairLingerNs());
            assertThat(soft.statusIntervalNs()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
            assertThat(soft.receiverWindow()).as("sizes are not timing").isEqualTo(hardware.receiverWindow());
            assertThat(soft.timeoutNs()).isEqualTo(hardware.timeoutNs());
        }
        finally
        {
            System.clearProperty("rivulet.multicast.nakDelay");
        }
    }

    @Test
    void shouldRefuseAMulticastEndpointOnAClosedDriver() throws IOException
    {
        final RdmaTransportDriver driver = new RdmaTransport(new SoftVerbsProvider(new SoftFabric())).open(SETTINGS);
        final UdMulticastEndpoint endpoint = (UdMulticastEndpoint)driver.openMulticastEndpoint(256, 8, 8);
        driver.close();
        assertThatThrownBy(() -> endpoint.joinGroup("239.1.1.1", true)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> driver.openMulticastEndpoint(256, 8, 8)).isInstanceOf(IOException.class)
            .hasMessageContaining("closed");
    }
}
