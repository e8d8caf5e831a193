package io.rivulet.engine;

import org.agrona.DeadlineTimerWheel;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Not a test and not a benchmark harness: prints the wall-clock cost of an idle timer poll before and after a burst,
 * for the old wheel ({@link WheelTimersBaseline}) and the heap ({@link ConductorTimers}), as a figure for notes.
 * Nothing asserts on it. The wheel's figures include one reflective read per wheel poll (its cost counter). Run
 * from the repository root after {@code mvn test-compile} of the api module:
 *
 * <pre>
 * java -cp api/target/test-classes:api/target/classes:$AGRONA_JAR io.rivulet.engine.TimerPollMeasurement
 * </pre>
 */
public final class TimerPollMeasurement
{
    private static final int POLLS = 200_000;
    private static final int ROUNDS = 3;
    private static final DeadlineTimerWheel.TimerHandler FIRE = (unit, now, timerId) -> true;

    private TimerPollMeasurement()
    {
    }

    public static void main(final String[] args)
    {
        report("wheel (before)", () -> new WheelTimersBaseline(TimerBurst.START_NS));
        report("heap (after)", TimersUnderTest::heap);
    }

    private static void report(final String name, final Supplier<TimersUnderTest> factory)
    {
        double fresh = Double.MAX_VALUE;
        double afterBurst = Double.MAX_VALUE;
        long sink = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            final TimersUnderTest timers = factory.get();
            final TimerBurst scenario = new TimerBurst(timers);
            fresh = Math.min(fresh, nanosPerIdlePoll(timers, scenario.nowNs()));
            scenario.burst();
            afterBurst = Math.min(afterBurst, nanosPerIdlePoll(timers, scenario.nowNs() + 1));
            sink += timers.pollWork();
        }
        System.out.printf("%-16s idle poll with %d live timers: %8.1f ns fresh, %8.1f ns after a burst of %d " +
            "(best of %d rounds of %,d polls; work %d)%n", name, TimerBurst.LIVE_TIMERS, fresh, afterBurst,
            TimerBurst.BURST, ROUNDS, POLLS, sink);
    }

    private static double nanosPerIdlePoll(final TimersUnderTest timers, final long fromNs)
    {
        long nowNs = fromNs;
        int fired = 0;
        final long start = System.nanoTime();
        for (int i = 0; i < POLLS; i++)
        {
            nowNs += TimerBurst.IDLE_CYCLE_NS / 100; // 1 µs cycles: a spinning conductor
            fired += timers.poll(nowNs, FIRE);
        }
        final long elapsed = System.nanoTime() - start;
        if (fired != 0)
        {
            throw new IllegalStateException("a live timer fired");
        }
        return elapsed / (double)POLLS;
    }
}
