package io.rivulet.topic;

/**
 * What a topic does about a subscriber that falls behind. Memory stays bounded under each: the
 * publisher buffers at most its log's capacity ({@link TopicOptions#logCapacity()}), plus, for keyed
 * topics, the last value of each key ({@link TopicOptions#maxKeys()} x {@link TopicOptions#maxMessageLength()}).
 */
public enum SlowConsumerPolicy
{
    /**
     * The publisher is back-pressured by the slowest subscriber: {@link Publication#offer} returns
     * {@link Publication#BACK_PRESSURED} while any subscriber is a whole log behind. Nobody misses a message.
     */
    BLOCK,

    /**
     * A subscriber that falls a whole log behind is cut off: its {@code Flux} ends with a
     * {@link SlowConsumerException} naming the last sequence it was sent, at once and whatever it requested
     * (the items its demand covers first; those it had not requested are discarded and counted). It may
     * subscribe again (a new snapshot, then the live stream). The publisher and the other subscribers are not
     * held back.
     */
    DROP_SLOW,

    /**
     * For keyed topics: a subscriber that falls a whole log behind skips ahead. It receives a
     * {@link TopicMessage.Kind#GAP} item (reason {@link TopicMessage.GapReason#CONFLATED}) for the skipped
     * sequences, then the latest value of every key that changed in them as {@link TopicMessage.Kind#SNAPSHOT}
     * items in sequence order, then the live stream: never a stale value after a fresher one. The publisher
     * and the other subscribers are not held back.
     */
    CONFLATE
}
