package io.rivulet.transport.udp;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.MulticastTransport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One node's UDP datagram network ({@link UdpDatagrams#open}): every endpoint it opens has its own unicast socket,
 * bound as {@link UdpSettings#bindAddress()} says (port 0: each its own port), and carries datagrams of at most
 * {@link UdpSettings#maxDatagram()} bytes. {@link #close()} closes what the node left open.
 *
 * <p>Thread-safe: the per-path endpoint is opened on the conductor and multicast endpoints may be opened on the
 * thread that sends topic data; each endpoint then belongs to one thread.
 */
public final class UdpDatagramTransport implements DatagramProvider.OpenDatagrams, MulticastTransport
{
    private final UdpSettings settings;
    private final List<UdpEndpoint> endpoints = new ArrayList<>();
    private boolean closed;

    /**
     * @param settings validated; used as they are (not copied).
     */
    public UdpDatagramTransport(final UdpSettings settings)
    {
        this.settings = settings;
    }

    /** @return the settings endpoints are made with. */
    public UdpSettings settings()
    {
        return settings;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Receive and send slots are a UD queue pair's; a UDP socket's kernel buffers are
     * {@link UdpSettings#socketReceiveBufferLength()} and {@link UdpSettings#socketSendBufferLength()}.
     *
     * @throws IOException when datagrams that long exceed {@code rivulet.udp.maxDatagram}, or the socket cannot be
     *                     bound.
     */
    @Override
    public DatagramEndpoint openDatagramEndpoint(final int maxDatagramLength, final int receiveSlots, final int sendSlots)
        throws IOException
    {
        return open(maxDatagramLength, receiveSlots, sendSlots, "set rivulet.ud.maxPayload to at most " +
            (settings.maxDatagram() - DatagramSettings.DATA_HEADER_LENGTH) + " or raise rivulet.udp.maxDatagram");
    }

    /**
     * {@inheritDoc}
     *
     * <p>The endpoint carries {@code rivulet.udp.maxDatagram} bytes however few were asked for, as a UD endpoint
     * carries its port's MTU: the multicast protocol cuts the stream into datagrams as long as its endpoint's, and
     * small messages batch three times better into 1472 bytes than into the 512 a node asks for at least. Every node
     * of a group must therefore use the same {@code rivulet.udp.maxDatagram}: a receiver whose datagrams are shorter
     * than the publisher's drops the group's as oversize, falls silent and is served over its connection.
     *
     * @throws IOException when datagrams that long exceed {@code rivulet.udp.maxDatagram}, or the socket cannot be
     *                     bound.
     */
    @Override
    public MulticastEndpoint openMulticastEndpoint(final int maxDatagramLength, final int receiveSlots,
        final int sendSlots) throws IOException
    {
        // A length out of range is refused by open, with the numbers.
        final int length = maxDatagramLength < 1 || maxDatagramLength > settings.maxDatagram() ? maxDatagramLength :
            settings.maxDatagram();
        return open(length, receiveSlots, sendSlots, "raise rivulet.udp.maxDatagram (at most " +
            UdpSettings.MAX_DATAGRAM + ")");
    }

    private UdpEndpoint open(final int maxDatagramLength, final int receiveSlots, final int sendSlots,
        final String hint) throws IOException
    {
        if (maxDatagramLength < 1 || receiveSlots < 1 || sendSlots < 1)
        {
            throw new IllegalArgumentException("maxDatagramLength, receiveSlots and sendSlots must be positive: " +
                maxDatagramLength + ", " + receiveSlots + ", " + sendSlots);
        }
        if (maxDatagramLength > settings.maxDatagram())
        {
            throw new IOException("datagrams of " + maxDatagramLength + " bytes do not fit rivulet.udp.maxDatagram " +
                settings.maxDatagram() + ": " + hint);
        }
        synchronized (endpoints)
        {
            if (closed)
            {
                throw new IOException("the UDP datagram network is closed");
            }
            final UdpEndpoint endpoint = new UdpEndpoint(settings, maxDatagramLength);
            endpoints.add(endpoint);
            return endpoint;
        }
    }

    /**
     * Datagrams that fit {@code rivulet.udp.maxDatagram} (the 24-byte header and {@code maxPayload}) unless
     * {@code rivulet.ud.maxPayload} is set, and timers for kernel sockets and engines that park ({@link
     * UdpDatagramDefaults}), each unless its property is set.
     */
    @Override
    public DatagramSettings defaultDatagramSettings(final DatagramSettings defaults)
    {
        if (System.getProperty("rivulet.ud.maxPayload") == null && defaults.maxDatagramLength() > settings.maxDatagram())
        {
            defaults.maxPayload(settings.maxDatagram() - DatagramSettings.DATA_HEADER_LENGTH);
        }
        return UdpDatagramDefaults.adjust(defaults);
    }

    /** Timers for kernel sockets and engines that park ({@link UdpDatagramDefaults}), each unless its property is set. */
    @Override
    public MulticastSettings defaultMulticastSettings(final MulticastSettings defaults)
    {
        return UdpDatagramDefaults.adjust(defaults);
    }

    /** Closes every endpoint still open; idempotent. */
    @Override
    public void close()
    {
        synchronized (endpoints)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            for (final UdpEndpoint endpoint : endpoints)
            {
                // An endpoint belongs to its thread; by now the node has closed it (close is idempotent).
                endpoint.close();
            }
            endpoints.clear();
        }
    }

    @Override
    public String toString()
    {
        return "UdpDatagramTransport{" + settings + "}";
    }
}
