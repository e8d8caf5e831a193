package io.rivulet.engine;

import org.agrona.DeadlineTimerWheel;

import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;

/**
 * The conductor's timers as they were before the heap: Agrona's {@link DeadlineTimerWheel} (1 ms ticks, 1024 ticks)
 * polled until it caught up with the clock. Kept in the tests only, to compare the cost of an idle poll after a
 * burst with {@link ConductorTimers} ({@link TimerPollMeasurement}, and the burst test run against it by hand).
 *
 * <p>{@link #pollWork()} counts the wheel slots a poll scans: one {@link DeadlineTimerWheel#poll} scans the whole
 * spoke of the current tick, whose length (the wheel's tick allocation, read by reflection) grows with the largest
 * burst that ever landed in one tick and never shrinks.
 */
final class WheelTimersBaseline implements TimersUnderTest
{
    private static final long TICK_NS = 1 << 20;
    private static final int TICKS_PER_WHEEL = 1024;
    private static final Field TICK_ALLOCATION;

    static
    {
        try
        {
            TICK_ALLOCATION = DeadlineTimerWheel.class.getDeclaredField("tickAllocation");
            TICK_ALLOCATION.setAccessible(true);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final DeadlineTimerWheel wheel;
    private long pollWork;

    WheelTimersBaseline(final long startNs)
    {
        wheel = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, startNs, TICK_NS, TICKS_PER_WHEEL);
    }

    @Override
    public long scheduleTimer(final long deadlineNs)
    {
        return wheel.scheduleTimer(deadlineNs);
    }

    @Override
    public boolean cancelTimer(final long timerId)
    {
        return wheel.cancelTimer(timerId);
    }

    @Override
    public int poll(final long nowNs, final DeadlineTimerWheel.TimerHandler handler)
    {
        if (0 == wheel.timerCount())
        {
            wheel.currentTickTime(nowNs);
            return 0;
        }
        int expired = 0;
        for (int ticks = 0; ticks < TICKS_PER_WHEEL; ticks++)
        {
            pollWork += tickAllocation();
            expired += wheel.poll(nowNs, handler, ConductorTimers.EXPIRY_LIMIT - expired);
            if (expired >= ConductorTimers.EXPIRY_LIMIT || wheel.currentTickTime() > nowNs)
            {
                break;
            }
        }
        return expired;
    }

    @Override
    public long pollWork()
    {
        return pollWork;
    }

    @Override
    public long timerCount()
    {
        return wheel.timerCount();
    }

    private int tickAllocation()
    {
        try
        {
            return TICK_ALLOCATION.getInt(wheel);
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
