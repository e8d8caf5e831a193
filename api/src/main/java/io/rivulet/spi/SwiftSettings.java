package io.rivulet.spi;

import java.util.concurrent.TimeUnit;

/**
 * Parameters of {@link io.rivulet.protocol.datagram.SwiftCongestionControl}, after Swift (SIGCOMM 2020) and its public simulator.
 * Defaults come from {@code rivulet.ud.*} system properties; {@link #validate()} names a bad value.
 * Windows are in datagrams and may be fractional (below one the sender paces).
 *
 * <p>The delay target defaults higher than Swift's 25 µs because Rivulet measures delay with software
 * timestamps, which include both hosts' polling loops.
 */
public final class SwiftSettings
{
    private long targetDelayNs = DatagramSettings.duration("rivulet.ud.targetDelay", TimeUnit.MICROSECONDS.toNanos(200));
    private long flowScalingRangeNs = DatagramSettings.duration("rivulet.ud.flowScalingRange", 0);
    private double additiveIncrement = DatagramSettings.decimal("rivulet.ud.additiveIncrement", 1.0);
    private double beta = DatagramSettings.decimal("rivulet.ud.beta", 0.8);
    private double maxDecrease = DatagramSettings.decimal("rivulet.ud.maxDecrease", 0.5);
    private double nakDecrease = DatagramSettings.decimal("rivulet.ud.nakDecrease", 0.5);
    private double timeoutDecrease = DatagramSettings.decimal("rivulet.ud.timeoutDecrease", 0.5);
    private int retransmitLimit = DatagramSettings.size("rivulet.ud.retransmitLimit", 3);
    private double minWindow = DatagramSettings.decimal("rivulet.ud.minWindow", 0.01);
    private double maxWindow = DatagramSettings.decimal("rivulet.ud.maxWindow", 256);
    private double initialWindow = DatagramSettings.decimal("rivulet.ud.initialWindow", 8);

    /** Queueing delay the window aims for ({@code rivulet.ud.targetDelay}, 200µs). */
    public SwiftSettings targetDelayNs(final long targetDelayNs)
    {
        this.targetDelayNs = targetDelayNs;
        return this;
    }

    public long targetDelayNs()
    {
        return targetDelayNs;
    }

    /**
     * Extra target granted to small windows, Swift's flow scaling: from this much at a window of 0.1 down to
     * nothing at 100 ({@code rivulet.ud.flowScalingRange}, 0 = off).
     */
    public SwiftSettings flowScalingRangeNs(final long flowScalingRangeNs)
    {
        this.flowScalingRangeNs = flowScalingRangeNs;
        return this;
    }

    public long flowScalingRangeNs()
    {
        return flowScalingRangeNs;
    }

    /** Datagrams added to the window per window acknowledged below the target ({@code rivulet.ud.additiveIncrement}, 1). */
    public SwiftSettings additiveIncrement(final double additiveIncrement)
    {
        this.additiveIncrement = additiveIncrement;
        return this;
    }

    public double additiveIncrement()
    {
        return additiveIncrement;
    }

    /** Scale of the decrease proportional to (delay - target) / delay ({@code rivulet.ud.beta}, 0.8). */
    public SwiftSettings beta(final double beta)
    {
        this.beta = beta;
        return this;
    }

    public double beta()
    {
        return beta;
    }

    /** Cap of one delay-driven decrease, a fraction of the window ({@code rivulet.ud.maxDecrease}, 0.5). */
    public SwiftSettings maxDecrease(final double maxDecrease)
    {
        this.maxDecrease = maxDecrease;
        return this;
    }

    public double maxDecrease()
    {
        return maxDecrease;
    }

    /** Fraction of the window removed on a NAK, at most once per RTT ({@code rivulet.ud.nakDecrease}, 0.5). */
    public SwiftSettings nakDecrease(final double nakDecrease)
    {
        this.nakDecrease = nakDecrease;
        return this;
    }

    public double nakDecrease()
    {
        return nakDecrease;
    }

