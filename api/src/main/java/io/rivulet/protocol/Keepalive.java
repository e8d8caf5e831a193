package io.rivulet.protocol;

import java.util.concurrent.TimeUnit;

/**
 * One connection's keepalive and idleness, on the conductor: when the peer was last heard, the interval at which
 * this side sends KEEPALIVE and the timeout after which a silent peer is lost, and when the connection last carried
 * anything but KEEPALIVE.
 *
 * <p>The keepalive is the server's policy: a server follows the interval and timeout the client's SETUP asked for,
 * so that neither side times the other out, but never a timeout longer than its own bound
 * ({@code rivulet.maxKeepaliveTimeout}); it answers SETUP with what it granted, and the client follows that. A
 * client asking for days would otherwise hold a connection slot for days after it went silent. Either change has
 * the conductor reschedule the timer, one interval from now.
 */
final class Keepalive
{
    private static final long MIN_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ControlFrames control;
    private long intervalNs;
    private long timeoutNs;
    private long lastReceivedNs;
    private long lastActiveNs;
    private boolean changed;
    private long timerId = -1;

    Keepalive(final ControlFrames control, final long intervalNs, final long timeoutNs, final long nowNs)
    {
        this.control = control;
        this.intervalNs = intervalNs;
        this.timeoutNs = timeoutNs;
        this.lastReceivedNs = nowNs;
        this.lastActiveNs = nowNs;
    }

    /** A frame arrived from the peer. */
    void onFrameReceived(final long nowNs)
    {
        lastReceivedNs = nowNs;
    }

    /** The connection carried something the application or a layer cares about: it is not idle. */
    void onActive(final long nowNs)
    {
        lastActiveNs = nowNs;
    }

    /** @return how long the connection carried nothing but KEEPALIVE. */
    long idleNs(final long nowNs)
    {
        return nowNs - lastActiveNs;
    }

    /** The peer's KEEPALIVE: answered when it asks for an answer, echoing its timestamp. */
    void onKeepaliveFrame(final boolean respond, final long timestampNs)
    {
        if (respond)
        {
            control.keepalive(false, timestampNs);
        }
    }

    /**
     * Server: follows the keepalive the client's SETUP asked for, within this node's bound.
     *
     * @param intervalMs   the client's interval, positive.
     * @param timeoutMs    the client's timeout, longer than its interval.
     * @param maxTimeoutNs the longest timeout this server grants.
     * @return true when it granted less than asked.
     */
    boolean grant(final long intervalMs, final long timeoutMs, final long maxTimeoutNs)
    {
        final long askedIntervalNs = TimeUnit.MILLISECONDS.toNanos(intervalMs);
        final long askedTimeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        follow(askedIntervalNs, askedTimeoutNs, maxTimeoutNs);
        return intervalNs != askedIntervalNs || timeoutNs != askedTimeoutNs;
    }

    /**
     * Client: follows what the server's answer to SETUP says it granted, never longer than this side asked for.
     *
     * @return true when the server granted less than asked.
     */
    boolean acceptGrant(final long intervalMs, final long timeoutMs)
    {
        final long askedIntervalNs = intervalNs;
        final long askedTimeoutNs = timeoutNs;
        follow(Math.min(askedIntervalNs, TimeUnit.MILLISECONDS.toNanos(intervalMs)),
            TimeUnit.MILLISECONDS.toNanos(timeoutMs), askedTimeoutNs);
        return intervalNs != askedIntervalNs || timeoutNs != askedTimeoutNs;
    }

    /** Takes the interval and timeout, the timeout at most the bound, the interval always below the timeout. */
    private void follow(final long askedIntervalNs, final long askedTimeoutNs, final long maxTimeoutNs)
    {
        final long timeout = Math.min(askedTimeoutNs, maxTimeoutNs);
        long interval = askedIntervalNs;
        if (interval >= timeout)
        {
            // Whole milliseconds on the wire: half the timeout keeps the interval below it after rounding.
            interval = Math.max(MIN_INTERVAL_NS, TimeUnit.MILLISECONDS.toNanos(TimeUnit.NANOSECONDS.toMillis(timeout) / 2));
        }
        intervalNs = interval;
        timeoutNs = timeout;
        changed = true;
    }

    /**
     * The timer fired.
     *
     * @param send whether to queue a KEEPALIVE (not before a server accepted SETUP).
     * @return the silence that exceeded the timeout in nanoseconds, or 0 when the peer is alive (a KEEPALIVE was
     *         queued, when sending, and the timer runs again after the interval).
     */
    long onTimer(final long nowNs, final boolean send)
    {
        final long silentNs = nowNs - lastReceivedNs;
        if (silentNs > timeoutNs)
        {
            return silentNs;
        }
        if (send)
        {
            control.keepalive(false, nowNs);
        }
        return 0;
    }

    long intervalNs()
    {
        return intervalNs;
    }

    long timeoutNs()
    {
        return timeoutNs;
    }

    /** @return whether the interval changed since the last call, so that the timer must be rescheduled now. */
    boolean takeChanged()
    {
        final boolean was = changed;
        changed = false;
        return was;
    }

    long timerId()
    {
        return timerId;
    }

    void timerId(final long timerId)
    {
        this.timerId = timerId;
    }
}
