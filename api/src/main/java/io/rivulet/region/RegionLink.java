package io.rivulet.region;

import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;

/**
 * What a connection gives its {@link RegionEndpoint}: an ordered path for small control frames (the connection's
 * outbound ring) and its link, which names the peer for one-sided paths. Conductor thread.
 */
public interface RegionLink
{
    /**
     * Queues one whole frame on the connection.
     *
     * @return false when the outbound ring is full or closed: try again next duty cycle.
     */
    boolean sendControl(DirectBuffer buffer, int offset, int length);

    /** @return the longest frame the peer accepts. */
    int maxFrameLength();

    /** @return the peer, for error messages. */
    String remoteAddress();

    /** @return the connection's link. */
    ReliableLink link();
}