    /** Fraction of the window removed on a retransmission timeout ({@code rivulet.ud.timeoutDecrease}, 0.5). */
    public SwiftSettings timeoutDecrease(final double timeoutDecrease)
    {
        this.timeoutDecrease = timeoutDecrease;
        return this;
    }

    public double timeoutDecrease()
    {
        return timeoutDecrease;
    }

    /** Consecutive timeouts after which the window drops to its minimum ({@code rivulet.ud.retransmitLimit}, 3). */
    public SwiftSettings retransmitLimit(final int retransmitLimit)
    {
        this.retransmitLimit = retransmitLimit;
        return this;
    }

    public int retransmitLimit()
    {
        return retransmitLimit;
    }

    /** Smallest window, in datagrams ({@code rivulet.ud.minWindow}, 0.01: one datagram per 100 RTTs). */
    public SwiftSettings minWindow(final double minWindow)
    {
        this.minWindow = minWindow;
        return this;
    }

    public double minWindow()
    {
        return minWindow;
    }

    /** Largest window, in datagrams ({@code rivulet.ud.maxWindow}, 256). */
    public SwiftSettings maxWindow(final double maxWindow)
    {
        this.maxWindow = maxWindow;
        return this;
    }

    public double maxWindow()
    {
        return maxWindow;
    }

    /** Window a new path starts with ({@code rivulet.ud.initialWindow}, 8). */
    public SwiftSettings initialWindow(final double initialWindow)
    {
        this.initialWindow = initialWindow;
        return this;
    }

    public double initialWindow()
    {
        return initialWindow;
    }

    /**
     * @return this, when every value is in range.
     * @throws IllegalArgumentException naming the first bad value.
     */
    public SwiftSettings validate()
    {
        require(targetDelayNs > 0, "rivulet.ud.targetDelay must be positive: " + targetDelayNs + "ns");
        require(flowScalingRangeNs >= 0, "rivulet.ud.flowScalingRange must not be negative: " + flowScalingRangeNs + "ns");
        require(additiveIncrement > 0 && Double.isFinite(additiveIncrement),
            "rivulet.ud.additiveIncrement must be positive: " + additiveIncrement);
        require(beta > 0 && beta <= 1, "rivulet.ud.beta must be within (0, 1]: " + beta);
        require(maxDecrease > 0 && maxDecrease < 1, "rivulet.ud.maxDecrease must be within (0, 1): " + maxDecrease);
        require(nakDecrease > 0 && nakDecrease < 1, "rivulet.ud.nakDecrease must be within (0, 1): " + nakDecrease);
        require(timeoutDecrease > 0 && timeoutDecrease < 1,
            "rivulet.ud.timeoutDecrease must be within (0, 1): " + timeoutDecrease);
        require(retransmitLimit >= 1, "rivulet.ud.retransmitLimit must be positive: " + retransmitLimit);
        require(minWindow > 0 && Double.isFinite(minWindow), "rivulet.ud.minWindow must be positive: " + minWindow);
        require(maxWindow >= 1 && maxWindow >= minWindow && Double.isFinite(maxWindow),
            "rivulet.ud.maxWindow must be at least 1 and at least minWindow: " + maxWindow);
        require(initialWindow >= minWindow && initialWindow <= maxWindow,
            "rivulet.ud.initialWindow must be within [minWindow, maxWindow]: " + initialWindow);
        return this;
    }

    static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new IllegalArgumentException(message);
        }
    }

    @Override
    public String toString()
    {
        return "SwiftSettings{targetDelayNs=" + targetDelayNs + ", flowScalingRangeNs=" + flowScalingRangeNs +
            ", additiveIncrement=" + additiveIncrement + ", beta=" + beta + ", maxDecrease=" + maxDecrease +
            ", nakDecrease=" + nakDecrease + ", timeoutDecrease=" + timeoutDecrease + ", retransmitLimit=" +
            retransmitLimit + ", minWindow=" + minWindow + ", maxWindow=" + maxWindow + ", initialWindow=" +
            initialWindow + "}";
    }
}
