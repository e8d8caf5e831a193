package io.rivulet.protocol;

import io.rivulet.Message;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * How an application thread waits in {@code block()} for the reply of a request-response
 * ({@code rivulet.replyIdleStrategy}), as Aeron's callers wait in {@code poll} with an {@link IdleStrategy} of their
 * choice instead of always parking (issue 16). Between looks at the reply the thread runs the idle strategy; in
 * {@code INVOKER} mode it runs the engine's duty cycle instead (when no other thread is running it) and polls without
 * parking, since no engine thread would wake it, so that a caller that drives its own node can block without a second
 * thread.
 *
 * <p>On a SHARED node with the default back-off on TCP, a thread whose strategy may park also borrows the engine's
 * duty cycle whenever the engine would otherwise sleep ({@link Lender}, {@code rivulet.replyWaitRunsEngine}): it
 * then sleeps in the transport itself, and its reply wakes it directly.
 *
 * <p>Only a strategy that may park costs the engine anything: the engine then unparks the waiter when the reply
 * arrives (a waiter that is still spinning is not parked, and the unpark only leaves it a permit). A strategy that
 * never parks (busy spin, yield) costs the engine one volatile write.
 *
 * <p>The same waits serve a producer waiting for room in a connection's outbound ring ({@code offer} and
 * {@code tryClaim} with a timeout): there the sender wakes a parked waiter ({@link RoomWaiters}).
 *
 * <p>Idle strategies keep state, so each thread has its own, made by the supplier on its first wait.
 */
public final class ReplyWait
{
    /** Runs one duty cycle of an INVOKER node for a waiting caller. */
    public interface DutyCycle
    {
        /**
         * @return the work done, or 0 when another thread is running the duty cycle.
         * @throws IllegalStateException when called from inside the duty cycle, where waiting would never end.
         */
        int tryInvoke();
    }

    /**
     * A SHARED engine that lends its duty cycle to threads blocked on replies while it would otherwise sleep
     * ({@code engine.EngineLoan}): a borrowing thread runs the cycles and sleeps in the transport itself, so that its
     * reply wakes it directly instead of waking the engine, which would then unpark it.
     */
    public interface Lender
    {
        /**
         * Any thread, before its request goes out: waits from now on, and may be woken to borrow.
         *
         * @return the slot to give back to {@link #leave}, or {@link #NO_SLOT} when every slot is taken (the thread
         * then only parks).
         */
        int enter(Thread waiter);

        /** The waiter of {@code slot} no longer waits. */
        void leave(int slot);

        /** @return true when the calling thread now holds the engine's duty cycle, until {@link #giveBack}. */
        boolean tryBorrow();

        /**
         * The borrowing thread runs one duty cycle (it may sleep in the transport, 1 ms at most).
         *
         * @return false once the engine stopped lending (it failed or is closing): the thread gives the cycle back and
         * only waits.
         */
        boolean runBorrowed();

        /** The borrowing thread gives the duty cycle back. */
        void giveBack();

        /** @return true when the calling thread holds the engine's duty cycle. */
        boolean isBorrowedByCurrentThread();

        /** No slot: the waiter only parks. */
        int NO_SLOT = -1;
    }

    /** Parks at once until the engine unparks it: what Reactor's own {@code block()} does. */
    public static final IdleStrategy PARK_STRATEGY = new SpinThenParkIdleStrategy(0);
    /** Waits with {@link #PARK_STRATEGY}. */
    public static final ReplyWait PARK = new ReplyWait(() -> PARK_STRATEGY, null, null);

    private static final int REPLIED = 0;
    private static final int INTERRUPTED = 1;
    private static final int TIMED_OUT = 2;

    /** The longest park of a room wait with a slot: the sender's wake-up or the close's ends it sooner. */
    private static final long MAX_ROOM_PARK_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The park of a room wait without a slot, which only time ends. */
    private static final long ROOM_POLL_NS = TimeUnit.MICROSECONDS.toNanos(50);

    private final ThreadLocal<IdleStrategy> idleStrategies;
    private final boolean mayPark;
    private final DutyCycle dutyCycle;
    private final Lender lender;

    /**
     * @param idleStrategies makes each waiting thread's idle strategy.
     * @param dutyCycle      the INVOKER node's duty cycle, null in the other modes.
     * @param lender         the SHARED engine that lends its duty cycle to waiters, or null.
     */
    public ReplyWait(final Supplier<IdleStrategy> idleStrategies, final DutyCycle dutyCycle, final Lender lender)
    {
        this.lender = lender;
        final IdleStrategy sample = idleStrategies.get();
        this.mayPark = !(sample instanceof BusySpinIdleStrategy || sample instanceof NoOpIdleStrategy ||
            sample instanceof YieldingIdleStrategy);
        this.idleStrategies = ThreadLocal.withInitial(idleStrategies);
        this.dutyCycle = dutyCycle;
    }

