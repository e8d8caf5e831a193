package io.rivulet.protocol.datagram.multicast;

import io.rivulet.protocol.datagram.SwiftCongestionControl;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.SwiftSettings;

import java.util.concurrent.TimeUnit;

/**
 * A multicast publisher's congestion window: Swift's delay rule ({@link SwiftCongestionControl}) on the delay of the
 * slowest receiver it follows, so queues building anywhere on the way to the group slow it down. Loss alone never
 * shrinks the window: a receiver whose path drops datagrams gets repairs and, if it cannot keep up, falls behind to
 * the topic's slow-consumer policy, instead of collapsing the rate for every receiver (Swift's NAK decrease, which
 * the per-path protocol applies, would let the lossiest receiver set everyone's pace).
 *
 * <p>The window is spent as a <b>rate</b>: {@code window x datagram / smoothed delay}, paced with a burst of at most
 * one window, or of what the rate earned over a gap between duty cycles up to {@link #MAX_GAP_NS} (an engine sleeping
 * 1 ms at a time must still send at the rate). Receivers report every quarter of their window (or status interval), not every datagram (that would make
 * the publisher's work grow with its audience), so a window counted against their last report would leave the
 * pipe idle between reports: with a window of 12 datagrams against reports every 128 KiB, a 100 MB/s bottleneck ran
 * 3 % busy. Until the first delay sample the window is an in-flight cap from the followed receiver's received
 * position, as Swift's. Not thread-safe.
 */
final class MulticastCongestion
{
    private static final double SMOOTHING = 0.125;
    /**
     * The longest an engine leaves between two duty cycles while it has nothing else to do: a sleep in the selector
     * ({@code EngineSleep}) or the back-off's longest park, both 1 ms. What the rate earned over such a gap may go at
     * once.
     */
    static final long MAX_GAP_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final SwiftCongestionControl swift;
    private final int datagramBytes;
    private long lastReference = Long.MIN_VALUE;
    private long srttNs;
    private double tokens;
    private long lastRefillNs;

    /**
     * @param settings      the protocol's settings.
     * @param datagramBytes bytes per datagram, the window's unit.
     * @param maxWindow     the largest window in datagrams (the receivers' window).
     */
    MulticastCongestion(final MulticastSettings settings, final int datagramBytes, final int maxWindow)
    {
        final int max = Math.max(settings.initialWindow(), maxWindow);
        this.swift = new SwiftCongestionControl(new SwiftSettings()
            .targetDelayNs(settings.targetDelayNs())
            .flowScalingRangeNs(0)
            .additiveIncrement(1)
            .beta(0.8)
            .maxDecrease(0.5)
            .minWindow(settings.minWindow())
            .maxWindow(max)
            .initialWindow(Math.min(settings.initialWindow(), max))
            .validate());
        this.datagramBytes = datagramBytes;
    }

    /**
     * The followed receivers' received position and slowest delay, once per duty cycle.
     *
     * @param reference      the received position the window counts from.
     * @param slowestDelayNs the largest fresh delay sample, -1 for none.
     */
    void onProgress(final long nowNs, final long reference, final long slowestDelayNs)
    {
        if (lastReference == Long.MIN_VALUE)
        {
            lastReference = reference;
            return;
        }
        if (reference <= lastReference || slowestDelayNs < 0)
        {
            lastReference = Math.max(lastReference, reference);
            return;
        }
        srttNs = srttNs == 0 ? slowestDelayNs : (long)(srttNs + SMOOTHING * (slowestDelayNs - srttNs));
        final int acked = (int)Math.min(Integer.MAX_VALUE, (reference - lastReference + datagramBytes - 1) / datagramBytes);
        lastReference = reference;
        swift.onAck(nowNs, slowestDelayNs, Math.max(srttNs, 1_000), acked);
    }

    /**
     * @param reference the followed receivers' received position.
     * @param position  the publisher's position.
     * @return bytes the window lets the publisher send now.
     */
    long sendable(final long nowNs, final long reference, final long position)
    {
        final double windowBytes = swift.window() * datagramBytes;
        if (srttNs == 0)
        {
            return Math.max(0, reference + (long)windowBytes - position);
        }
        final long elapsed = nowNs - lastRefillNs;
        lastRefillNs = nowNs;
        if (elapsed > 0)
        {
            // A burst of one window, or of what the rate earned while the engine slept (up to MAX_GAP_NS): an engine
            // that sleeps 1 ms between cycles would otherwise send one window a millisecond whatever the delay.
            final double earned = windowBytes * Math.min(elapsed, MAX_GAP_NS) / srttNs;
            tokens = Math.min(Math.max(Math.max(windowBytes, 4.0 * datagramBytes), earned),
                tokens + windowBytes * elapsed / srttNs);
        }
        return (long)tokens;
    }

    /** {@code bytes} went out under the window. */
    void onSent(final int bytes)
    {
        tokens -= bytes;
    }

    /** @return the window in datagrams. */
    double window()
    {
        return swift.window();
    }

    /** @return times the window was cut for delay. */
    long decreases()
    {
        return swift.decreases();
    }

    /** @return the smoothed delay of the slowest receiver followed. */
    long srttNs()
    {
        return srttNs;
    }
}
