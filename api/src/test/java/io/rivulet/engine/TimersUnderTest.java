package io.rivulet.engine;

import org.agrona.DeadlineTimerWheel;

/** The conductor's timers as the burst test and the measurement drive them: the heap, or the old wheel. */
interface TimersUnderTest
{
    long scheduleTimer(long deadlineNs);

    boolean cancelTimer(long timerId);

    int poll(long nowNs, DeadlineTimerWheel.TimerHandler handler);

    /** @return a deterministic count of the work polls did so far (entries or slots looked at). */
    long pollWork();

    long timerCount();

    /** @return the heap behind this interface. */
    static TimersUnderTest heap()
    {
        final ConductorTimers timers = new ConductorTimers();
        return new TimersUnderTest()
        {
            @Override
            public long scheduleTimer(final long deadlineNs)
            {
                return timers.scheduleTimer(deadlineNs);
            }

            @Override
            public boolean cancelTimer(final long timerId)
            {
                return timers.cancelTimer(timerId);
            }

            @Override
            public int poll(final long nowNs, final DeadlineTimerWheel.TimerHandler handler)
            {
                return timers.poll(nowNs, handler);
            }

            @Override
            public long pollWork()
            {
                return timers.pollWork();
            }

            @Override
            public long timerCount()
            {
                return timers.timerCount();
            }
        };
    }
}
