package io.rivulet.topic;

import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.protocol.datagram.multicast.MulticastReceiver;
import org.agrona.DirectBuffer;

/**
 * Where one attachment's image of a group's stream delivers (conductor): each record must be a TOPIC_DATA of the
 * attachment's topic and session, read as hostile input, and goes to the attachment's subscriptions as one from the
 * connection would, without a credit. It waits (back-pressure on the image, then on the stream) while a subscription
 * the attachment feeds has a window of items queued. A loss the publisher reported shows as the next record's
 * sequence jumping, which the subscriber side hands over as a GAP(LOST) item.
 */
final class TopicMulticastImage implements MulticastReceiver.Consumer
{
    private final TopicSubscriberSide side;
    private final TopicAttachment attachment;
    private final FrameReader reader = new FrameReader();
    private long losses;

    TopicMulticastImage(final TopicSubscriberSide side, final TopicAttachment attachment)
    {
        this.side = side;
        this.attachment = attachment;
    }

    @Override
    public boolean onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!side.canTake(attachment))
        {
            return false;
        }
        if (!reader.wrap(buffer, offset, length))
        {
            side.onCorruptStream(attachment, "malformed frame in the group's stream: " + reader.error());
            return false;
        }
        if (reader.frameType() != FrameType.TOPIC_DATA || reader.topicId() != attachment.topicId ||
            reader.sessionId() != attachment.sessionId)
        {
            side.onCorruptStream(attachment, FrameType.name(reader.frameType()) + " of topic id " + reader.topicId() +
                " session " + reader.sessionId() + " in the stream of topic id " + attachment.topicId + " session " +
                attachment.sessionId);
            return false;
        }
        side.onMulticastData(attachment, reader);
        return true;
    }

    @Override
    public void onLoss(final long from, final long to)
    {
        losses++;
    }

    @Override
    public void onCorrupt(final String reason)
    {
        side.onCorruptStream(attachment, reason);
    }

    /** @return losses the publisher reported. */
    long losses()
    {
        return losses;
    }
}
