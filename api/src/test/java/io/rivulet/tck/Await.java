package io.rivulet.tck;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded polling, with a back-off between polls (spin, then yield, then park up to a millisecond: never a pure
 * busy spin on the 2-core machines the suites run on), for a condition other threads make true, or that the test
 * thread makes true by stepping an agent between polls. Protocol behaviour driven by an injected clock does not
 * wait at all and does not use this class.
 * <p>
 * Timeouts are taken as given: a caller scales them with {@link TestTime} (as {@link #DEFAULT_TIMEOUT_NS} is), so
 * a timeout a test chose on purpose stays the one it chose. On timeout the wait fails with an
 * {@link AssertionError} naming what was awaited and, through the {@code describe} supplier, the state seen then.
 */
public final class Await
{
    /** Generous: the suites must pass on a loaded 2-core machine; scaled by {@link TestTime}. */
    public static final long DEFAULT_TIMEOUT_NS = TestTime.nanos(30, TimeUnit.SECONDS);

    private static final long MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final long MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private Await()
    {
    }

    /**
     * A condition polled by a wait; it may throw a checked exception, which the wait passes on unchanged.
     *
     * @param <E> what it may throw: inferred as a runtime exception for a lambda that throws nothing checked.
     */
    @FunctionalInterface
    public interface Condition<E extends Exception>
    {
        /** @return whether the awaited state holds. */
        boolean test() throws E;
    }

    /**
     * A value polled by a wait: {@code null} until it is there.
     *
     * @param <T> the value.
     * @param <E> what it may throw: inferred as a runtime exception for a lambda that throws nothing checked.
     */
    @FunctionalInterface
    public interface Probe<T, E extends Exception>
    {
        /** @return the value, or {@code null} while there is none yet. */
        T poll() throws E;
    }

    /**
     * One step of work the test thread does before each poll, such as one duty cycle of a driver.
     *
     * @param <E> what it may throw: inferred as a runtime exception for a lambda that throws nothing checked.
     */
    @FunctionalInterface
    public interface Step<E extends Exception>
    {
        /** @return the work done (positive resets the back-off, as for an Agrona agent's duty cycle). */
        int doWork() throws E;
    }

    /**
     * Polls until the condition holds, at most {@link #DEFAULT_TIMEOUT_NS}.
     *
     * @param what      what is awaited, for the failure message (its toString is taken only on failure).
     * @param condition polled until true.
     */
    public static void until(final Object what, final BooleanSupplier condition)
    {
        until(Duration.ofNanos(DEFAULT_TIMEOUT_NS), condition::getAsBoolean, () -> String.valueOf(what));
    }

    /**
     * Polls until the condition holds.
     *
     * @param timeout   how long at most, already scaled by the caller where it should be.
     * @param condition polled until true.
     * @param describe  what is awaited and the state seen, for the failure message: called only on failure.
     * @param <E>       what the condition may throw.
     * @throws E as the condition threw it.
     */
    public static <E extends Exception> void until(
        final Duration timeout, final Condition<E> condition, final Supplier<String> describe) throws E
    {
        final long timeoutNs = timeout.toNanos();
        final long deadlineNs = System.nanoTime() + timeoutNs;
        final IdleStrategy idle = newIdleStrategy();
        while (!condition.test())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw timedOut(timeoutNs, describe);
            }
            idle.idle();
        }
    }

    /**
     * Runs {@code step} and then polls the condition, until it holds.
     *
     * @param timeout   how long at most, already scaled by the caller where it should be.
     * @param step      the work done before each poll, on the calling thread.
     * @param condition polled after each step until true.
     * @param describe  what is awaited and the state seen, for the failure message: called only on failure.
     * @param <E>       what the step or the condition may throw.
     * @throws E as the step or the condition threw it.
     */
    public static <E extends Exception> void until(
        final Duration timeout, final Step<? extends E> step, final Condition<? extends E> condition,
        final Supplier<String> describe) throws E
    {
        final long timeoutNs = timeout.toNanos();
        final long deadlineNs = System.nanoTime() + timeoutNs;
        final IdleStrategy idle = newIdleStrategy();
        while (true)
        {
            final int work = step.doWork();
            if (condition.test())
            {
                return;
            }
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw timedOut(timeoutNs, describe);
            }
            idle.idle(work);
        }
    }

    /**
     * Polls until the probe returns a value, and returns it.
     *
     * @param timeout  how long at most, already scaled by the caller where it should be.
     * @param probe    polled until it returns non-null.
     * @param describe what is awaited and the state seen, for the failure message: called only on failure.
     * @param <T>      the value.
     * @param <E>      what the probe may throw.
     * @return the first value the probe returned.
     * @throws E as the probe threw it.
     */
    public static <T, E extends Exception> T value(
        final Duration timeout, final Probe<T, E> probe, final Supplier<String> describe) throws E
    {
        final long timeoutNs = timeout.toNanos();
        final long deadlineNs = System.nanoTime() + timeoutNs;
        final IdleStrategy idle = newIdleStrategy();
        T value;
        while (null == (value = probe.poll()))
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw timedOut(timeoutNs, describe);
            }
            idle.idle();
        }
        return value;
    }

    private static IdleStrategy newIdleStrategy()
    {
        return new BackoffIdleStrategy(100, 10, MIN_PARK_NS, MAX_PARK_NS);
    }

    private static AssertionError timedOut(final long timeoutNs, final Supplier<String> describe)
    {
        final String description = Objects.requireNonNullElse(describe.get(), "");
        return new AssertionError("timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) +
            " ms waiting until " + description);
    }
}
