package io.rivulet.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An idle conductor's timer poll costs the same after a burst of connections as before it. With Agrona's
 * {@code DeadlineTimerWheel} a burst of about 4,000 keepalive timers scheduled inside one tick grew the wheel's
 * per-tick allocation to 4,096 slots for good, and every poll scanned the whole spoke: ping p50 went from 28 µs to
 * 48–121 µs until restart. The cost is counted (entries looked at), not timed. The old wheel ({@link
 * WheelTimersBaseline}) fails this test: in the same scenario it scanned 16,000 slots in 1,000 idle polls before the
 * burst and 4,124,672 after (258 times); the heap looks at 1,000 entries in both.
 */
class ConductorTimersBurstTest
{
    @Test
    void shouldPollAsCheaplyWhenIdleAfterABurstOfTimersInOneTickAsBefore()
    {
        final TimerBurst scenario = new TimerBurst(TimersUnderTest.heap());

        final long before = scenario.idlePollWork();
        scenario.burst();
        final long after = scenario.idlePollWork();

        assertThat(before).as("work of %d idle polls before the burst", TimerBurst.IDLE_POLLS).isPositive();
        assertThat(after).as("work of %d idle polls after a burst of %d timers (before: %d)", TimerBurst.IDLE_POLLS,
            TimerBurst.BURST, before).isLessThanOrEqualTo(2 * before);
    }

    @Test
    void shouldLookAtOneEntryInAPollWithNothingDue()
    {
        final TimerBurst scenario = new TimerBurst(TimersUnderTest.heap());
        scenario.burst();

        assertThat(scenario.idlePollWork()).isEqualTo(TimerBurst.IDLE_POLLS);
    }
}
