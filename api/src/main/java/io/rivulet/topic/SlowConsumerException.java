package io.rivulet.topic;

import io.rivulet.RivuletException;

/**
 * A {@link SlowConsumerPolicy#DROP_SLOW} topic cut this subscriber off because it fell a whole log
 * behind. It reaches the subscriber at once, whatever it requested (an error needs no demand): the items its
 * demand covered come first, and those it had received but not requested are discarded with the cut-off
 * ({@link #discardedItems()}). So no sequence after the last one the subscriber was handed will be delivered to
 * this subscription; subscribing again starts from a fresh snapshot.
 */
public class SlowConsumerException extends RivuletException
{
    private final String topic;
    private final int sessionId;
    private final long lastSequence;
    private final int discardedItems;

    /**
     * A cut-off that discarded nothing.
     *
     * @param topic        the topic that cut the subscriber off.
     * @param sessionId    the publication session.
     * @param lastSequence the last sequence the publisher sent before the cut.
     * @param message      why.
     */
    public SlowConsumerException(final String topic, final int sessionId, final long lastSequence, final String message)
    {
        this(topic, sessionId, lastSequence, message, 0);
    }

    /**
     * @param topic          the topic that cut the subscriber off.
     * @param sessionId      the publication session.
     * @param lastSequence   the last sequence the publisher sent before the cut.
     * @param message        why.
     * @param discardedItems items received for the subscription but not requested by it, discarded with the cut.
     */
    public SlowConsumerException(
        final String topic, final int sessionId, final long lastSequence, final String message, final int discardedItems)
    {
        super(message);
        this.topic = topic;
        this.sessionId = sessionId;
        this.lastSequence = lastSequence;
        this.discardedItems = discardedItems;
    }

    /** @return the topic that cut the subscriber off. */
    public String topic()
    {
        return topic;
    }

    /** @return the publication session. */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * @return the last sequence the publisher sent to this subscriber's node before the cut; the subscriber was
     * handed it unless {@link #discardedItems()} is above zero.
     */
    public long lastSequence()
    {
        return lastSequence;
    }

    /**
     * @return items (of any kind, of any topic the subscription matched) that had arrived for this subscription
     * but that it had not requested when it was cut off: they were discarded, not delivered.
     */
    public int discardedItems()
    {
        return discardedItems;
    }
}
