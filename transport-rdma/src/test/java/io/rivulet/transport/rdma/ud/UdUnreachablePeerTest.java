package io.rivulet.transport.rdma.ud;

import io.rivulet.protocol.datagram.DatagramChannel;
import io.rivulet.protocol.datagram.DatagramChannels;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer whose address handle cannot be made (on hardware: a RoCE neighbour that never answers), found out after
 * {@code resolve} returned: what reaches the node is its connection closed as lost, through the channel's liveness
 * check, and nothing thrown into the conductor's duty cycle. Stepped with simulated time over the soft provider.
 */
class UdUnreachablePeerTest
{
    private static final long LIVENESS_NS = TimeUnit.MILLISECONDS.toNanos(200);

    private final SoftVerbsProvider provider = new SoftVerbsProvider(new SoftFabric());
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ArrayDeque<Runnable> addressHandleTasks = new ArrayDeque<>();

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
    }

    @Test
    void shouldCloseTheConnectionAsLostWhenThePeersAddressHandleFails() throws IOException
    {
        final SoftVerbsContext device = provider.open(InetAddress.getLoopbackAddress());
        resources.add(device);
        final FaultyVerbsContext faulty = new FaultyVerbsContext(device);
        final DatagramSettings settings = new DatagramSettings().maxPayload(1000).validate();
        final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(
            faulty, settings.maxDatagramLength(), 128, 64, 0x5D5D, addressHandleTasks::add);
        final DatagramChannels plane = new DatagramChannels(settings, endpoint, null, 4096);
        resources.add(plane);
        final SoftVerbsContext peerDevice = provider.open(InetAddress.getLoopbackAddress());
        resources.add(peerDevice);
        final UdDatagramEndpoint peer = new UdDatagramEndpoint(peerDevice, settings.maxDatagramLength(), 8, 8, 0x5D5D);
        resources.add(peer);

        final Sink sink = new Sink();
        final DatagramChannel channel = plane.newChannel(4096, "peer", 1, LIVENESS_NS, sink);
        faulty.failAddressHandles = true;
        assertThat(plane.onPeerOffer(channel, 77, 0, settings.maxPayload(), settings.window(), peer.localAddress()))
            .as("the offer is taken: the address handle is still being made").isNull();
        assertThat(channel.isOpen()).isTrue();
        assertThat(addressHandleTasks).hasSize(1);
        addressHandleTasks.poll().run();

        final UnsafeBuffer frame = new UnsafeBuffer(new byte[300]);
        assertThat(channel.offer(frame, 0, 300)).isTrue();
        long nowNs = 1;
        for (int step = 0; step < 100 && sink.lost.isEmpty(); step++)
        {
            plane.doWork(nowNs); // never throws: datagrams to the peer are lost, not refused
            nowNs += TimeUnit.MILLISECONDS.toNanos(10);
        }
        assertThat(sink.lost).hasSize(1);
        assertThat(sink.lost.get(0)).contains("no datagram acknowledged by peer");
        assertThat(sink.violations).isEmpty();
        assertThat(endpoint.unreachableDatagrams()).isPositive();
        assertThat(endpoint.datagramsSent()).isZero();
    }

    @Test
    void shouldRefuseTheOfferWhenTheAddressHandleFailsBeforeResolveReturns() throws IOException
    {
        final SoftVerbsContext device = provider.open(InetAddress.getLoopbackAddress());
        resources.add(device);
        final FaultyVerbsContext faulty = new FaultyVerbsContext(device);
        final DatagramSettings settings = new DatagramSettings().maxPayload(1000).validate();
        final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(faulty, settings.maxDatagramLength(), 128, 64,
            0x5D5D);
        final DatagramChannels plane = new DatagramChannels(settings, endpoint, null, 4096);
        resources.add(plane);

        final DatagramChannel channel = plane.newChannel(4096, "peer", 1, LIVENESS_NS, new Sink());
        faulty.failAddressHandles = true;
        assertThat(plane.onPeerOffer(channel, 77, 0, settings.maxPayload(), settings.window(),
            endpoint.localAddress())).contains("cannot reach the datagram endpoint").contains("No route to host");
        assertThat(plane.onPeerOffer(channel, 77, 0, settings.maxPayload(), settings.window(), "127.0.0.1:1/2/3/100"))
            .contains("bad address").contains("MTU 100");
    }

    /** What a connection would be told. */
    private static final class Sink implements DatagramChannel.FrameSink
    {
        final List<String> lost = new ArrayList<>();
        final List<String> violations = new ArrayList<>();

        @Override
        public void onDatagramFrame(final DirectBuffer buffer, final int offset, final int length)
        {
        }

        @Override
        public void onDatagramViolation(final String reason)
        {
            violations.add(reason);
        }

        @Override
        public void onDatagramPathLost(final String reason)
        {
            lost.add(reason);
        }
    }
}
