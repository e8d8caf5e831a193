package io.rivulet.engine;

import io.rivulet.counters.NodeCounters;
import io.rivulet.protocol.ReplyWait;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sleeping SHARED engine lends its duty cycle to a thread blocked on a reply (EngineLoan): only at its sleep point
 * and only while a thread waits; the borrower runs the cycles and sleeps in the transport itself; the loan stays lent
 * after the wait, for the caller's next one, until another thread's hand-off, the engine's bounded park or the close
 * takes it back; a failed cycle ends the lending. The test's thread is the engine's; a second thread is the caller.
 */
class EngineLoanTest
{
    private final FakeSleepDriver driver = new FakeSleepDriver();
    private final ScriptedEngine engine = new ScriptedEngine();
    /** A still clock: the spins and yields run their full count, never cut short by time. */
    private final EngineSleep sleep = new EngineSleep(engine, driver, new NodeCounters(), () -> 1_000_000_000L);
    /** What the engine's runner runs (no fail-stop guard here, except in the test of the guard). */
    private final Agent engineThread = sleep.engineThread(sleep);
    private final ExecutorService callerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller"));
    private Thread caller;

    @BeforeEach
    void start() throws Exception
    {
        sleep.onStart(); // on this thread: the engine's
        caller = onCaller(Thread::currentThread);
    }

    @AfterEach
    void stop()
    {
        callerThread.shutdownNow();
    }

    @Test
    void shouldSleepInTheTransportWhenNoThreadWaits() throws Exception
    {
        sleep.lender(sleep);
        idleToTheSleepPoint();

        assertThat(driver.waits).hasSize(1);
        assertThat(sleep.lends()).isZero();
    }

    @Test
    void shouldLendTheCycleAtTheSleepPointToAWaitingThreadWhichRunsItAndSleepsInTheTransport() throws Exception
    {
        final ReplyWait.Lender lender = sleep.lender(sleep);
        final int slot = lender.enter(caller);
        assertThat(slot).isNotEqualTo(ReplyWait.Lender.NO_SLOT);

        idleToTheSleepPoint();
        assertThat(driver.waits).as("lent instead of sleeping").isEmpty();
        assertThat(sleep.lends()).isEqualTo(1);

        final int cyclesBefore = engine.cycles;
        assertThat(onCaller(() -> lender.tryBorrow() && lender.isBorrowedByCurrentThread())).isTrue();
        assertThat(lender.isBorrowedByCurrentThread()).isFalse();
        assertThat(onCaller(lender::runBorrowed)).isTrue();
        assertThat(engine.cycles).as("the caller ran the idle cycle and the last look").isEqualTo(cyclesBefore + 2);
        assertThat(driver.waits).as("and slept in the transport itself").hasSize(1);

        assertThat(engineThread.doWork()).isZero();
        assertThat(engine.cycles).as("the engine runs no cycle while it is borrowed").isEqualTo(cyclesBefore + 2);
        engine.work(5);
        assertThat(onCaller(lender::runBorrowed)).isTrue();
        assertThat(engine.cycles).isEqualTo(cyclesBefore + 3);

        onCaller(() ->
        {
            lender.giveBack();
            lender.leave(slot);
            return null;
        });
        assertThat(engineThread.doWork()).as("a loan nobody runs: the engine's park ends and takes it back").isZero();
        assertThat(engine.cycles).isEqualTo(cyclesBefore + 3);
        engineThread.doWork();
        assertThat(engine.cycles).as("the engine runs its cycles again").isEqualTo(cyclesBefore + 4);
    }

    @Test
    void shouldLeaveTheLoanLentAfterTheWaitSoTheCallersNextWaitBorrowsWithoutWakingTheEngine() throws Exception
    {
        final ReplyWait.Lender lender = borrowedByTheCaller();
        onCaller(() ->
        {
            lender.giveBack();
            return null;
        });

        assertThat(onCaller(() ->
        {
            final int slot = lender.enter(caller);
            sleep.afterHandOff(); // the caller's own request, handed off before its wait
            final boolean borrowed = lender.tryBorrow();
            lender.giveBack();
            lender.leave(slot);
            return borrowed;
        })).as("a waiter's own hand-off leaves the loan to it").isTrue();
        assertThat(sleep.lends()).as("no second loan was needed").isEqualTo(1);
    }

    @Test
    void shouldGiveALoanNobodyRunsBackToTheEngineWhenAnotherThreadHandsItWork() throws Exception
    {
        final ReplyWait.Lender lender = borrowedByTheCaller();
        onCaller(() ->
        {
            lender.giveBack();
            return null;
        });

        onCaller(() ->
        {
            sleep.afterHandOff(); // not waiting any more: a hand-off like any other thread's
            return null;
        });

        assertThat(onCaller(lender::tryBorrow)).as("back with the engine").isFalse();
        final int cyclesBefore = engine.cycles;
        engine.work(1);
        assertThat(engineThread.doWork()).as("the engine runs at once").isEqualTo(1);
        assertThat(engine.cycles).isEqualTo(cyclesBefore + 1);
    }

    @Test
    void shouldTakeTheLoanBackOnCloseAndLendNoMore() throws Exception
    {
        final ReplyWait.Lender lender = sleep.lender(sleep);
        lender.enter(caller);
        idleToTheSleepPoint();
        assertThat(sleep.lends()).isEqualTo(1);

        sleep.onClose();

        assertThat(onCaller(lender::tryBorrow)).isFalse();
        engineThread.doWork();
        engineThread.doWork();
        assertThat(driver.waits).as("sleeps in the transport: a waiter is there, but the engine is closing")
            .isNotEmpty();
        assertThat(sleep.lends()).isEqualTo(1);
    }

