package io.rivulet.protocol.datagram;

import io.rivulet.RivuletException;
import io.rivulet.codec.FrameHeader;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.Violation;
import io.rivulet.topic.TopicDataPath;
import io.rivulet.topic.TopicEndpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One connection's datagram channel for topic data: the topic endpoint's {@link TopicDataPath} once both ends
 * offered each other a datagram address (DATAGRAM_OFFER), and the source of the cursor frames the peer sends that
 * way. Until both offers crossed, or when the peer never offers, topic data stays on the link.
 *
 * <p>Conductor thread, except {@link #isOpen()} and {@link #offer}, which the sender's thread calls.
 */
final class ConnectionDatagrams implements ConnectionExtension, TopicDataPath, DatagramChannel.FrameSink
{
    private final DatagramChannels plane;
    private final ConnectionServices connection;
    private final TopicEndpoint topics;
    private final DatagramChannel channel;
    private final FrameReader reader = new FrameReader();
    private long nowNs;

    ConnectionDatagrams(final DatagramChannels plane, final int maxFrameLength, final ConnectionServices connection)
    {
        this.plane = plane;
        this.connection = connection;
        this.topics = connection.extension(TopicEndpoint.class);
        if (topics == null)
        {
            channel = null; // no topic layer: nothing to carry, and no offer, so the peer keeps its data on the link
            return;
        }
        channel = plane.newChannel(maxFrameLength, connection.remoteAddress(), connection.connectionId(),
            connection.keepaliveTimeoutNs(), this);
        topics.useDataPath(this);
    }

    /** Tells the peer where to send this connection's topic data as datagrams, right behind SETUP. */
    @Override
    public void onSetupComplete()
    {
        if (channel == null)
        {
            return;
        }
        final byte[] address = plane.localAddress();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameWriter.datagramOfferLength(address.length)]);
        final int length = new FrameWriter().writeDatagramOffer(frame, 0, channel.receiveSessionId(),
            channel.receiveInitialSequence(), plane.settings().maxPayload(), plane.settings().window(), address);
        if (!connection.sendControl(frame, 0, length))
        {
            throw new IllegalStateException("outbound ring full before DATAGRAM_OFFER");
        }
    }

    /** DATAGRAM_OFFER: where the peer wants this connection's topic data as datagrams. */
    @Override
    public void onFrame(final FrameReader frame, final long nowNs)
    {
        if (channel == null)
        {
            return; // this node keeps topic data on the link; the peer saw no offer and does the same
        }
        final String refusal = plane.onPeerOffer(channel, frame.sessionId(), frame.initialSequence(),
            frame.maxPayload(), frame.window(), frame.text());
        if (refusal != null)
        {
            connection.violation(Violation.INCOMPATIBLE_SETTINGS, refusal);
        }
    }

    @Override
    public int doWork(final long nowNs)
    {
        this.nowNs = nowNs; // the plane delivers this cycle's datagrams after the connections' cycles
        return 0;
    }

    @Override
    public void onClose(final RivuletException cause)
    {
        if (channel != null)
        {
            channel.close(); // the plane forgets the channel on its next cycle
        }
    }

    // ------------------------------------------------------------------------------ TopicDataPath (sender)

    @Override
    public boolean isOpen()
    {
        return channel.isOpen();
    }

    @Override
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        return channel.offer(buffer, offset, length);
    }

    // ------------------------------------------------------------------------------ FrameSink (conductor)

    @Override
    public void onDatagramFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (connection.isClosing())
        {
            return;
        }
        connection.countFrameReceived(length);
        if (!reader.wrap(buffer, offset, length))
        {
            connection.violation(Violation.MALFORMED_FRAME, "malformed " +
                FrameType.name(FrameHeader.typeOrUnknown(buffer, offset, length)) + " frame in a datagram: " +
                reader.error());
            return;
        }
        topics.onDataPathFrame(reader, nowNs);
    }

    @Override
    public void onDatagramViolation(final String reason)
    {
        connection.violation(Violation.MALFORMED_FRAME, reason);
    }

    @Override
    public void onDatagramPathLost(final String reason)
    {
        connection.lost(reason);
    }

    @Override
    public String toString()
    {
        return "ConnectionDatagrams{" + connection.remoteAddress() + ", " + channel + "}";
    }
}