    /**
     * Subscribes to the reply and waits for it on this thread.
     *
     * @param reply     the request-response.
     * @param timeout   how long at most; null for no limit.
     * @return the reply, or null when it completed empty.
     */
    Message await(final RequestResponseMono reply, final Duration timeout)
    {
        if (Schedulers.isInNonBlockingThread())
        {
            throw new IllegalStateException("block()/blockFirst()/blockLast() are blocking, which is not supported " +
                "in thread " + Thread.currentThread().getName());
        }
        final Waiter waiter = new Waiter(mayPark ? Thread.currentThread() : null);
        final boolean borrows = lender != null && mayPark;
        if (borrows && lender.isBorrowedByCurrentThread())
        {
            throw new IllegalStateException("block() inside the engine's duty cycle would never return: the reply " +
                "waited for comes from this cycle; subscribe instead");
        }
        // In before the request goes out, so that its hand-off leaves a lent engine to this thread.
        final int slot = borrows ? lender.enter(Thread.currentThread()) : Lender.NO_SLOT;
        int ended = REPLIED;
        try
        {
            reply.subscribe(waiter);
            if (!waiter.done)
            {
                ended = wait(waiter, timeout, slot);
            }
        }
        finally
        {
            if (borrows)
            {
                lender.leave(slot);
            }
        }
        if (ended != REPLIED)
        {
            // Out of the slot first: the CANCEL's hand-off then gives a loan nobody runs back to the engine at once.
            waiter.cancel();
            throw ended == INTERRUPTED ? Exceptions.propagate(new InterruptedException()) :
                new IllegalStateException("Timeout on blocking read for " + timeout.toNanos() + " NANOSECONDS");
        }
        final Throwable error = waiter.error;
        if (error != null)
        {
            // Thrown as it is, without a suppressed marker: a connection's close cause is one instance that every
            // request on it ends with, and would collect one per call.
            throw Exceptions.propagate(error);
        }
        return waiter.value;
    }

    /**
     * Waits until the reply has come, the thread was interrupted or the timeout passed. Between looks: on an INVOKER
     * node it runs the duty cycle; on a node whose engine lends its cycle, it runs the cycles while they are lent to
     * it (its sleep in the transport then ends on the reply itself); otherwise, and while the engine runs them, it
     * idles with its strategy, which the engine ends with the reply or with a loan.
     *
     * @param slot the waiter's slot with the lender, {@link Lender#NO_SLOT} when it has none (it never borrows).
     * @return {@link #REPLIED}, {@link #INTERRUPTED} or {@link #TIMED_OUT}; the caller cancels after leaving its slot.
     */
    private int wait(final Waiter waiter, final Duration timeout, final int slot)
    {
        final long deadlineNs = timeout == null ? 0 : System.nanoTime() + timeout.toNanos();
        final IdleStrategy idle = idleStrategies.get();
        idle.reset();
        int looks = 0;
        while (!waiter.done)
        {
            if (dutyCycle != null)
            {
                // The waiter runs the engine and reads the reply itself: it polls, as the engine would when busy,
                // and does not park (a park woke tens of µs late: 8,700 block() calls/s against 71,000 through a
                // concatMap chain on an INVOKER node, issue 16).
                dutyCycle.tryInvoke();
                Thread.onSpinWait();
            }
            else if (slot != Lender.NO_SLOT && lender.tryBorrow())
            {
                try
                {
                    while (!waiter.done && !Thread.currentThread().isInterrupted() &&
                        (timeout == null || System.nanoTime() - deadlineNs < 0) && lender.runBorrowed())
                    {
                        Thread.onSpinWait(); // the cycle itself spins, yields and sleeps as the engine would
                    }
                }
                finally
                {
                    lender.giveBack();
                }
            }
            else if (idle instanceof SpinThenParkIdleStrategy)
            {
                ((SpinThenParkIdleStrategy)idle).idle(0, timeout == null ? Long.MAX_VALUE :
                    deadlineNs - System.nanoTime());
            }
            else
            {
                idle.idle();
            }
            if (Thread.interrupted())
            {
                return INTERRUPTED;
            }
            if (timeout != null && ((++looks & 0x3F) == 0 || mayPark) && System.nanoTime() - deadlineNs >= 0 &&
                !waiter.done)
            {
                return TIMED_OUT;
            }
        }
        return REPLIED;
    }

