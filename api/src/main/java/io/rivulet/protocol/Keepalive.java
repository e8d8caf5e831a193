package io.rivulet.protocol;

import java.util.concurrent.TimeUnit;

/**
 * One connection's keepalive, on the conductor: when the peer was last heard, the interval at which this side
 * sends KEEPALIVE and the timeout after which a silent peer is lost. A server adopts the interval and timeout the
 * client's SETUP asked for, so that neither side times the other out; the conductor's timer then runs at once.
 */
final class Keepalive
{
    private final ControlFrames control;
    private long intervalNs;
    private long timeoutNs;
    private long lastReceivedNs;
    private boolean changed;
    private long timerId = -1;

    Keepalive(final ControlFrames control, final long intervalNs, final long timeoutNs, final long nowNs)
    {
        this.control = control;
        this.intervalNs = intervalNs;
        this.timeoutNs = timeoutNs;
        this.lastReceivedNs = nowNs;
    }

    /** A frame arrived from the peer. */
    void onFrameReceived(final long nowNs)
    {
        lastReceivedNs = nowNs;
    }

    /** The peer's KEEPALIVE: answered when it asks for an answer, echoing its timestamp. */
    void onKeepaliveFrame(final boolean respond, final long timestampNs)
    {
        if (respond)
        {
            control.keepalive(false, timestampNs);
        }
    }

    /** Server: follows the keepalive the client's SETUP asked for. */
    void adopt(final long intervalMs, final long timeoutMs)
    {
        intervalNs = TimeUnit.MILLISECONDS.toNanos(intervalMs);
        timeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        changed = true;
    }

    /**
     * The timer fired.
     *
     * @return the silence that exceeded the timeout in nanoseconds, or 0 when the peer is alive (a KEEPALIVE was
     *         queued and the timer runs again after the interval).
     */
    long onTimer(final long nowNs)
    {
        final long silentNs = nowNs - lastReceivedNs;
        if (silentNs > timeoutNs)
        {
            return silentNs;
        }
        control.keepalive(false, nowNs);
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
