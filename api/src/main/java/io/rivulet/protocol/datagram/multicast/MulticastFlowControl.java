package io.rivulet.protocol.datagram.multicast;

import io.rivulet.spi.MulticastSettings;

import java.util.ArrayList;

/**
 * How far a publisher may send, from its receivers' status messages, after Aeron's flow control strategies
 * ({@link MulticastSettings.FlowControl}): the slowest receiver's consumed position plus its window (MIN), the
 * fastest's (MAX), or the slowest tagged receiver's, sending nothing until the required group has reported
 * (TAGGED). With the limit it finds the receiver the congestion window follows: for MIN and TAGGED the one that has
 * received least, for MAX the one the limit comes from. Receivers that have not reported yet, or timed out, do not
 * count. Not thread-safe.
 */
final class MulticastFlowControl
{
    private final MulticastSettings.FlowControl policy;
    private final long tag;
    private final int requiredGroupSize;
    private final long delaySampleAgeNs;

    private long limit;
    private long reference;
    private long slowestDelayNs;
    private int members;

    MulticastFlowControl(final MulticastSettings settings)
    {
        this.policy = settings.flowControl();
        this.tag = settings.flowControlTag();
        this.requiredGroupSize = settings.requiredGroupSize();
        this.delaySampleAgeNs = settings.timeoutNs();
    }

    /**
     * Evaluates the receivers.
     *
     * @return false when no receiver lets the publisher send (none reporting, or the required group incomplete).
     */
    boolean evaluate(final ArrayList<MulticastReceiverState> receivers, final long nowNs)
    {
        int tagged = 0;
        if (policy == MulticastSettings.FlowControl.TAGGED)
        {
            for (int i = 0, size = receivers.size(); i < size; i++)
            {
                final MulticastReceiverState receiver = receivers.get(i);
                if (receiver.state == MulticastReceiverState.ACTIVE && receiver.tag == tag)
                {
                    tagged++;
                }
            }
            if (tagged < requiredGroupSize)
            {
                members = 0;
                return false;
            }
        }
        final boolean fastest = policy == MulticastSettings.FlowControl.MAX ||
            (policy == MulticastSettings.FlowControl.TAGGED && tagged == 0);
        final boolean onlyTagged = policy == MulticastSettings.FlowControl.TAGGED && tagged > 0;
        members = 0;
        limit = fastest ? Long.MIN_VALUE : Long.MAX_VALUE;
        reference = fastest ? Long.MIN_VALUE : Long.MAX_VALUE;
        slowestDelayNs = -1;
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            final MulticastReceiverState receiver = receivers.get(i);
            if (receiver.state != MulticastReceiverState.ACTIVE || (onlyTagged && receiver.tag != tag))
            {
                continue;
            }
            members++;
            final long ahead = receiver.consumed + receiver.window;
            if (fastest ? ahead > limit : ahead < limit)
            {
                limit = ahead;
            }
            if (fastest ? receiver.received > reference : receiver.received < reference)
            {
                reference = receiver.received;
                if (fastest)
                {
                    slowestDelayNs = freshDelay(receiver, nowNs);
                }
            }
            if (!fastest)
            {
                slowestDelayNs = Math.max(slowestDelayNs, freshDelay(receiver, nowNs));
            }
        }
        return members > 0;
    }

    private long freshDelay(final MulticastReceiverState receiver, final long nowNs)
    {
        return receiver.delayNs >= 0 && nowNs - receiver.delayAtNs <= delaySampleAgeNs ? receiver.delayNs : -1;
    }

    /** @return the position the publisher may send up to (exclusive), after {@link #evaluate} returned true. */
    long limit()
    {
        return limit;
    }

    /** @return the received position the congestion window counts from. */
    long reference()
    {
        return reference;
    }

    /** @return the largest fresh delay among the receivers followed, -1 when none has one. */
    long slowestDelayNs()
    {
        return slowestDelayNs;
    }

    /** @return receivers followed at the last evaluation. */
    int members()
    {
        return members;
    }
}
