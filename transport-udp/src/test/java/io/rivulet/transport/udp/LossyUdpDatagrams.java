package io.rivulet.transport.udp;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.MulticastTransport;
import io.rivulet.spi.TransportSettings;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code rivulet.datagrams=udp} for one node of a test, on loopback with groups on {@code lo} (inside a network
 * namespace), keeping the endpoints the node opens to read their counters: the per-path endpoint as it is, each
 * multicast endpoint as a {@link LossyMulticastEndpoint} that drops {@code loss} of what it receives and sends, seeded
 * by {@code seed} and the endpoint's number, so that every node loses on its own.
 *
 * <p>Thread-safe: the node opens endpoints on its conductor and sender threads; the lists are concurrent.
 */
final class LossyUdpDatagrams implements DatagramProvider
{
    private final UdpDatagrams udp = new UdpDatagrams(new UdpSettings().bindAddress("127.0.0.1:0").multicastInterface("lo"));
    private final double loss;
    private final long seed;
    final List<UdpEndpoint> perPath = new CopyOnWriteArrayList<>();
    final List<LossyMulticastEndpoint> multicast = new CopyOnWriteArrayList<>();

    /**
     * @param loss share of multicast datagrams dropped each way at this node, 0 for none.
     * @param seed of the node's losses.
     */
    LossyUdpDatagrams(final double loss, final long seed)
    {
        this.loss = loss;
        this.seed = seed;
    }

    @Override
    public String name()
    {
        return udp.name();
    }

    @Override
    public OpenDatagrams open(final TransportSettings settings)
    {
        return new Open(udp.open(settings));
    }

    /** @return the node's only multicast endpoint (a publisher's, or a subscriber's). */
    LossyMulticastEndpoint onlyMulticast()
    {
        if (multicast.size() != 1)
        {
            throw new AssertionError("expected one multicast endpoint, the node opened " + multicast);
        }
        return multicast.get(0);
    }

    /** @return the node's only per-path endpoint. */
    UdpEndpoint onlyPerPath()
    {
        if (perPath.size() != 1)
        {
            throw new AssertionError("expected one per-path endpoint, the node opened " + perPath);
        }
        return perPath.get(0);
    }

    private final class Open implements OpenDatagrams, MulticastTransport
    {
        private final UdpDatagramTransport transport;

        Open(final UdpDatagramTransport transport)
        {
            this.transport = transport;
        }

        @Override
        public DatagramEndpoint openDatagramEndpoint(final int maxDatagramLength, final int receiveSlots,
            final int sendSlots) throws IOException
        {
            final UdpEndpoint endpoint = (UdpEndpoint)transport.openDatagramEndpoint(maxDatagramLength, receiveSlots,
                sendSlots);
            perPath.add(endpoint);
            return endpoint;
        }

        @Override
        public MulticastEndpoint openMulticastEndpoint(final int maxDatagramLength, final int receiveSlots,
            final int sendSlots) throws IOException
        {
            final UdpEndpoint endpoint = (UdpEndpoint)transport.openMulticastEndpoint(maxDatagramLength, receiveSlots,
                sendSlots);
            final LossyMulticastEndpoint lossy = new LossyMulticastEndpoint(endpoint, loss,
                seed * 31 + multicast.size());
            multicast.add(lossy);
            return lossy;
        }

        @Override
        public DatagramSettings defaultDatagramSettings(final DatagramSettings defaults)
        {
            return transport.defaultDatagramSettings(defaults);
        }

        @Override
        public MulticastSettings defaultMulticastSettings(final MulticastSettings defaults)
        {
            return transport.defaultMulticastSettings(defaults);
        }

        @Override
        public void close()
        {
            transport.close();
        }
    }
}
