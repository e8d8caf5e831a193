package io.rivulet.bench.coordinator;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How fast this machine wakes a parked thread: two threads hand a turn back and forth with {@code park}/{@code unpark},
 * and the median round trip (two wake-ups) of each trial is reported. The load average says whether other work runs;
 * this says what a thread that sleeps pays to wake up, which every row whose engine or caller parks or sleeps in the
 * selector pays too (the default row's ping-pong and its p99 most). On a 2-vCPU VM whose idle vCPU wakes slowly, a
 * trial whose threads share a vCPU gives a few µs and one across the two gives tens of µs, so the probe runs several
 * trials and reports each (docs/ARCHITECTURE.md section 3 has what such a machine did to the ratios).
 */
final class WakeUpProbe
{
    /** Trials, each in threads of its own: the scheduler places them anew. */
    static final int TRIALS = 3;
    /** Round trips of each trial before the measured ones. */
    static final int WARM_UP = 2_000;
    /** Round trips each trial measures. */
    static final int ROUND_TRIPS = 10_000;
    /** A trial stops at this, whatever it has measured: a machine this slow says enough. */
    static final long TRIAL_LIMIT_NS = TimeUnit.SECONDS.toNanos(2);

    private WakeUpProbe()
    {
    }

    /** @return each trial's median round trip in µs, as "5.7 / 42.8 / 41.1 µs", or why there is none. */
    static String describe()
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < TRIALS; i++)
        {
            final double medianNs = medianRoundTripNs();
            if (Double.isNaN(medianNs))
            {
                return "not measured (a trial was interrupted or measured nothing)";
            }
            text.append(i == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.1f", medianNs / 1000.0));
        }
        return text.append(" µs").toString();
    }

    /** @return one trial's median park/unpark round trip, or NaN when it measured none. */
    static double medianRoundTripNs()
    {
        final Turn turn = new Turn(Thread.currentThread());
        final long[] roundTrips = new long[ROUND_TRIPS];
        int measured = 0;
        final long startNs = System.nanoTime();
        try
        {
            for (int i = 0; i < WARM_UP + ROUND_TRIPS && System.nanoTime() - startNs < TRIAL_LIMIT_NS; i++)
            {
                final long sentNs = System.nanoTime();
                if (!turn.pass())
                {
                    break;
                }
                if (i >= WARM_UP)
                {
                    roundTrips[measured++] = System.nanoTime() - sentNs;
                }
            }
        }
        finally
        {
            turn.stop();
        }
        if (measured == 0)
        {
            return Double.NaN;
        }
        Arrays.sort(roundTrips, 0, measured);
        return roundTrips[measured / 2];
    }

    /** The turn two threads hand each other; each parks until it has it. */
    private static final class Turn
    {
        private final Thread caller;
        private final Thread partner;
        /** True while the partner has the turn. */
        private volatile boolean partnersTurn;
        private volatile boolean stopped;

        /** Starts the partner thread, which answers until {@link #stop()}. */
        Turn(final Thread caller)
        {
            this.caller = caller;
            partner = new Thread(this::answer, "rivulet-bench-wake-up-probe");
            partner.setDaemon(true);
            partner.start();
        }

        /** The caller gives the turn and parks until it is back; false when interrupted. */
        boolean pass()
        {
            if (Thread.currentThread().isInterrupted())
            {
                return false;
            }
            partnersTurn = true;
            LockSupport.unpark(partner);
            while (partnersTurn)
            {
                LockSupport.park(this);
                if (Thread.currentThread().isInterrupted())
                {
                    return false; // the flag stays set for the caller
                }
            }
            return true;
        }

        /** The partner's loop: parks until it has the turn, gives it back, until stopped. */
        void answer()
        {
            while (!stopped)
            {
                if (partnersTurn)
                {
                    partnersTurn = false;
                    LockSupport.unpark(caller);
                }
                else
                {
                    LockSupport.park(this);
                }
            }
        }

        void stop()
        {
            stopped = true;
            LockSupport.unpark(partner);
        }
    }
}
