package io.rivulet.engine;

import io.rivulet.spi.EngineWake;
import io.rivulet.spi.TransportDriver;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The default back-off of a SHARED engine whose transport can wait for readiness (TCP's selector): after a cycle with
 * work it yields for up to {@link #YIELDS} idle cycles, and then, instead of parking, sleeps in the transport
 * ({@code epoll_wait}), where the kernel wakes it when data arrives and application threads wake it when they hand it
 * work ({@link EngineWake}: ring frames, stream signals, conductor commands, topic messages).
 *
 * <p>It yields from the first idle cycle, without the spins of Agrona's {@code BackoffIdleStrategy(10, 20, ..)}: on a
 * machine with fewer cores than busy threads the thread this engine just handed work to (the caller its reply
 * unparked, the peer engine that shares its core) runs at once instead of after ten more cycles. The benchmark's
 * default row (two nodes and a parked caller on 2 vCPUs) showed both engines sharing one core and handing over by
 * yields; its ping-pong p50 fell from 37 to 22 µs (medians of 8 interleaved pairs). A yield with nothing else to run
 * returns at once, so an engine with a core of its own loses only the system call.
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
 * <p>The yields also end once {@link #IDLE_LIMIT_NS} has passed since the first cycle that found nothing. An
 * idle cycle still visits every connection's conductor state, so its cost grows with them: with 400 idle connections
 * (the soak's SETUP-less sockets and keepalive-only clients) the 30 idle cycles after each piece of work kept the
 * server's engine busy 66-94% of the time doing nothing, which delayed everything else on a 2-vCPU machine. A cheap
 * cycle (a few connections) still yields the full count within the limit.
 *
 * <p>An {@link Agent} around the engine's composite, run by an {@code AgentRunner} with a no-op idle strategy, because
 * the last look is a duty cycle, which an idle strategy cannot run.
 */
public final class EngineSleep implements Agent, EngineWake
{
    /** Idle cycles that yield before the engine sleeps: the count of the default back-off's spins and yields. */
    static final int YIELDS = 30;
    /** The longest sleep: how late a timer may fire. */
    static final long SLEEP_MS = 1;
    /** The longest the yields last together, from the first cycle that found nothing. */
    static final long IDLE_LIMIT_NS = TimeUnit.MICROSECONDS.toNanos(100);

    private final Agent engine;
    private final TransportDriver driver;
    private final NanoClock clock;
    private volatile boolean sleeping;
    private int idleCycles;
    private long idleSinceNs;
    private long sleeps;

    /**
     * @param engine the engine's agents (conductor, topic sender, sender), one composite.
     * @param driver the transport it sleeps in; {@link TransportDriver#canAwaitWork()}.
     */
    public EngineSleep(final Agent engine, final TransportDriver driver)
    {
        this(engine, driver, System::nanoTime);
    }

    /**
     * @param engine the engine's agents (conductor, topic sender, sender), one composite.
     * @param driver the transport it sleeps in; {@link TransportDriver#canAwaitWork()}.
     * @param clock  times the yields ({@link #IDLE_LIMIT_NS}).
     */
    EngineSleep(final Agent engine, final TransportDriver driver, final NanoClock clock)
    {
        if (!driver.canAwaitWork())
        {
            throw new IllegalArgumentException("the transport cannot wait for work: " + driver);
        }
        this.engine = engine;
        this.driver = driver;
        this.clock = clock;
    }

    @Override
    public void onStart()
    {
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
        if (idleCycles < YIELDS)
        {
            final long nowNs = clock.nanoTime();
            if (idleCycles == 0)
            {
                idleSinceNs = nowNs;
            }
            if (nowNs - idleSinceNs < IDLE_LIMIT_NS)
            {
                idleCycles++;
                Thread.yield();
                return 0;
            }
            idleCycles = YIELDS; // the cycles are slow: sleep now, and after each sleep without work
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
            sleeps++;
            driver.awaitWork(SLEEP_MS);
            return 0;
        }
        finally
        {
            sleeping = false;
        }
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
    }

    @Override
    public void onClose()
    {
        engine.onClose();
    }

    @Override
    public String roleName()
    {
        return engine.roleName();
    }

    /** @return sleeps in the transport so far (engine thread; tests). */
    long sleeps()
    {
        return sleeps;
    }
}
