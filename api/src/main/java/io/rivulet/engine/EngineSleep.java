package io.rivulet.engine;

import io.rivulet.counters.NodeCounters;
import io.rivulet.protocol.ReplyWait;
import io.rivulet.spi.EngineWake;
import io.rivulet.spi.TransportDriver;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The default back-off of a SHARED engine whose transport can wait for readiness (TCP's selector): after a cycle with
 * work it spins, then yields, as Agrona's {@code BackoffIdleStrategy(10, 20, ..)} does, and then, instead of parking,
 * sleeps in the transport ({@code epoll_wait}), where the kernel wakes it when data arrives and application threads
 * wake it when they hand it work ({@link EngineWake}: ring frames, stream signals, conductor commands, topic
 * messages).
 *
 * <p>Why: a timed park is never short. Linux adds its 50 µs timer slack to every one, and {@code parkNanos(1 µs)}
 * took 76 µs (p50) on the 2-vCPU machine of the benchmarks, so a parked engine noticed a message tens of µs to 1 ms
 * late: the default row's ping-pong p99 was 8× its p50 (issue 16). In the selector, data and hand-offs end the sleep
 * at once; the timeout (1 ms, the longest park before) only bounds timers.
 *
 * <p>No hand-off is missed: the engine says it is going to sleep (a volatile write), then runs one more duty cycle,
 * and sleeps only if that cycle found nothing; a handing thread fences between its hand-off and its read of the flag.
 * So either the last cycle sees the work, or the thread sees the flag and wakes the transport, and a wake-up asked
 * for before the sleep ends it at once. A hand-off without a wake-up (a path not listed above) waits at most the timeout.
 *
 * <p>The spins and yields also end once {@link #IDLE_LIMIT_NS} has passed since the first cycle that found nothing. An
 * idle cycle still visits every connection's conductor state, so its cost grows with them: with 400 idle connections
 * (the soak's SETUP-less sockets and keepalive-only clients) the 30 idle cycles after each piece of work kept the
 * server's engine busy 66-94% of the time doing nothing, which delayed everything else on a 2-vCPU machine. A cheap
 * cycle (a few connections) still spins and yields the full count within the limit.
 *
 * <p>While an application thread is blocked on a reply ({@code block()}), the engine lends it the duty cycle at the
 * sleep point instead of sleeping ({@link EngineLoan}): the waiting thread runs the cycles and sleeps in the transport
 * itself, so that the reply wakes it directly, and the engine's thread parks until the cycle is back.
 *
 * <p>An {@link Agent} around the engine's composite, run by an {@code AgentRunner} with a no-op idle strategy, because
 * the last look is a duty cycle, which an idle strategy cannot run.
 */
public final class EngineSleep implements Agent, EngineWake
{
    /** Spins after a cycle with work; the default back-off's too. */
    public static final int SPINS = 10;
    /** Yields after the spins; the default back-off's too. */
    public static final int YIELDS = 20;
    /** The longest sleep: how late a timer may fire. */
    static final long SLEEP_MS = 1;
    /** The longest the spins and yields last together, from the first cycle that found nothing. */
    static final long IDLE_LIMIT_NS = TimeUnit.MICROSECONDS.toNanos(100);

    private final Agent engine;
    private final TransportDriver driver;
    private final NanoClock clock;
    private volatile boolean sleeping;
    private int idleCycles;
    private long idleSinceNs;
    private final AtomicCounter sleeps;
    private final EngineLoan loan;

    /**
     * @param engine the engine's agents (conductor, topic sender, sender), one composite.
     * @param driver   the transport it sleeps in; {@link TransportDriver#canAwaitWork()}.
     * @param counters counts the sleeps and the loans ({@link NodeCounters#engineSleeps},
     *                 {@link NodeCounters#engineLoans}).
     */
    public EngineSleep(final Agent engine, final TransportDriver driver, final NodeCounters counters)
    {
        this(engine, driver, counters, System::nanoTime);
    }

    /**
     * @param engine the engine's agents (conductor, topic sender, sender), one composite.
     * @param driver   the transport it sleeps in; {@link TransportDriver#canAwaitWork()}.
     * @param counters counts the sleeps and the loans.
     * @param clock    times the spins and yields ({@link #IDLE_LIMIT_NS}).
     */
    EngineSleep(final Agent engine, final TransportDriver driver, final NodeCounters counters, final NanoClock clock)
    {
        if (!driver.canAwaitWork())
        {
            throw new IllegalArgumentException("the transport cannot wait for work: " + driver);
        }
        this.engine = engine;
        this.driver = driver;
        this.clock = clock;
        sleeps = counters.engineSleeps;
        loan = new EngineLoan(counters.engineLoans);
    }

    @Override
    public void onStart()
    {
        loan.engineThread(Thread.currentThread());
        engine.onStart();
    }

    @Override
    public int doWork() throws Exception
    {
        final int work = engine.doWork();
        if (work > 0)
        {
            idleCycles = 0;
            return work;
        }
        if (idleCycles < SPINS + YIELDS)
        {
            final long nowNs = clock.nanoTime();
            if (idleCycles == 0)
            {
                idleSinceNs = nowNs;
            }
            if (nowNs - idleSinceNs < IDLE_LIMIT_NS)
            {
                if (idleCycles++ < SPINS)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    Thread.yield();
                }
                return 0;
            }
            idleCycles = SPINS + YIELDS; // the cycles are slow: sleep now, and after each sleep without work
        }
        sleeping = true; // a volatile write: a full fence on the way out, before the last look reads anything
        try
        {
            final int lastLook = engine.doWork();
            if (lastLook > 0)
            {
                idleCycles = 0;
                return lastLook;
            }
            // A thread blocked on a reply sleeps in the transport instead, if one waits (EngineLoan); a borrower
            // sleeps itself.
            if (!loan.isEngineThread() || !loan.hasWaiters())
            {
                sleeps.incrementRelease(); // one writer at a time: the cycle's holder
                driver.awaitWork(SLEEP_MS);
                return 0;
            }
        }
        finally
        {
            sleeping = false;
        }
        loan.lend(); // with the flag down: the borrower raises it for its own sleep
        return 0;
    }

    /**
     * What the engine's runner runs: the guarded cycle while the engine's thread holds it, and a park while it is lent
     * or borrowed. The park is outside the guard: the guard's own look for a failure of another thread ("another
     * agent failed") would otherwise run the failure path on the engine's thread while a borrower is still in it.
     *
     * @param guarded this agent inside the fail-stop guard, as {@link #lender} gets it.
     * @return the agent for the engine's {@code AgentRunner}.
     */
    public Agent engineThread(final Agent guarded)
    {
        return new Agent()
        {
            @Override
            public void onStart()
            {
                guarded.onStart();
            }

            @Override
            public int doWork() throws Exception
            {
                if (loan.isOut() && loan.isEngineThread())
                {
                    loan.awaitReturn(); // a waiting application thread runs the cycles meanwhile
                    return 0;
                }
                return guarded.doWork();
            }

            @Override
            public void onClose()
            {
                guarded.onClose();
            }

            @Override
            public String roleName()
            {
                return guarded.roleName();
            }
        };
    }

    /**
     * Lends this engine's duty cycle to threads blocked on replies while it would sleep ({@link EngineLoan}).
     *
     * @param guarded this agent as its runner runs it (inside the fail-stop guard): what a borrower runs.
     * @return the lender for the node's {@link ReplyWait}.
     */
    public ReplyWait.Lender lender(final Agent guarded)
    {
        loan.cycle(guarded);
        return loan;
    }

    @Override
    public void afterHandOff()
    {
        // The hand-off's store (a release: the ring's commit) before the flag's load, or a producer could miss the
        // flag while the engine's last look misses its frame. About 10 ns on the handing thread, and only on nodes
        // that sleep; the others' EngineWake does nothing.
        VarHandle.fullFence();
        afterFencedHandOff();
    }

    @Override
    public void afterFencedHandOff()
    {
        if (sleeping)
        {
            driver.wakeUp();
        }
        else
        {
            loan.afterHandOff();
        }
    }

    @Override
    public void onClose()
    {
        loan.takeBackForClose();
        engine.onClose();
    }

    @Override
    public String roleName()
    {
        return engine.roleName();
    }

    /** @return loans of the duty cycle to waiting threads so far. */
    long lends()
    {
        return loan.lends();
    }

    /** @return sleeps in the transport so far. */
    long sleeps()
    {
        return sleeps.get();
    }
}
