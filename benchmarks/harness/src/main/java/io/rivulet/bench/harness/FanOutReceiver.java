package io.rivulet.bench.harness;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * One fan-out subscriber's tally: how many FANOUT messages it received, that they came in order with none
 * missing (each message's {@code seq} is the publisher's running count, so it must equal this subscriber's
 * count so far), and each one's latency from the publication timestamp in its payload to its delivery.
 *
 * <p>Threads: {@link #onMessage} and {@link #onError} on the one thread that delivers this subscriber's
 * messages; {@link #recordInto}, {@link #received()} and {@link #await} on the measuring thread. The
 * measuring thread swaps the histogram only while no message is in flight (between runs), and reads it after
 * {@link #received()} (a volatile read) says the run's messages are all in.
 */
public final class FanOutReceiver
{
    private final String name;
    private volatile Histogram latencyNs = Histograms.newHistogram();
    private volatile long received;
    /** Written before {@link #received}, so a reader that saw the count sees the time of that delivery. */
    private long lastDeliveryNs;
    private volatile String error;

    public FanOutReceiver(final String name)
    {
        this(name, 0);
    }

    /**
     * @param name            names the subscriber in errors.
     * @param publishedBefore messages published before this subscriber joined: its first message's {@code seq}.
     */
    public FanOutReceiver(final String name, final long publishedBefore)
    {
        this.name = name;
        this.received = publishedBefore;
    }

    /** Measuring thread, between runs: the next run's latencies go into a fresh histogram. */
    public void startRun()
    {
        latencyNs = Histograms.newHistogram();
    }

    /** Measuring thread, after a run: adds this subscriber's latencies of the run to {@code merged}. */
    public void recordInto(final Histogram merged)
    {
        merged.add(latencyNs);
    }

    /** Delivering thread: one FANOUT message, with its {@code seq} and publication time. */
    public void onMessage(final int seq, final long publishedNs, final long nowNs)
    {
        final long count = received;
        if (seq != (int)count && error == null)
        {
            error = name + ": expected message " + (int)count + ", got " + seq + " (out of order or lost)";
        }
        Histograms.record(latencyNs, nowNs - publishedNs);
        lastDeliveryNs = nowNs;
        received = count + 1;
    }

    /** Delivering thread: the subscription failed or ended. */
    public void onError(final String message)
    {
        if (error == null)
        {
            error = name + ": " + message;
        }
    }

    /** @return the {@code System.nanoTime()} of the last delivery counted by {@link #received()} (read that first). */
    public long lastDeliveryNs()
    {
        return lastDeliveryNs;
    }

    /** @return the running number of the next message it expects: those published before it joined, and since. */
    public long received()
    {
        return received;
    }

    /**
     * Measuring thread: waits until every subscriber has received {@code target} messages in total, reporting
     * the slowest one's count of this run ({@code target - count + done}) to {@code progress}.
     *
     * @param pause called between looks (it may run the engine's duty cycle, yield or park briefly).
     * @throws IllegalStateException when a subscriber saw a message out of order, or failed.
     * @throws TimeoutException      when no subscriber made progress for {@link Waits#TIMEOUT_NS}.
     */
    public static void await(
        final List<FanOutReceiver> receivers, final long target, final long count, final Progress progress,
        final Runnable pause) throws TimeoutException
    {
        long deadlineNs = Waits.deadline();
        long lastSum = -1;
        while (true)
        {
            long slowest = Long.MAX_VALUE;
            long sum = 0;
            for (final FanOutReceiver receiver : receivers)
            {
                final String error = receiver.error;
                if (error != null)
                {
                    throw new IllegalStateException(error);
                }
                final long received = receiver.received;
                slowest = Math.min(slowest, received);
                sum += received;
            }
            progress.update(Math.max(0, count - (target - slowest)));
            if (slowest >= target)
            {
                return;
            }
            if (sum != lastSum)
            {
                lastSum = sum;
                deadlineNs = Waits.deadline();
            }
            else
            {
                Waits.check(deadlineNs, "fan-out message (slowest subscriber at " + slowest + " of " + target + ")");
            }
            pause.run();
        }
    }
}
