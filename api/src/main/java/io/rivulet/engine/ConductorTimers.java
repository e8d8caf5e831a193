package io.rivulet.engine;

import org.agrona.DeadlineTimerWheel;

import java.util.concurrent.TimeUnit;

/**
 * The conductor's timers (keepalive): Agrona's {@link DeadlineTimerWheel}, polled so that timers fire by the
 * clock however long a duty cycle takes.
 *
 * <p>One {@link DeadlineTimerWheel#poll} looks at one tick's spoke and moves the wheel on by at most one tick, so a
 * wheel polled once per duty cycle falls behind the clock whenever a cycle takes longer than a tick: a conductor
 * busy with datagrams for eight connections on a slow CPU (a Soft-RoCE guest) took 40 ms a cycle, and its 1 s
 * keepalives went out 40 s apart, long enough for the peer to declare the connection lost. {@link #poll} moves the
 * wheel on until it has caught up with the clock, up to one whole turn per call, which visits every spoke and so
 * fires every due timer however far behind the wheel was; a wheel with no timers jumps straight to the clock.
 *
 * <p>Conductor thread only.
 */
final class ConductorTimers
{
    /** The most timers one {@link #poll} fires; the rest fire on the next. */
    static final int EXPIRY_LIMIT = 64;
    /** Ticks of 2^20 ns (about 1 ms): keepalive needs no finer resolution. */
    private static final long TICK_NS = 1 << 20;
    /** One turn of the wheel: about 1.07 s. */
    private static final int TICKS_PER_WHEEL = 1024;

    private final DeadlineTimerWheel wheel;

    /**
     * @param startNs the clock now: the wheel's tick 0.
     */
    ConductorTimers(final long startNs)
    {
        wheel = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, startNs, TICK_NS, TICKS_PER_WHEEL);
    }

    /**
     * @param deadlineNs when the timer fires, on the conductor's clock.
     * @return the timer's id, for {@link #cancelTimer}.
     */
    long scheduleTimer(final long deadlineNs)
    {
        return wheel.scheduleTimer(deadlineNs);
    }

    /**
     * @return whether the timer was pending (and now never fires).
     */
    boolean cancelTimer(final long timerId)
    {
        return wheel.cancelTimer(timerId);
    }

    /**
     * Fires the timers whose deadline has passed, up to {@link #EXPIRY_LIMIT}.
     *
     * @param nowNs   the duty cycle's clock.
     * @param handler called for each, with {@code nowNs}.
     * @return timers fired.
     */
    int poll(final long nowNs, final DeadlineTimerWheel.TimerHandler handler)
    {
        if (0 == wheel.timerCount())
        {
            wheel.currentTickTime(nowNs); // nothing to fire in the ticks skipped
            return 0;
        }
        int expired = 0;
        for (int ticks = 0; ticks < TICKS_PER_WHEEL; ticks++)
        {
            expired += wheel.poll(nowNs, handler, EXPIRY_LIMIT - expired);
            if (expired >= EXPIRY_LIMIT || wheel.currentTickTime() > nowNs)
            {
                break;
            }
        }
        return expired;
    }
}
