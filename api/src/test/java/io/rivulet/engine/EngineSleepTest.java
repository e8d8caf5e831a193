package io.rivulet.engine;

import io.rivulet.counters.NodeCounters;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The default back-off of a SHARED engine on a transport that can wait for readiness: spins, yields, then one last
 * duty cycle with the sleeping flag up, and only then a sleep in the transport; hand-offs wake it only while the flag
 * is up, and once the cycles are slow, the spins and yields end at a time limit. The engine and the transport are
 * fakes that record what the sleep did; the clock is the test's.
 */
class EngineSleepTest
{
    private final FakeSleepDriver driver = new FakeSleepDriver();
    private final ScriptedEngine engine = new ScriptedEngine();
    /** The sleep's clock: still unless a test makes the engine's cycles take time. */
    private long nowNs = TimeUnit.SECONDS.toNanos(1);
    private final EngineSleep sleep = new EngineSleep(engine, driver, new NodeCounters(), () -> nowNs);

    @Test
    void shouldSpinAndYieldBeforeItsFirstSleep() throws Exception
    {
        engine.work(1);
        assertThat(sleep.doWork()).isEqualTo(1);
        for (int i = 0; i < EngineSleep.SPINS + EngineSleep.YIELDS; i++)
        {
            assertThat(sleep.doWork()).isZero();
        }
        assertThat(driver.waits).as("no sleep during the spins and yields").isEmpty();
        assertThat(engine.cycles).isEqualTo(1 + EngineSleep.SPINS + EngineSleep.YIELDS);

        assertThat(sleep.doWork()).isZero();

        assertThat(engine.cycles).as("the idle cycle and the last look").isEqualTo(3 + EngineSleep.SPINS +
            EngineSleep.YIELDS);
        assertThat(driver.waits).containsExactly(EngineSleep.SLEEP_MS);
        assertThat(sleep.sleeps()).isEqualTo(1);
    }

    @Test
    void shouldCutTheSpinsAndYieldsShortWhenTheCyclesAreSlow() throws Exception
    {
        final long cycleNs = TimeUnit.MICROSECONDS.toNanos(40); // a cycle over some 400 idle connections
        engine.onCycle(() -> nowNs += cycleNs);
        engine.work(1);
        assertThat(sleep.doWork()).isEqualTo(1);

        final long idleCyclesInTheLimit = (EngineSleep.IDLE_LIMIT_NS + cycleNs - 1) / cycleNs;
        for (int i = 0; i < idleCyclesInTheLimit; i++)
        {
            assertThat(sleep.doWork()).isZero();
        }
        assertThat(driver.waits).as("spinning and yielding until the limit has passed").isEmpty();

        sleep.doWork();
        assertThat(driver.waits).as("asleep long before the count of spins and yields").hasSize(1);
        assertThat(engine.cycles).as("the work, the idle cycles and the last look")
            .isEqualTo(1 + idleCyclesInTheLimit + 2).isLessThan(1 + EngineSleep.SPINS + EngineSleep.YIELDS);

        sleep.doWork();
        assertThat(driver.waits).as("and again after a sleep that brought nothing").hasSize(2);

        engine.work(1);
        sleep.doWork();
        sleep.doWork();
        assertThat(driver.waits).as("work starts the spins over").hasSize(2);
    }

    @Test
    void shouldNotSleepWhenTheLastLookFindsWorkAndStartOverAfterIt() throws Exception
    {
        idleUntilSleeping();
        final int sleepsBefore = driver.waits.size();
        engine.work(0, 3); // the idle cycle finds nothing, the last look finds 3

        assertThat(sleep.doWork()).isEqualTo(3);

        assertThat(driver.waits).as("no sleep after work").hasSize(sleepsBefore);
        assertThat(sleep.doWork()).isZero();
        assertThat(driver.waits).as("spinning again, not sleeping").hasSize(sleepsBefore);
    }

    @Test
    void shouldWakeTheTransportOnlyForAHandOffWhileTheFlagIsUp() throws Exception
    {
        sleep.afterHandOff();
        assertThat(driver.wakeUps).as("awake: nothing to wake").isZero();

        idleUntilSleeping();
        engine.onCycle(sleep::afterHandOff); // a producer hands work over during the last look
        sleep.doWork();
        assertThat(driver.wakeUps).as("the flag was up during the last look").isEqualTo(1);

        engine.onCycle(null);
        sleep.afterHandOff();
        assertThat(driver.wakeUps).as("the flag is down once the sleep ended").isEqualTo(1);
    }

    @Test
    void shouldWakeTheTransportForAFencedHandOffOnlyWhileTheFlagIsUp() throws Exception
    {
        sleep.afterFencedHandOff();
        assertThat(driver.wakeUps).as("awake: nothing to wake").isZero();

        idleUntilSleeping();
        engine.onCycle(sleep::afterFencedHandOff); // a ring commit that fenced for the sender's readiness too
        sleep.doWork();
        assertThat(driver.wakeUps).as("the flag was up during the last look").isEqualTo(1);
    }

    @Test
    void shouldStaySleepyAfterASleepWithoutWork() throws Exception
    {
        idleUntilSleeping();
        final int sleepsBefore = driver.waits.size();
        sleep.doWork();
        sleep.doWork();
        assertThat(driver.waits).as("each idle cycle sleeps again").hasSize(sleepsBefore + 2);
    }

    @Test
    void shouldRefuseATransportThatCannotWait()
    {
        final FakeSleepDriver cannot = new FakeSleepDriver();
        cannot.canWait = false;
        assertThatThrownBy(() -> new EngineSleep(engine, cannot, new NodeCounters())).isInstanceOf(IllegalArgumentException.class);
    }

    private void idleUntilSleeping() throws Exception
    {
        for (int i = 0; i <= EngineSleep.SPINS + EngineSleep.YIELDS; i++)
        {
            sleep.doWork();
        }
        assertThat(driver.waits).isNotEmpty();
    }
}
