package io.rivulet.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heap behind {@link ConductorTimers} against a plain model (a sorted set of deadline and id) over seeded random
 * schedules, cancels, stale cancels and polls, including handlers that reschedule and cancel: the same timers fire,
 * in deadline order, at most {@link ConductorTimers#EXPIRY_LIMIT} per poll, and a fired or cancelled id never cancels
 * another timer.
 */
class ConductorTimersModelTest
{
    private static final long START_NS = 5_000_000_000L;

    @Test
    void shouldFireWhatASortedModelFiresOverRandomOperations()
    {
        for (long seed = 1; seed <= 8; seed++)
        {
            run(new Random(seed));
        }
    }

    @Test
    void shouldNotLetTheIdOfAFiredTimerCancelTheTimerThatReusedItsSlot()
    {
        final ConductorTimers timers = new ConductorTimers();
        final long first = timers.scheduleTimer(START_NS);
        assertThat(timers.poll(START_NS, (unit, now, id) -> true)).isOne();
        final long second = timers.scheduleTimer(START_NS + 10);

        assertThat(second).isNotEqualTo(first).isPositive();
        assertThat(timers.cancelTimer(first)).isFalse();
        assertThat(timers.cancelTimer(-1)).isFalse();
        assertThat(timers.timerCount()).isOne();
        assertThat(timers.cancelTimer(second)).isTrue();
        assertThat(timers.timerCount()).isZero();
    }

    @Test
    void shouldKeepATimerWhoseHandlerDeclinesAndEndThePoll()
    {
        final ConductorTimers timers = new ConductorTimers();
        final long declined = timers.scheduleTimer(START_NS);
        timers.scheduleTimer(START_NS + 1);

        assertThat(timers.poll(START_NS + 5, (unit, now, id) -> id != declined)).isZero();
        assertThat(timers.timerCount()).isEqualTo(2);
        assertThat(timers.poll(START_NS + 5, (unit, now, id) -> true)).isEqualTo(2);
    }

    private static void run(final Random random)
    {
        final ConductorTimers timers = new ConductorTimers();
        final TreeSet<long[]> model = new TreeSet<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) :
            Long.compare(a[1], b[1]));
        final Map<Long, long[]> byId = new HashMap<>();
        final List<Long> gone = new ArrayList<>();
        long nowNs = START_NS;
        for (int step = 0; step < 10_000; step++)
        {
            final int op = random.nextInt(10);
            if (op < 4)
            {
                final long deadline = nowNs + random.nextInt(2_000);
                final long id = timers.scheduleTimer(deadline);
                assertThat(byId).doesNotContainKey(id);
                final long[] entry = {deadline, id};
                model.add(entry);
                byId.put(id, entry);
            }
            else if (op < 6 && !byId.isEmpty())
            {
                final Long id = new ArrayList<>(byId.keySet()).get(random.nextInt(byId.size()));
                assertThat(timers.cancelTimer(id)).isTrue();
                model.remove(byId.remove(id));
                gone.add(id);
            }
            else if (op < 7 && !gone.isEmpty())
            {
                assertThat(timers.cancelTimer(gone.get(random.nextInt(gone.size())))).as("a stale id").isFalse();
            }
            else
            {
                nowNs += random.nextInt(300);
                final long pollNs = nowNs;
                final List<Long> fired = new ArrayList<>();
                final int expired = timers.poll(pollNs, (unit, now, id) ->
                {
                    assertThat(now).isEqualTo(pollNs);
                    fired.add(id);
                    if (random.nextInt(8) == 0) // a handler that reschedules, as keepalive does
                    {
                        final long deadline = pollNs + 1 + random.nextInt(500);
                        byId.put(timers.scheduleTimer(deadline), new long[]{deadline, 0});
                    }
                    return true;
                });
                assertThat(expired).isEqualTo(fired.size()).isLessThanOrEqualTo(ConductorTimers.EXPIRY_LIMIT);
                for (final long id : fired)
                {
                    final long[] entry = byId.remove(id);
                    assertThat(entry).as("timer %d fired but was not pending", id).isNotNull();
                    assertThat(entry[0]).as("fired in deadline order").isEqualTo(model.first()[0])
                        .isLessThanOrEqualTo(pollNs);
                    assertThat(model.remove(entry)).isTrue();
                    gone.add(id);
                }
                // Timers the handlers scheduled join the model now.
                byId.forEach((id, entry) ->
                {
                    if (entry[1] == 0)
                    {
                        entry[1] = id;
                        model.add(entry);
                    }
                });
                if (expired < ConductorTimers.EXPIRY_LIMIT)
                {
                    assertThat(model.isEmpty() || model.first()[0] > pollNs).as("every due timer fired").isTrue();
                }
            }
            assertThat(timers.timerCount()).isEqualTo(byId.size());
        }
    }
}
