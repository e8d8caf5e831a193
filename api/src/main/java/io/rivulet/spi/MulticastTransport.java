package io.rivulet.spi;

import java.io.IOException;

/**
 * The optional capability of a {@link DatagramTransport} that can reach multicast groups (RDMA UD multicast, UDP
 * multicast). A node whose topics go to groups ({@code rivulet.topicMulticast}) opens one
 * {@link MulticastEndpoint} to publish from, on the thread that sends topic data, and a node that receives topic data
 * from groups ({@code rivulet.topicMulticastReceive}) one to receive on, on its conductor: each endpoint has one
 * thread. Reliability on top lives in {@code io.rivulet.protocol.datagram.multicast}, written once.
 *
 * <p>Threading: called once per endpoint, at start.
 */
public interface MulticastTransport
{
    /**
     * Opens a multicast endpoint.
     *
     * @param maxDatagramLength longest datagram it must carry; the endpoint may carry more.
     * @param receiveSlots      datagrams it keeps buffers posted for.
     * @param sendSlots         datagrams it may have in flight at once.
     * @return the endpoint, closed by the caller before the transport.
     * @throws IOException when the device or the host cannot make one.
     */
    MulticastEndpoint openMulticastEndpoint(int maxDatagramLength, int receiveSlots, int sendSlots) throws IOException;

    /**
     * The multicast protocol's settings for a node that did not give its own: the defaults (from
     * {@code rivulet.multicast.*}, tuned for RDMA hardware), adjusted where this transport's timing differs. A value
     * the user set by property must be kept.
     *
     * @param defaults the validated defaults.
     * @return settings to use, validated.
     */
    default MulticastSettings defaultMulticastSettings(final MulticastSettings defaults)
    {
        return defaults;
    }
}
