package io.rivulet.topic;

import io.rivulet.spi.FrameOutlet;
import org.agrona.DirectBuffer;

/**
 * Another path than the link for the frames a publication's cursor sends to one subscriber (data, attach,
 * snapshot, gap, heartbeat, detach): topic data as datagrams. The rest of the topic protocol stays on the link.
 */
public interface TopicDataPath extends FrameOutlet
{
    /** Sender thread: true once both ends agreed to use this path; until then cursor frames go on the link. */
    boolean isOpen();

    /**
     * Sender thread: hands one cursor frame to the path.
     *
     * @return false when the path has no room now.
     */
    @Override
    boolean offer(DirectBuffer buffer, int offset, int length);
}
