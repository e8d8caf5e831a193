package io.rivulet.engine;

import org.agrona.DeadlineTimerWheel;

import java.util.concurrent.TimeUnit;

/**
 * The scenario behind the burst test and {@link TimerPollMeasurement}: a conductor with a handful of live keepalive
 * timers polls once per idle duty cycle; then a burst of connections schedules thousands of timers inside one tick,
 * which all fire or are cancelled; then the conductor is idle again with the same handful.
 */
final class TimerBurst
{
    static final long START_NS = 1_000_000_000_000L;
    static final int LIVE_TIMERS = 5;
    static final int BURST = 4_096;
    /** Idle duty cycles sampled before and after the burst, 100 µs apart (a backing-off idle conductor). */
    static final int IDLE_POLLS = 1_000;
    static final long IDLE_CYCLE_NS = TimeUnit.MICROSECONDS.toNanos(100);
    private static final DeadlineTimerWheel.TimerHandler FIRE = (unit, now, timerId) -> true;

    private final TimersUnderTest timers;
    private long nowNs = START_NS;

    TimerBurst(final TimersUnderTest timers)
    {
        this.timers = timers;
        for (int i = 0; i < LIVE_TIMERS; i++)
        {
            timers.scheduleTimer(START_NS + TimeUnit.HOURS.toNanos(1) + i);
        }
    }

    /** @return the poll work of {@link #IDLE_POLLS} idle duty cycles from now on. */
    long idlePollWork()
    {
        final long before = timers.pollWork();
        for (int i = 0; i < IDLE_POLLS; i++)
        {
            nowNs += IDLE_CYCLE_NS;
            if (timers.poll(nowNs, FIRE) != 0)
            {
                throw new IllegalStateException("a live timer fired during the idle cycles");
            }
        }
        return timers.pollWork() - before;
    }

    /** Schedules {@link #BURST} timers inside one tick, cancels every other one and polls until the rest fired. */
    void burst()
    {
        final long deadlineNs = nowNs + TimeUnit.MILLISECONDS.toNanos(200);
        final long[] ids = new long[BURST];
        for (int i = 0; i < BURST; i++)
        {
            ids[i] = timers.scheduleTimer(deadlineNs + (i % 1_000)); // all within one microsecond
        }
        for (int i = 0; i < BURST; i += 2)
        {
            if (!timers.cancelTimer(ids[i]))
            {
                throw new IllegalStateException("timer " + ids[i] + " was not pending");
            }
        }
        nowNs = deadlineNs + TimeUnit.MILLISECONDS.toNanos(5);
        int fired = 0;
        for (int polls = 0; fired < BURST / 2 && polls < BURST; polls++)
        {
            nowNs += IDLE_CYCLE_NS;
            fired += timers.poll(nowNs, FIRE);
        }
        if (fired != BURST / 2 || timers.timerCount() != LIVE_TIMERS)
        {
            throw new IllegalStateException(fired + " of " + BURST / 2 + " burst timers fired, " +
                timers.timerCount() + " pending");
        }
    }

    long nowNs()
    {
        return nowNs;
    }
}
