package io.rivulet.transport.udp;

import io.rivulet.protocol.datagram.DatagramChannel;
import io.rivulet.protocol.datagram.DatagramChannels;
import io.rivulet.protocol.datagram.DatagramHeader;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.tck.TestTime;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer whose endpoint is bound to every interface offers {@code 0.0.0.0:port} over its connection: the datagram
 * plane must send to that port at the host the connection came from, not at this host. On loopback the "other host"
 * is 127.0.0.2 (Linux answers all of 127/8), where a socket bound to that address alone stands for the peer.
 */
class UdpWildcardOfferTest
{
    private static final long LIVENESS_NS = 5_000_000_000L;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
    }

    @Test
    void shouldSendToAWildcardOfferAtTheConnectionsRemoteHost() throws IOException
    {
        final java.nio.channels.DatagramChannel peer = java.nio.channels.DatagramChannel.open(StandardProtocolFamily.INET);
        resources.add(peer);
        peer.bind(new InetSocketAddress("127.0.0.2", 0));
        peer.configureBlocking(false);
        final int peerPort = ((InetSocketAddress)peer.getLocalAddress()).getPort();

        final DatagramSettings settings = new DatagramSettings().maxPayload(1000).validate();
        final UdpEndpoint endpoint = new UdpEndpoint(new UdpSettings().bindAddress("0.0.0.0:0").validate(),
            settings.maxDatagramLength());
        final DatagramChannels plane = new DatagramChannels(settings, endpoint, null, 4096);
        resources.add(plane);
        final DatagramChannel channel = plane.newChannel(4096, "127.0.0.2:45000", 1, LIVENESS_NS, new NoFrames());

        final int sessionId = 0x5E55;
        assertThat(plane.onPeerOffer(channel, sessionId, 0, settings.maxPayload(), settings.window(),
            "0.0.0.0:" + peerPort)).as("the wildcard offer is taken").isNull();
        assertThat(channel.isOpen()).isTrue();
        assertThat(channel.offer(new UnsafeBuffer(new byte[100]), 0, 100)).isTrue();

        final ByteBuffer received = ByteBuffer.allocate(2048).order(ByteOrder.LITTLE_ENDIAN);
        SocketAddress source = null;
        long nowNs = 1;
        final long deadlineNs = System.nanoTime() + TestTime.seconds(10).toNanos();
        for (int step = 0; step < 100_000 && null == source && System.nanoTime() < deadlineNs; step++)
        {
            plane.doWork(nowNs);
            nowNs += 1_000_000;
            source = peer.receive(received);
            if (null == source)
            {
                Thread.onSpinWait();
            }
        }

        assertThat(source).as("a DATA datagram reached the peer at 127.0.0.2:" + peerPort + ", not this host")
            .isNotNull();
        assertThat(received.get(DatagramHeader.TYPE_OFFSET) & 0xFF).isEqualTo(DatagramHeader.TYPE_DATA);
        assertThat(received.getInt(DatagramHeader.SESSION_OFFSET)).as("on the session the peer offered")
            .isEqualTo(sessionId);
    }

    /** The test only looks at what leaves; nothing comes back. */
    private static final class NoFrames implements DatagramChannel.FrameSink
    {
        @Override
        public void onDatagramFrame(final DirectBuffer buffer, final int offset, final int length)
        {
        }

        @Override
        public void onDatagramViolation(final String reason)
        {
            throw new AssertionError(reason);
        }

        @Override
        public void onDatagramPathLost(final String reason)
        {
            throw new AssertionError(reason);
        }
    }
}
