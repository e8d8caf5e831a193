package io.rivulet.engine;

import io.rivulet.protocol.ReplyWait;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Lends a sleeping SHARED engine's duty cycle to an application thread blocked on a reply ({@code block()}), so that
 * the thread runs the cycles and sleeps in the transport itself while it waits (issue 16). The reply then wakes the
 * thread that waits for it, where it used to wake the engine, which then unparked the waiter: one wake-up per round
 * trip instead of two, and the request leaves from the caller's own cycle without waking the engine either. What an
 * {@code INVOKER} node's waiter does by design, a default node does whenever its engine would otherwise sleep.
 *
 * <p>The duty cycle has one holder at a time: the engine's thread ({@code ENGINE}), nobody while it is offered
 * ({@code LENT}) or one borrowing thread ({@code BORROWED}). Each change is a volatile write or a CAS, so whoever
 * runs the cycle next sees everything the last holder did, as with the lock of an {@code INVOKER} node.
 * <ul>
 *     <li>The engine lends only at its sleep point ({@link EngineSleep}: spins, yields and the last look found
 *     nothing) and only while a thread waits ({@link #enter}); it unparks one waiter and parks itself.</li>
 *     <li>A waiter borrows, runs cycles until its reply has come, and gives the cycle back lent, not to the engine:
 *     a caller that blocks again soon (a loop of {@code block()} calls) borrows again without waking anyone.</li>
 *     <li>A lent cycle nobody borrows goes back to the engine's thread when another thread hands the engine work
 *     ({@link #afterHandOff}), or when the engine's park ends after {@link #ENGINE_PARK_NS} at the latest. So inbound
 *     data for other connections waits at most that long after a blocking call returns, the longest park of the
 *     back-off before the engine slept in the transport.</li>
 *     <li>Closing and a failed cycle take it back for good ({@link #takeBackForClose}, {@link #runBorrowed}).</li>
 * </ul>
 *
 * <p>A borrowing thread runs whatever the cycle runs: replies and signals of other requests, and responder handlers
 * of other connections, as in an {@code INVOKER} node. An interrupt ends its wait without harm: the TCP transport's
 * channels are non-blocking, and the JDK closes a channel on an interrupt only in blocking mode.
 */
final class EngineLoan implements ReplyWait.Lender
{
    /** Waiting threads the engine may wake to borrow; more wait by parking alone. */
    static final int SLOTS = 8;
    /** The longest park of the engine's thread while its cycle is lent: how late it takes back an unused loan. */
    static final long ENGINE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(EngineSleep.SLEEP_MS);

    private static final int ENGINE = 0;
    private static final int LENT = 1;
    private static final int BORROWED = 2;

    private final AtomicInteger holder = new AtomicInteger(ENGINE);
    private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(SLOTS);
    private final AtomicInteger waiting = new AtomicInteger();
    private volatile Thread engineThread;
    private volatile Thread borrower;
    private volatile boolean closed;
    private final AtomicCounter lends;
    private Agent cycle;

    /** @param lends counts the loans ({@code NodeCounters.engineLoans}). */
    EngineLoan(final AtomicCounter lends)
    {
        this.lends = lends;
    }

    /** The engine's own thread, on its start: the one that lends and parks. */
    void engineThread(final Thread thread)
    {
        engineThread = thread;
    }

    /** @param cycle what a borrower runs: the engine's agent inside its fail-stop guard. */
    void cycle(final Agent cycle)
    {
        this.cycle = cycle;
    }

    /** @return true on the engine's own thread. */
    boolean isEngineThread()
    {
        return Thread.currentThread() == engineThread;
    }

    /** @return true while the cycle is lent or borrowed. */
    boolean isOut()
    {
        return holder.get() != ENGINE;
    }

    /** @return true while a thread waits that could borrow. */
    boolean hasWaiters()
    {
        return waiting.get() > 0 && !closed;
    }

    /**
     * The engine's thread, at its sleep point and with the sleeping flag down: lends the cycle instead of sleeping,
     * and wakes a waiter to borrow it. Either the waiter count read after the loan is up, or a waiter leaving sees
     * the loan and no-one is left holding nothing (see {@link #leave}).
     *
     * @return true when lent: the engine parks ({@link #awaitReturn}) until it has the cycle back.
     */
    boolean lend()
    {
        if (waiting.get() == 0 || closed)
        {
            return false;
        }
        holder.set(LENT);
        if (waiting.get() == 0)
        {
            return !holder.compareAndSet(LENT, ENGINE); // the waiters left meanwhile; unless one borrowed already
        }
        for (int i = 0; i < SLOTS; i++)
        {
            final Thread thread = waiters.get(i);
            if (thread != null)
            {
                LockSupport.unpark(thread);
                break;
            }
        }
        lends.incrementRelease(); // the engine's thread is its only writer
        return true;
    }

    /** The engine's thread while its cycle is out: parks, and takes back a loan nobody borrowed. */
    void awaitReturn()
    {
        LockSupport.parkNanos(ENGINE_PARK_NS);
        holder.compareAndSet(LENT, ENGINE);
    }

    /**
     * A thread handed the engine work while it was not sleeping in the transport: if the cycle is lent and nobody
     * runs it, it goes back to the engine's thread, unless the handing thread waits and will borrow it itself.
     */
    void afterHandOff()
    {
        if (holder.get() == LENT && !isWaiting(Thread.currentThread()) && holder.compareAndSet(LENT, ENGINE))
        {
            LockSupport.unpark(engineThread);
        }
    }

    private boolean isWaiting(final Thread thread)
    {
        for (int i = 0; i < SLOTS; i++)
        {
            if (waiters.get(i) == thread)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public int enter(final Thread waiter)
    {
        for (int i = 0; i < SLOTS; i++)
        {
            if (waiters.get(i) == null && waiters.compareAndSet(i, null, waiter))
            {
                waiting.getAndIncrement(); // after the slot: an engine that sees the count finds the thread
                return i;
            }
        }
        return NO_SLOT;
    }

    @Override
    public void leave(final int slot)
    {
        if (slot == NO_SLOT)
        {
            return;
        }
        waiting.getAndDecrement();
        waiters.set(slot, null);
        // A loan made for this waiter stays lent (the next block() borrows it without a wake-up); the engine's park
        // or another thread's hand-off takes it back otherwise.
    }

    @Override
    public boolean tryBorrow()
    {
        if (holder.get() == LENT && !closed && holder.compareAndSet(LENT, BORROWED))
        {
            borrower = Thread.currentThread();
            return true;
        }
        return false;
    }

    @Override
    public boolean runBorrowed()
    {
        if (closed)
        {
            return false; // the engine's thread is closing: it takes the cycle back as soon as this thread gives it
        }
        try
        {
            cycle.doWork();
            return true;
        }
        catch (final AgentTerminationException stopped)
        {
            // The engine failed in this cycle or before it (FailStop ran its failure path here or on the engine's
            // thread): no more loans; the engine's thread stops its runner, and the waiter hears of the failure from
            // its request, which the failure ended.
            closed = true;
            return false;
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void giveBack()
    {
        borrower = null;
        if (closed)
        {
            holder.set(ENGINE);
            LockSupport.unpark(engineThread);
        }
        else
        {
            holder.set(LENT);
        }
    }

    @Override
    public boolean isBorrowedByCurrentThread()
    {
        return borrower == Thread.currentThread();
    }

    /** The engine's thread, closing: no more loans, and the cycle back from a borrower (5 s at most). */
    void takeBackForClose()
    {
        closed = true;
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (holder.get() != ENGINE && !holder.compareAndSet(LENT, ENGINE) && System.nanoTime() - deadlineNs < 0)
        {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }
    }

    /** @return loans made so far. */
    long lends()
    {
        return lends.get();
    }
}