    @Test
    void shouldStopTheBorrowerAtItsNextCycleWhenTheEngineCloses() throws Exception
    {
        final ReplyWait.Lender lender = borrowedByTheCaller();
        final CompletableFuture<Void> closing = CompletableFuture.runAsync(engineThread::onClose);

        onCaller(() ->
        {
            // The borrower's loop: its reply never comes here, so only the close can end it (within one cycle).
            while (lender.runBorrowed())
            {
                Thread.onSpinWait();
            }
            lender.giveBack();
            return null;
        });

        closing.get(4, TimeUnit.SECONDS); // the engine's thread has the cycle back, before the 5 s of a stuck borrower
        assertThat(onCaller(lender::tryBorrow)).isFalse();
    }

    @Test
    void shouldStopLendingWhenTheEngineFailsInABorrowedCycle() throws Exception
    {
        final Agent failing = new Agent()
        {
            @Override
            public int doWork()
            {
                throw new AgentTerminationException("the engine failed");
            }

            @Override
            public String roleName()
            {
                return "guard";
            }
        };
        final ReplyWait.Lender lender = sleep.lender(failing);
        final int slot = lender.enter(caller);
        idleToTheSleepPoint();

        assertThat(onCaller(() ->
        {
            lender.tryBorrow();
            final boolean goesOn = lender.runBorrowed(); // the failure is the engine's to report, not the waiter's
            lender.giveBack();
            return goesOn;
        })).as("the borrower stops running cycles").isFalse();

        final int cyclesBefore = engine.cycles;
        engineThread.doWork();
        assertThat(engine.cycles).as("back with the engine's thread at once (its idle cycle and last look), whose " +
            "guard then stops its runner").isEqualTo(cyclesBefore + 2);
        assertThat(driver.waits).as("no loan: a sleep in the transport").hasSize(1);
        assertThat(onCaller(lender::tryBorrow)).isFalse();
        assertThat(sleep.lends()).as("a waiter is still there, but no more loans").isEqualTo(1);
        lender.leave(slot);
    }

    @Test
    void shouldKeepTheEnginesThreadOutOfTheGuardedCycleWhileACallerBorrowsIt() throws Exception
    {
        // The fail-stop guard looks for another thread's failure before it runs the cycle, and runs the failure path
        // where it sees one: on the engine's thread it did so while the borrower that failed was still recording the
        // cause (a CI run's EngineFailureTest saw the fallback failure instead of the cause).
        final List<String> entered = new CopyOnWriteArrayList<>();
        final Agent guard = new Agent()
        {
            @Override
            public int doWork() throws Exception
            {
                entered.add(Thread.currentThread().getName());
                return sleep.doWork();
            }

            @Override
            public String roleName()
            {
                return "guard";
            }
        };
        final Agent runner = sleep.engineThread(guard);
        final ReplyWait.Lender lender = sleep.lender(guard);
        final int slot = lender.enter(caller);
        for (int i = 0; i <= EngineSleep.SPINS + EngineSleep.YIELDS; i++)
        {
            runner.doWork();
        }
        assertThat(sleep.lends()).isEqualTo(1);
        final String engineThreadName = Thread.currentThread().getName();
        assertThat(entered).hasSize(EngineSleep.SPINS + EngineSleep.YIELDS + 1).containsOnly(engineThreadName);
        assertThat(onCaller(lender::tryBorrow)).isTrue();
        entered.clear();

        for (int i = 0; i < 3; i++)
        {
            assertThat(runner.doWork()).as("the engine's park ends, the cycle is still borrowed").isZero();
        }
        assertThat(onCaller(lender::runBorrowed)).isTrue();

        assertThat(entered).as("only the borrower entered the guard").containsExactly("caller");
        onCaller(() ->
        {
            lender.leave(slot);
            lender.giveBack();
            return null;
        });
        runner.doWork(); // the lent cycle nobody runs: the park ends and takes it back
        runner.doWork();
        assertThat(entered).as("back with the engine's thread").containsExactly("caller", engineThreadName);
    }

    @Test
    void shouldKeepEightWaitersInSlotsAndLetMoreOnlyPark()
    {
        final ReplyWait.Lender lender = sleep.lender(sleep);
        for (int i = 0; i < EngineLoan.SLOTS; i++)
        {
            assertThat(lender.enter(caller)).isEqualTo(i);
        }
        assertThat(lender.enter(caller)).isEqualTo(ReplyWait.Lender.NO_SLOT);
        lender.leave(3);
        assertThat(lender.enter(caller)).isEqualTo(3);
    }

    private ReplyWait.Lender borrowedByTheCaller() throws Exception
    {
        final ReplyWait.Lender lender = sleep.lender(sleep);
        final int slot = lender.enter(caller);
        idleToTheSleepPoint();
        assertThat(onCaller(lender::tryBorrow)).isTrue();
        lender.leave(slot);
        return lender;
    }

    private void idleToTheSleepPoint() throws Exception
    {
        for (int i = 0; i <= EngineSleep.SPINS + EngineSleep.YIELDS; i++)
        {
            engineThread.doWork();
        }
    }

    private <T> T onCaller(final Callable<T> step) throws Exception
    {
        return callerThread.submit(step).get(10, TimeUnit.SECONDS);
    }
}
