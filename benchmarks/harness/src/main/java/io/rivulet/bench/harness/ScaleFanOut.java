package io.rivulet.bench.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The two roles of the fan-out-at-scale benchmark ({@code ./rivulet-bench fanout-scale}), whatever the system: a
 * publisher process and a subscriber process holding every subscriber, each driven by the coordinator over its
 * standard input and answering on its standard output with {@link Line}s:
 *
 * <pre>
 * publisher   prints READY port=P, then per run:  PUBLISH count=N rate=R  →  PUBLISHED count=N startNs=T
 * subscribers print READY once all have joined, then per run:  AWAIT target=N  →  RECEIVED target=N lastNs=T
 * </pre>
 *
 * A run's delivered rate per subscriber is {@code count / (lastNs - startNs)}: every subscriber had every message by
 * {@code lastNs} ({@code System.nanoTime()} is one clock for the processes of a Linux host). The end of standard
 * input ends the role; an error is printed as {@code ERROR message=...} and ends it too.
 *
 * <p>Each role runs on the thread that calls it; the publisher's messages are offered on that thread.
 */
public final class ScaleFanOut
{
    /** A paced run's messages go in bursts this far apart ({@link Pacer#inTicks}). */
    public static final long PACING_TICK_NS = 10_000_000;

    private ScaleFanOut()
    {
    }

    /** A system's publisher: offers a run's messages, returning once all are offered. */
    public interface Publisher
    {
        /**
         * @param count         messages, each carrying the publisher's running count and its offer's time.
         * @param ratePerSecond 0: as fast as back-pressure allows.
         */
        void publish(long count, long ratePerSecond) throws Exception;
    }

    /** Serves PUBLISH commands until standard input ends. */
    public static void runPublisher(final Publisher publisher) throws IOException
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String text;
        while ((text = in.readLine()) != null)
        {
            final Line command = Line.parse(text);
            if (command == null || !Line.PUBLISH.equals(command.type()))
            {
                continue;
            }
            final long count = command.number("count");
            final long startNs = System.nanoTime();
            try
            {
                publisher.publish(count, command.number("rate"));
            }
            catch (final Exception ex)
            {
                Line.of(Line.ERROR, "message", "publisher: " + ex).print(System.out);
                return;
            }
            Line.of(Line.PUBLISHED, "count", count, "startNs", startNs, "endNs", System.nanoTime()).print(System.out);
        }
    }

    /**
     * Serves AWAIT commands until standard input ends.
     *
     * @param pause between looks at the subscribers' counts (parks briefly, or runs an INVOKER engine).
     */
    public static void runSubscribers(final List<FanOutReceiver> receivers, final Runnable pause) throws IOException
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final Progress progress = new Progress();
        String text;
        while ((text = in.readLine()) != null)
        {
            final Line command = Line.parse(text);
            if (command == null || !Line.AWAIT.equals(command.type()))
            {
                continue;
            }
            final long target = command.number("target");
            try
            {
                FanOutReceiver.await(receivers, target, target, progress, pause);
            }
            catch (final Exception ex)
            {
                Line.of(Line.ERROR, "message", "subscribers: " + ex.getMessage()).print(System.out);
                return;
            }
            long lastNs = Long.MIN_VALUE;
            for (final FanOutReceiver receiver : receivers)
            {
                lastNs = Math.max(lastNs, receiver.lastDeliveryNs());
            }
            Line.of(Line.RECEIVED, "target", target, "lastNs", lastNs).print(System.out);
        }
    }
}
