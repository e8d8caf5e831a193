package io.rivulet.protocol.datagram;

import io.rivulet.codec.FrameType;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.NodeExtension;

/**
 * Topic data as datagrams ({@code rivulet.topicDatagrams}), as a node extension: the node's datagram plane, and on
 * each connection a {@link ConnectionDatagrams} that offers the peer this end's datagram address right after
 * SETUP and, once the peer's offer arrived, carries the topic layer's cursor frames. Runs after the topic
 * extension, which it needs; on a node without topics it does nothing.
 */
public final class TopicDatagrams implements NodeExtension
{
    private final DatagramChannels plane;
    private final NodeDatagrams datagrams;
    private final int maxFrameLength;

    /**
     * @param plane          the node's datagram plane; closed with this extension.
     * @param datagrams      the network the plane's endpoint is on; released when the plane has closed.
     * @param maxFrameLength the node's frame length limit, which the channels' frames keep to.
     */
    public TopicDatagrams(final DatagramChannels plane, final NodeDatagrams datagrams, final int maxFrameLength)
    {
        this.plane = plane;
        this.datagrams = datagrams;
        datagrams.retain();
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    public int[] frameTypes()
    {
        return new int[]{FrameType.DATAGRAM_OFFER};
    }

    @Override
    public ConnectionExtension attach(final ConnectionServices connection)
    {
        return new ConnectionDatagrams(plane, maxFrameLength, connection);
    }

    /** Receives, packs, sends and acknowledges datagrams for every connection's channel. */
    @Override
    public int doWork(final long nowNs)
    {
        return plane.doWork(nowNs);
    }

    @Override
    public void close()
    {
        try
        {
            plane.close();
        }
        finally
        {
            datagrams.release();
        }
    }

    @Override
    public String toString()
    {
        return "TopicDatagrams";
    }
}
