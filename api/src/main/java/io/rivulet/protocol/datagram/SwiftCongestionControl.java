package io.rivulet.protocol.datagram;

import io.rivulet.spi.SwiftSettings;

/**
 * Delay-based congestion window of one path, after Swift (Kumar et al., SIGCOMM 2020) as its public
 * simulator states the rules:
 * <ul>
 *   <li>on an ACK whose delay is below the target: {@code cwnd += ai * acked / cwnd} ({@code ai * acked}
 *       below one datagram);</li>
 *   <li>on an ACK at or above the target, at most once per RTT:
 *       {@code cwnd *= 1 - min(beta * (delay - target) / delay, maxDecrease)};</li>
 *   <li>on a NAK, at most once per RTT: {@code cwnd *= 1 - nakDecrease};</li>
 *   <li>on a retransmission timeout: {@code cwnd *= 1 - timeoutDecrease}, or the minimum after
 *       {@code retransmitLimit} consecutive timeouts;</li>
 *   <li>the window stays within [minWindow, maxWindow]; below one datagram the sender paces one
 *       datagram every {@code rtt / cwnd}.</li>
 * </ul>
 * Pure state: time, delays and RTTs are passed in, so tests step it with synthetic values.
 * Not thread-safe; one path's agent owns it.
 */
public final class SwiftCongestionControl
{
    private static final double FLOW_SCALING_MIN_WINDOW = 0.1;
    private static final double FLOW_SCALING_MAX_WINDOW = 100;

    private final SwiftSettings settings;
    private final double flowScalingAlpha;
    private final double flowScalingBeta;
    private double cwnd;
    private boolean decreasedOnce;
    private long lastDecreaseNs;
    private long nextSendNs;
    private long decreases;

    /** @param settings validated parameters. */
    public SwiftCongestionControl(final SwiftSettings settings)
    {
        this.settings = settings;
        final double range = settings.flowScalingRangeNs();
        flowScalingAlpha = range / (1 / Math.sqrt(FLOW_SCALING_MIN_WINDOW) - 1 / Math.sqrt(FLOW_SCALING_MAX_WINDOW));
        flowScalingBeta = -flowScalingAlpha / Math.sqrt(FLOW_SCALING_MAX_WINDOW);
        cwnd = settings.initialWindow();
    }

    /** @return the window in datagrams, possibly below one. */
    public double window()
    {
        return cwnd;
    }

    /** @return how many times the window was decreased (delay, NAK or timeout). */
    public long decreases()
    {
        return decreases;
    }

    /** @return the delay target now: the base target plus the flow-scaling term for this window. */
    public long targetDelayNs()
    {
        if (settings.flowScalingRangeNs() == 0)
        {
            return settings.targetDelayNs();
        }
        final double scaling = flowScalingAlpha / Math.sqrt(cwnd) + flowScalingBeta;
        final double clamped = Math.max(0, Math.min(scaling, settings.flowScalingRangeNs()));
        return settings.targetDelayNs() + (long)clamped;
    }

    /**
     * An acknowledgement arrived.
     *
     * @param nowNs   the time now.
     * @param delayNs the delay it measured (RTT less the receiver's hold time).
     * @param rttNs   the smoothed RTT, the spacing of decreases.
     * @param acked   datagrams it newly acknowledged.
     */
    public void onAck(final long nowNs, final long delayNs, final long rttNs, final int acked)
    {
        final long target = targetDelayNs();
        if (delayNs < target)
        {
            if (acked > 0)
            {
                cwnd += cwnd >= 1 ? settings.additiveIncrement() * acked / cwnd : settings.additiveIncrement() * acked;
            }
        }
        else if (canDecrease(nowNs, rttNs))
        {
            final double proportional = settings.beta() * (delayNs - target) / delayNs;
            decrease(nowNs, Math.min(proportional, settings.maxDecrease()));
        }
        clamp();
    }

    /** A NAK arrived: the path lost a datagram. Decreases at most once per RTT. */
    public void onNak(final long nowNs, final long rttNs)
    {
        if (canDecrease(nowNs, rttNs))
        {
            decrease(nowNs, settings.nakDecrease());
            clamp();
        }
    }

    /**
     * The retransmission timer fired.
     *
     * @param consecutiveTimeouts timeouts in a row without an acknowledgement in between, this one included.
     */
    public void onTimeout(final long nowNs, final int consecutiveTimeouts)
    {
        if (consecutiveTimeouts >= settings.retransmitLimit())
        {
            cwnd = settings.minWindow();
            decreasedOnce = true;
            lastDecreaseNs = nowNs;
            decreases++;
        }
        else
        {
            decrease(nowNs, settings.timeoutDecrease());
        }
        clamp();
    }

    /**
     * @param inFlight datagrams sent and not yet acknowledged.
     * @return true when the window lets one more datagram go now.
     */
    public boolean canSend(final int inFlight, final long nowNs)
    {
        if (cwnd >= 1)
        {
            return inFlight < cwnd;
        }
        return nowNs - nextSendNs >= 0;
    }

    /** @return when the next datagram may go while pacing (window below one), else a time already passed. */
    public long nextSendTimeNs()
    {
        return nextSendNs;
    }

    /** A new datagram went out; below one datagram of window this schedules the next one {@code rtt / cwnd} later. */
    public void onSend(final long nowNs, final long rttNs)
    {
        if (cwnd < 1)
        {
            nextSendNs = nowNs + (long)(rttNs / cwnd);
        }
        else
        {
            nextSendNs = nowNs;
        }
    }

    private boolean canDecrease(final long nowNs, final long rttNs)
    {
        return !decreasedOnce || nowNs - lastDecreaseNs >= rttNs;
    }

    private void decrease(final long nowNs, final double fraction)
    {
        cwnd *= 1 - fraction;
        decreasedOnce = true;
        lastDecreaseNs = nowNs;
        decreases++;
    }

    private void clamp()
    {
        if (cwnd < settings.minWindow())
        {
            cwnd = settings.minWindow();
        }
        else if (cwnd > settings.maxWindow())
        {
            cwnd = settings.maxWindow();
        }
    }

    @Override
    public String toString()
    {
        return "SwiftCongestionControl{cwnd=" + cwnd + ", decreases=" + decreases + "}";
    }
}
