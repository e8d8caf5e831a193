package io.rivulet.topic;

import io.rivulet.RivuletException;

/**
 * Nothing (no message, no heartbeat) arrived from a topic's publisher within the topic heartbeat timeout
 * ({@code rivulet.topicHeartbeatTimeout}): the publisher is presumed dead or hung.
 */
public class PublisherTimeoutException extends RivuletException
{
    private final String topic;

    public PublisherTimeoutException(final String topic, final String message)
    {
        super(message);
        this.topic = topic;
    }

    /** @return the topic whose publisher went silent. */
    public String topic()
    {
        return topic;
    }
}
