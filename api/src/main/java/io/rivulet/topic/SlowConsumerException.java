package io.rivulet.topic;

import io.rivulet.RivuletException;

/**
 * A {@link SlowConsumerPolicy#DROP_SLOW} topic cut this subscriber off because it fell a whole log
 * behind. Sequences after {@link #lastSequence()} of that session will never be delivered to this
 * subscription; subscribing again starts from a fresh snapshot.
 */
public class SlowConsumerException extends RivuletException
{
    private final String topic;
    private final int sessionId;
    private final long lastSequence;

    public SlowConsumerException(final String topic, final int sessionId, final long lastSequence, final String message)
    {
        super(message);
        this.topic = topic;
        this.sessionId = sessionId;
        this.lastSequence = lastSequence;
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

    /** @return the last sequence the publisher sent to this subscriber before the cut. */
    public long lastSequence()
    {
        return lastSequence;
    }
}
