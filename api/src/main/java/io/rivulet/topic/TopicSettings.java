package io.rivulet.topic;

/**
 * Node-wide settings of the topic layer, taken from the node's context.
 *
 * @param window              credits a subscriber keeps granted per topic: messages the publisher may
 *                            send ahead of the subscriber's demand (prefetch).
 * @param heartbeatIntervalNs how often an idle publisher sends TOPIC_HEARTBEAT and a subscriber TOPIC_STATUS.
 * @param heartbeatTimeoutNs  silence after which a subscriber presumes the publisher dead, and the
 *                            publisher the subscriber.
 * @param maxFrameLength      the node's longest frame.
 */
public record TopicSettings(int window, long heartbeatIntervalNs, long heartbeatTimeoutNs, int maxFrameLength)
{
}