    /**
     * Starts a wait for room in a connection's outbound ring ({@code offer} and {@code tryClaim} with a timeout), to
     * be followed by one more try of the ring, then {@link #awaitRoom} and the next try, and ended by
     * {@link RoomWaiters#leave}. A thread that may park takes a slot the sender wakes; the other waits need none.
     *
     * @return the slot to pass on.
     */
    int enterRoomWait(final RoomWaiters waiters)
    {
        return mayPark && dutyCycle == null ? waiters.enter(Thread.currentThread()) : RoomWaiters.NO_SLOT;
    }

    /**
     * Waits a little for room, the ring having been full at the last try: until the sender wakes this thread (or an
     * INVOKER node's duty cycle has run once, or the idle strategy has idled once).
     *
     * @return false when the deadline has passed.
     */
    boolean awaitRoom(final int slot, final long deadlineNs)
    {
        final long remainingNs = deadlineNs - System.nanoTime();
        if (remainingNs <= 0)
        {
            return false;
        }
        if (dutyCycle != null)
        {
            dutyCycle.tryInvoke();
            Thread.onSpinWait();
        }
        else if (mayPark)
        {
            // With a slot the sender's wake-up ends the park; without one (every slot taken) only time does.
            LockSupport.parkNanos(Math.min(remainingNs, slot == RoomWaiters.NO_SLOT ? ROOM_POLL_NS : MAX_ROOM_PARK_NS));
        }
        else
        {
            idleStrategies.get().idle();
        }
        if (Thread.interrupted())
        {
            throw Exceptions.propagate(new InterruptedException());
        }
        return true;
    }

    @Override
    public String toString()
    {
        return "ReplyWait{" + idleStrategies.get() + (dutyCycle == null ? "" : ", runs the duty cycle") +
            (lender == null ? "" : ", borrows the sleeping engine's duty cycle") + "}";
    }

    /** The one subscriber of a blocking wait: the engine's thread completes it, the waiting thread reads it. */
    private static final class Waiter implements CoreSubscriber<Message>
    {
        /** The thread to unpark on completion, null when the wait never parks. */
        private final Thread thread;
        private volatile Subscription subscription;
        private Message value;
        private Throwable error;
        private volatile boolean done;

        Waiter(final Thread thread)
        {
            this.thread = thread;
        }

        @Override
        public void onSubscribe(final Subscription s)
        {
            if (Operators.validate(subscription, s))
            {
                subscription = s;
                s.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(final Message message)
        {
            value = message;
        }

        @Override
        public void onError(final Throwable throwable)
        {
            error = throwable;
            finish();
        }

        @Override
        public void onComplete()
        {
            finish();
        }

        private void finish()
        {
            done = true;
            if (thread != null && thread != Thread.currentThread())
            {
                LockSupport.unpark(thread);
            }
        }

        void cancel()
        {
            final Subscription s = subscription;
            if (s != null)
            {
                s.cancel();
            }
        }
    }

    /**
     * Spins a number of times, then parks until the engine unparks it. The park is long (100 ms, or what is left of
     * a timeout) rather than a back-off of short ones: the engine's unpark ends it either way, and on this kind of
     * machine a thread parked with a short timeout woke about 13 µs later than one parked with a long one
     * (ping-pong p50 33 µs against 20 µs for Reactor's untimed park, issue 16).
     */
    public static final class SpinThenParkIdleStrategy implements IdleStrategy
    {
        private static final long MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(100);

        private final int spins;
        private int spun;

        /** @param spins looks at the reply before parking (0: park at once). */
        public SpinThenParkIdleStrategy(final int spins)
        {
            this.spins = spins;
        }

        @Override
        public void idle(final int workCount)
        {
            idle(workCount, MAX_PARK_NS);
        }

        /** Idles, parking at most {@code maxParkNs}. */
        void idle(final int workCount, final long maxParkNs)
        {
            if (workCount > 0)
            {
                spun = 0;
            }
            else if (spun < spins)
            {
                spun++;
                Thread.onSpinWait();
            }
            else if (maxParkNs > 0)
            {
                LockSupport.parkNanos(Math.min(maxParkNs, MAX_PARK_NS));
            }
        }

        @Override
        public void idle()
        {
            idle(0);
        }

        @Override
        public void reset()
        {
            spun = 0;
        }

        @Override
        public String alias()
        {
            return spins == 0 ? "park" : "backoff";
        }

        @Override
        public String toString()
        {
            return "SpinThenParkIdleStrategy{spins=" + spins + "}";
        }
    }
}
