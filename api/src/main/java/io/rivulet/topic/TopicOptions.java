package io.rivulet.topic;

import io.rivulet.ConfigurationException;
import io.rivulet.codec.FrameWriter;
import org.agrona.BitUtil;

/**
 * How one topic is published: its {@link SlowConsumerPolicy}, an optional {@link KeyExtractor} (which
 * enables the last-value-per-key snapshot for late joiners, and is required by CONFLATE) and the sizes
 * that bound the publisher's memory.
 *
 * <pre>{@code
 * Publication quotes = node.publication("md.quotes.EURUSD",
 *     TopicOptions.conflate((buffer, offset, length) -> buffer.getLong(offset + 8)).logCapacity(1 << 20));
 * }</pre>
 *
 * <p>Not thread-safe; configure before passing it to {@code Rivulet.publication}, which copies the values.
 */
public final class TopicOptions
{
    /** Default capacity of a publication's log. */
    public static final int DEFAULT_LOG_CAPACITY = 256 * 1024;
    /** Default bound on distinct keys of a keyed topic. */
    public static final int DEFAULT_MAX_KEYS = 4096;
    /** Most keys a topic may have: also the most snapshot entries a subscriber accepts. */
    public static final int MAX_KEYS_LIMIT = 1 << 16;

    private final SlowConsumerPolicy policy;
    private KeyExtractor keyOf;
    private int logCapacity = DEFAULT_LOG_CAPACITY;
    private int maxKeys = DEFAULT_MAX_KEYS;
    private int maxMessageLength;

    private TopicOptions(final SlowConsumerPolicy policy, final KeyExtractor keyOf)
    {
        this.policy = policy;
        this.keyOf = keyOf;
    }

    /** @return options for a topic that back-pressures its publisher by the slowest subscriber. */
    public static TopicOptions block()
    {
        return new TopicOptions(SlowConsumerPolicy.BLOCK, null);
    }

    /** @return options for a topic that cuts off a subscriber a whole log behind. */
    public static TopicOptions dropSlow()
    {
        return new TopicOptions(SlowConsumerPolicy.DROP_SLOW, null);
    }

    /**
     * @param keyOf the key of each message.
     * @return options for a keyed topic whose lagging subscribers get the latest value per key.
     */
    public static TopicOptions conflate(final KeyExtractor keyOf)
    {
        if (keyOf == null)
        {
            throw new IllegalArgumentException("CONFLATE needs a key extractor");
        }
        return new TopicOptions(SlowConsumerPolicy.CONFLATE, keyOf);
    }

    /**
     * Makes the topic keyed: the publisher keeps the last value of each key, and a late joiner receives
     * them as a snapshot before the live stream. Without a key a late joiner starts at the live stream.
     */
    public TopicOptions keyOf(final KeyExtractor keyOf)
    {
        if (keyOf == null && policy == SlowConsumerPolicy.CONFLATE)
        {
            throw new IllegalArgumentException("CONFLATE needs a key extractor");
        }
        this.keyOf = keyOf;
        return this;
    }

    /**
     * Bytes of the publication's log, a power of two: what the publisher may buffer for its slowest
     * subscriber, and how far behind a subscriber may fall before DROP_SLOW / CONFLATE act. At least 8
     * records of {@link #maxMessageLength()}. Default 256 KiB.
     */
    public TopicOptions logCapacity(final int logCapacity)
    {
        this.logCapacity = logCapacity;
        return this;
    }

    /** Most distinct keys of a keyed topic (1 .. 65,536, default 4,096); a new key beyond it is refused. */
    public TopicOptions maxKeys(final int maxKeys)
    {
        this.maxKeys = maxKeys;
        return this;
    }

    /**
     * Longest message (data bytes); by default what fits a frame of the node's {@code maxFrameLength} and an
     * eighth of the log. Messages on topics are never fragmented.
     */
    public TopicOptions maxMessageLength(final int maxMessageLength)
    {
        this.maxMessageLength = maxMessageLength;
        return this;
    }

    public SlowConsumerPolicy policy()
    {
        return policy;
    }

    /** @return the key extractor, or null for an unkeyed topic. */
    public KeyExtractor keyOf()
    {
        return keyOf;
    }

    public int logCapacity()
    {
        return logCapacity;
    }

    public int maxKeys()
    {
        return maxKeys;
    }

    /** @return the longest message, 0 until concluded when left to its default. */
    public int maxMessageLength()
    {
        return maxMessageLength;
    }

    /**
     * @param maxFrameLength the node's longest frame.
     * @return a validated copy with defaults filled in.
     * @throws ConfigurationException naming the bad option.
     */
    TopicOptions conclude(final int maxFrameLength)
    {
        final TopicOptions copy = new TopicOptions(policy, keyOf);
        copy.logCapacity = logCapacity;
        copy.maxKeys = maxKeys;
        // A message also travels as TOPIC_SNAPSHOT (snapshots, catch-ups), whose overhead is the larger.
        final int frameBudget = maxFrameLength - FrameWriter.TOPIC_SNAPSHOT_OVERHEAD;
        if (!BitUtil.isPowerOfTwo(logCapacity) || logCapacity < 4096)
        {
            throw new ConfigurationException("topic logCapacity must be a power of two of at least 4096: " + logCapacity);
        }
        final int logBudget = logCapacity / 8 - LogRecords.recordLength(0);
        copy.maxMessageLength = maxMessageLength == 0 ? Math.min(frameBudget, logBudget) : maxMessageLength;
        if (copy.maxMessageLength < 1 || copy.maxMessageLength > frameBudget)
        {
            throw new ConfigurationException("topic maxMessageLength must be within [1, " + frameBudget +
                "] (maxFrameLength " + maxFrameLength + " less the TOPIC_SNAPSHOT header): " + copy.maxMessageLength);
        }
        if (copy.maxMessageLength > logBudget)
        {
            throw new ConfigurationException("topic logCapacity " + logCapacity + " must hold 8 messages of maxMessageLength " +
                copy.maxMessageLength);
        }
        if (maxKeys < 1 || maxKeys > MAX_KEYS_LIMIT)
        {
            throw new ConfigurationException("topic maxKeys must be within [1, " + MAX_KEYS_LIMIT + "]: " + maxKeys);
        }
        return copy;
    }

    @Override
    public String toString()
    {
        return "TopicOptions{" + policy + (keyOf != null ? ", keyed" : "") + ", logCapacity=" + logCapacity +
            ", maxKeys=" + maxKeys + ", maxMessageLength=" + maxMessageLength + "}";
    }
}
