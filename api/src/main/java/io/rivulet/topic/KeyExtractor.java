package io.rivulet.topic;

import org.agrona.DirectBuffer;

/**
 * Finds the key of a message, for the last-value-per-key snapshot of a topic and for
 * {@link SlowConsumerPolicy#CONFLATE}: for market data, typically the instrument id read from a fixed
 * offset of an SBE message.
 *
 * <p>Called on the publishing thread for every message, so it should not allocate; it must be a pure
 * function of the bytes.
 */
@FunctionalInterface
public interface KeyExtractor
{
    /**
     * @param buffer holding the message's data.
     * @param offset of the data.
     * @param length of the data.
     * @return the message's key.
     */
    long key(DirectBuffer buffer, int offset, int length);
}
