package io.rivulet.spi;

import io.rivulet.spi.DatagramSettings;

import java.io.IOException;

/**
 * The optional capability of a {@link TransportDriver} that can also reach its peers with datagrams (RDMA: a
 * UD queue pair). When a node sets {@code rivulet.topicDatagrams}, it opens one such endpoint and carries the
 * topic data of its connections over it, reliably ({@code io.rivulet.protocol.datagram}), while everything
 * else stays on the connections' reliable links.
 *
 * <p>Threading: called by the conductor once, at start; the endpoint then belongs to the conductor.
 */
public interface DatagramTransport
{
    /**
     * Opens the node's datagram endpoint.
     *
     * @param maxDatagramLength longest datagram it must carry (payload plus the protocol's header).
     * @param receiveSlots      datagrams it keeps buffers posted for.
     * @param sendSlots         datagrams it may have in flight at once.
     * @return the endpoint, closed by the caller before the driver.
     * @throws IOException when the device cannot make one (for example the path MTU is shorter).
     */
    DatagramEndpoint openDatagramEndpoint(int maxDatagramLength, int receiveSlots, int sendSlots) throws IOException;

    /**
     * The protocol's settings for a node that did not give its own: the defaults (from {@code rivulet.ud.*}, tuned
     * for RDMA hardware's microsecond round trips), adjusted where this transport's timing differs. A value the
     * user set by property must be kept.
     *
     * @param defaults the validated defaults.
     * @return settings to use, validated.
     */
    default DatagramSettings defaultDatagramSettings(DatagramSettings defaults)
    {
        return defaults;
    }
}
