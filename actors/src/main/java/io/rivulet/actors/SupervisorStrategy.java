package io.rivulet.actors;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What an actor does when its behaviour throws (from {@link Behavior#onMessage}, {@link Behavior#onSignal} or
 * a {@link Behaviors#setup} factory). Every failure is counted ({@link ActorCounters#failures},
 * {@link ActorStats#failures()}) and reported to the system's error handler as an {@link ActorFailedException}
 * naming the actor and the decision; an ask whose message failed gets that exception as its error. The failing
 * message itself is dropped, never retried.
 *
 * <ul>
 *   <li>{@link #restart()}: the actor goes back to the behaviour it was spawned with, so its state is reset:
 *   state held in behaviours (closures, {@link Behaviors#withState}) starts again from the initial value and
 *   {@link Behaviors#setup} factories run again. The old behaviour first gets {@link PreRestart}; watches made
 *   with {@link ActorContext#watch} are dropped (a setup factory makes them again). The mailbox is kept: the
 *   messages behind the failing one are processed by the new behaviour, and so are results the old one piped
 *   with {@link ActorContext#pipeToSelf}. With a back-off the actor pauses
 *   before restarting: {@code min(maxBackoff, minBackoff * 2^(k-1))} for the k-th restart within the window,
 *   while messages keep queueing under the mailbox's policy. More than {@code maxRestarts} restarts within
 *   the window stop the actor instead, with {@link Terminated.Reason#FAILED}.</li>
 *   <li>{@link #stop()}: the actor stops ({@link PostStop}, watchers get {@link Terminated.Reason#FAILED}).</li>
 *   <li>{@link #resume()}: the actor keeps its behaviour and state and goes on with the next message.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class SupervisorStrategy
{
    /** The decision a strategy takes on a failure. */
    public enum Kind
    {
        RESTART, STOP, RESUME
    }

    /** Default restart limit: restarts allowed within {@link #DEFAULT_WITHIN}. */
    public static final int DEFAULT_MAX_RESTARTS = 10;
    /** Default restart window. */
    public static final Duration DEFAULT_WITHIN = Duration.ofMinutes(1);

    private static final SupervisorStrategy STOP = new SupervisorStrategy(Kind.STOP, 0, 0, 0, 0);
    private static final SupervisorStrategy RESUME = new SupervisorStrategy(Kind.RESUME, 0, 0, 0, 0);
    private static final SupervisorStrategy RESTART = new SupervisorStrategy(Kind.RESTART, DEFAULT_MAX_RESTARTS,
        DEFAULT_WITHIN.toNanos(), 0, 0);

    private final Kind kind;
    private final int maxRestarts;
    private final long withinNs;
    private final long minBackoffNs;
    private final long maxBackoffNs;

    private SupervisorStrategy(
        final Kind kind, final int maxRestarts, final long withinNs, final long minBackoffNs, final long maxBackoffNs)
    {
        this.kind = kind;
        this.maxRestarts = maxRestarts;
        this.withinNs = withinNs;
        this.minBackoffNs = minBackoffNs;
        this.maxBackoffNs = maxBackoffNs;
    }

    /**
     * @return restart with the initial behaviour, at most {@value #DEFAULT_MAX_RESTARTS} times a minute, no
     *         back-off. The default of {@link ActorOptions#defaults()}.
     */
    public static SupervisorStrategy restart()
    {
        return RESTART;
    }

    /** @return stop the actor on its first failure. */
    public static SupervisorStrategy stop()
    {
        return STOP;
    }

    /** @return keep the behaviour and state; drop the failing message. */
    public static SupervisorStrategy resume()
    {
        return RESUME;
    }

    /**
     * @param maxRestarts most restarts within the window (0: the first failure stops the actor).
     * @param within      the sliding window the restarts are counted in.
     * @return a restart strategy with this limit.
     */
    public SupervisorStrategy withLimit(final int maxRestarts, final Duration within)
    {
        requireRestart();
        if (maxRestarts < 0)
        {
            throw new IllegalArgumentException("maxRestarts must not be negative: " + maxRestarts);
        }
        if (within.isNegative() || within.isZero())
        {
            throw new IllegalArgumentException("within must be positive: " + within);
        }
        return new SupervisorStrategy(kind, maxRestarts, within.toNanos(), minBackoffNs, maxBackoffNs);
    }

    /**
     * @param minBackoff pause before the first restart within the window; doubled for each further one.
     * @param maxBackoff the longest pause.
     * @return a restart strategy with this back-off.
     */
    public SupervisorStrategy withBackoff(final Duration minBackoff, final Duration maxBackoff)
    {
        requireRestart();
        if (minBackoff.isNegative() || maxBackoff.compareTo(minBackoff) < 0)
        {
            throw new IllegalArgumentException("back-off needs 0 <= minBackoff <= maxBackoff: " + minBackoff + ", " +
                maxBackoff);
        }
        return new SupervisorStrategy(kind, maxRestarts, withinNs, minBackoff.toNanos(), maxBackoff.toNanos());
    }

    public Kind kind()
    {
        return kind;
    }

    /** @return most restarts within {@link #withinNs()}. */
    public int maxRestarts()
    {
        return maxRestarts;
    }

    public long withinNs()
    {
        return withinNs;
    }

    public long minBackoffNs()
    {
        return minBackoffNs;
    }

    public long maxBackoffNs()
    {
        return maxBackoffNs;
    }

    /**
     * @param restart the ordinal (1-based) of the restart within the window.
     * @return the pause before that restart, 0 for none.
     */
    public long backoffNs(final int restart)
    {
        if (minBackoffNs == 0)
        {
            return 0;
        }
        final int doublings = Math.min(Math.max(0, restart - 1), 62);
        final long delayNs = minBackoffNs << Math.min(doublings, Long.numberOfLeadingZeros(minBackoffNs) - 1);
        return Math.min(maxBackoffNs, delayNs);
    }

    private void requireRestart()
    {
        if (kind != Kind.RESTART)
        {
            throw new IllegalStateException("limits and back-off apply to restart(), not " + kind);
        }
    }

    @Override
    public String toString()
    {
        switch (kind)
        {
            case RESTART:
                return "restart(at most " + maxRestarts + " within " + TimeUnit.NANOSECONDS.toMillis(withinNs) + " ms" +
                    (minBackoffNs > 0 ? ", back-off " + TimeUnit.NANOSECONDS.toMillis(minBackoffNs) + ".." +
                    TimeUnit.NANOSECONDS.toMillis(maxBackoffNs) + " ms" : "") + ")";
            case STOP:
                return "stop()";
            default:
                return "resume()";
        }
    }
}
