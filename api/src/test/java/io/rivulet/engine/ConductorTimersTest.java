package io.rivulet.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conductor's timers fire on the clock, not on the number of duty cycles: a wheel that advanced one tick per
 * poll fell behind whenever a cycle took longer than a tick (about 1 ms), and under load a 1 s keepalive fired
 * after 40 s (seen on Soft-RoCE: the peer declared the connection lost).
 */
class ConductorTimersTest
{
    private static final long START_NS = 1_000_000_000_000L;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final ConductorTimers timers = new ConductorTimers();
    private final List<Long> fired = new ArrayList<>();
    private final List<Long> firedAtNs = new ArrayList<>();

    private int poll(final long nowNs)
    {
        return timers.poll(nowNs, (unit, now, timerId) ->
        {
            fired.add(timerId);
            firedAtNs.add(now);
            return true;
        });
    }

    @Test
    void shouldFireATimerAtTheFirstPollPastItsDeadlineHoweverFewPollsCameBefore()
    {
        final long timerId = timers.scheduleTimer(START_NS + SECOND);

        assertThat(poll(START_NS + SECOND - 2 * MS)).isZero();
        assertThat(fired).isEmpty();
        assertThat(poll(START_NS + SECOND + 2 * MS)).isOne();
        assertThat(fired).containsExactly(timerId);
    }

    @Test
    void shouldKeepAPeriodicTimerOnTimeWhenEveryCycleTakesFortyTicks()
    {
        final long[] deadline = {START_NS + SECOND};
        final long[] timerId = {timers.scheduleTimer(deadline[0])};
        int expiries = 0;
        for (long now = START_NS; now <= START_NS + 40 * SECOND; now += 40 * MS)
        {
            final long cycleNs = now;
            expiries += timers.poll(now, (unit, at, id) ->
            {
                assertThat(id).isEqualTo(timerId[0]);
                assertThat(at - deadline[0]).as("lateness").isLessThanOrEqualTo(40 * MS + 2 * MS);
                deadline[0] = cycleNs + SECOND;
                timerId[0] = timers.scheduleTimer(deadline[0]);
                return true;
            });
        }
        // Forty seconds at one second apart, each up to one cycle late.
        assertThat(expiries).isBetween(38, 40);
    }

    @Test
    void shouldFireEveryDueTimerAfterAStallLongerThanOneTurnOfTheWheel()
    {
        final List<Long> ids = new ArrayList<>();
        for (int i = 1; i <= 5; i++)
        {
            ids.add(timers.scheduleTimer(START_NS + i * SECOND));
        }
        final long notYet = timers.scheduleTimer(START_NS + 20 * SECOND);

        assertThat(poll(START_NS + 10 * SECOND)).isEqualTo(5);
        assertThat(fired).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(firedAtNs).allMatch(at -> at == START_NS + 10 * SECOND);

        fired.clear();
        assertThat(poll(START_NS + 19 * SECOND)).isZero();
        assertThat(poll(START_NS + 20 * SECOND + 2 * MS)).isOne();
        assertThat(fired).containsExactly(notYet);
    }

    @Test
    void shouldNotFireACancelledTimer()
    {
        final long cancelled = timers.scheduleTimer(START_NS + SECOND);
        final long kept = timers.scheduleTimer(START_NS + SECOND);

        assertThat(timers.cancelTimer(cancelled)).isTrue();
        assertThat(poll(START_NS + 2 * SECOND)).isOne();
        assertThat(fired).containsExactly(kept);
    }

    @Test
    void shouldBoundTheExpiriesOfOnePollAndFireTheRestOnTheNext()
    {
        for (int i = 0; i < ConductorTimers.EXPIRY_LIMIT + 36; i++)
        {
            timers.scheduleTimer(START_NS + SECOND);
        }

        assertThat(poll(START_NS + 2 * SECOND)).isEqualTo(ConductorTimers.EXPIRY_LIMIT);
        assertThat(poll(START_NS + 2 * SECOND)).isEqualTo(36);
        assertThat(poll(START_NS + 2 * SECOND)).isZero();
        assertThat(fired).doesNotHaveDuplicates().hasSize(ConductorTimers.EXPIRY_LIMIT + 36);
    }
}
