package io.rivulet.topic;

import io.rivulet.spi.FrameOutlet;
import org.agrona.DirectBuffer;

/**
 * What the topic layer needs from one connection, whatever carries it (a TCP link today, RDMA later):
 * an ordered path for control frames and a direct path to the link for the frames it sends from a
 * publication's log. Implemented by the endpoint over its connection.
 */
interface TopicLink extends FrameOutlet
{
    /**
     * Conductor: queues a control frame (SUBSCRIBE, UNSUBSCRIBE, TOPIC_STATUS) on the connection's outbound
     * ring, behind the connection's other frames.
     *
     * @return false when the ring is full or the connection is closing: try again later.
     */
    boolean sendControl(DirectBuffer buffer, int offset, int length);

    /**
     * Sender thread only: hands one frame to the link's send half (the transport copies it into its send
     * buffer or posts it); {@link #offerRun} hands a run of the log's records.
     *
     * @return false when the link has no room now.
     */
    @Override
    boolean offer(DirectBuffer buffer, int offset, int length);

    /** @return true while frames may be offered (the connection is open and not draining to a close). */
    boolean isSending();

    /** @return the longest frame the peer accepts. */
    int maxFrameLength();

    /** @return the peer, for messages. */
    String remoteAddress();
}
