package io.rivulet.bench.harness;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.List;
import java.util.function.Function;

/**
 * Runs the workloads against one system and prints the results on the {@link Line} protocol. The same
 * loops, counts, warm-up and timing serve every system; only the operations differ ({@link BenchClient}).
 *
 * <p>Options (the coordinator passes them; defaults suit a quick run by hand):
 * <pre>
 *   --host 127.0.0.1 --port N [--port2 N]      where the server listens (two-process systems)
 *   --sizes 32,256,4096                        payload sizes in bytes
 *   --workloads pingpong,oneway,reqresp        what to run, in this order for each size (and fanout)
 *   --pp-warmup N --pp-count N                 ping-pong round trips
 *   --ow-warmup N --ow-count N                 one-way messages
 *   --rr-warmup N --rr-count N --window 64     request-response exchanges and how many in flight
 *   --fo-warmup N --fo-count N --subscribers 8 fan-out messages published flat out, and to how many subscribers
 *   --fo-rate N --fo-paced N --fo-paced-seconds S   then up to N messages/s (at most half the flat-out rate),
 *                                              for up to N messages or S seconds: latency below saturation
 * </pre>
 */
public final class ClientMain
{
    private static final PrintStream OUT = System.out;

    private ClientMain()
    {
    }

    public static void run(final String[] argv, final Function<Args, BenchClient> factory)
    {
        final Args args = new Args(argv);
        final List<String> sizes = args.list("sizes", "32,256,4096");
        final List<String> workloads = args.list("workloads", "pingpong,oneway,reqresp");
        final long ppWarmup = args.number("pp-warmup", 10_000);
        final long ppCount = args.number("pp-count", 50_000);
        final long owWarmup = args.number("ow-warmup", 100_000);
        final long owCount = args.number("ow-count", 500_000);
        final long rrWarmup = args.number("rr-warmup", 20_000);
        final long rrCount = args.number("rr-count", 200_000);
        final int window = args.integer("window", 64);
        final long foWarmup = args.number("fo-warmup", 20_000);
        final long foCount = args.number("fo-count", 100_000);
        final int subscribers = args.integer("subscribers", 8);
        final long foRate = args.number("fo-rate", 10_000);
        final long foPaced = args.number("fo-paced", 5_000);
        final long foPacedSeconds = args.number("fo-paced-seconds", 1);

        final Progress progress = new Progress();
        final Thread reporter = new Thread(() -> report(progress), "progress-reporter");
        reporter.setDaemon(true);
        reporter.start();

        int exitCode = 0;
        try (BenchClient client = factory.apply(args))
        {
            client.start();
            client.info()
                .with("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"))
                .print(OUT);
            for (final String sizeText : sizes)
            {
                final int size = Integer.parseInt(sizeText);
                client.prepare(size);
                for (final String workload : workloads)
                {
                    try
                    {
                        switch (workload)
                        {
                            case "pingpong":
                                pingPong(client, size, ppWarmup, ppCount, progress);
                                break;
                            case "oneway":
                                oneWay(client, size, owWarmup, owCount, progress);
                                break;
                            case "reqresp":
                                requestResponse(client, size, rrWarmup, rrCount, window, progress);
                                break;
                            case "fanout":
                                fanOut(client, size, foWarmup, foCount, subscribers, foRate, foPaced, foPacedSeconds,
                                    progress);
                                break;
                            default:
                                throw new IllegalArgumentException("unknown workload '" + workload + "'");
                        }
                    }
                    catch (final Exception ex)
                    {
                        exitCode = 1;
                        Line.of(Line.ERROR, "workload", workload, "size", size, "message", String.valueOf(ex))
                            .print(OUT);
                        ex.printStackTrace();
                    }
                }
            }
        }
        catch (final Exception ex)
        {
            exitCode = 1;
            Line.of(Line.ERROR, "workload", "start", "message", String.valueOf(ex)).print(OUT);
            ex.printStackTrace();
        }
        progress.start("", 0);
        Line.of(Line.DONE).print(OUT);
        System.exit(exitCode);
    }

    private static void pingPong(
        final BenchClient client, final int size, final long warmup, final long count, final Progress progress)
        throws Exception
    {
        final String label = "pingpong " + size + " B " + client.pingPongApi();
        progress.start(label + " warm-up", warmup);
        for (long i = 0; i < warmup; i++)
        {
            client.roundTrip();
            progress.update(i + 1);
        }
        System.gc();
        final Histogram histogram = Histograms.newHistogram();
        progress.start(label, count);
        final long startNs = System.nanoTime();
        long previousNs = startNs;
        for (long i = 0; i < count; i++)
        {
            client.roundTrip();
            final long nowNs = System.nanoTime();
            Histograms.record(histogram, nowNs - previousNs);
            previousNs = nowNs;
            progress.update(i + 1);
        }
        Line.of(Line.RESULT, "workload", "pingpong", "api", client.pingPongApi(), "size", size, "warmup", warmup,
            "count", count, "elapsedNs", previousNs - startNs, "hist", Histograms.encode(histogram)).print(OUT);
    }

    private static void oneWay(
        final BenchClient client, final int size, final long warmup, final long count, final Progress progress)
        throws Exception
    {
        for (final String api : client.oneWayApis())
        {
            final String label = "oneway " + size + " B " + api;
            progress.start(label + " warm-up", warmup);
            final long warmBase = client.sync();
            client.send(api, warmup, progress);
            final long warmReceived = awaitReceived(client, warmBase, warmup);
            if (warmReceived != warmup)
            {
                throw new IllegalStateException(api + ": receiver counted " + warmReceived + " of " + warmup);
            }
            System.gc();
            progress.start(label, count);
            final long base = client.sync();
            final long startNs = System.nanoTime();
            client.send(api, count, progress);
            final long received = awaitReceived(client, base, count);
            final long elapsedNs = System.nanoTime() - startNs;
            if (received != count)
            {
                throw new IllegalStateException(api + ": receiver counted " + received + " of " + count);
            }
            Line.of(Line.RESULT, "workload", "oneway", "api", api, "size", size, "warmup", warmup, "count", count,
                "elapsedNs", elapsedNs, "received", received).print(OUT);
        }
    }

    /**
     * Syncs until the receiver has counted every message sent: one SYNC when the path is ordered end to
     * end; more when a system may let a SYNC overtake queued DATA messages (a fire-and-forget that was
     * parked for lack of ring space, say).
     */
    private static long awaitReceived(final BenchClient client, final long base, final long expected)
        throws Exception
    {
        final long deadlineNs = Waits.deadline();
        long received = client.sync() - base;
        while (received < expected && System.nanoTime() - deadlineNs < 0)
        {
            received = client.sync() - base;
        }
        return received;
    }

    private static void requestResponse(
        final BenchClient client,
        final int size,
        final long warmup,
        final long count,
        final int window,
        final Progress progress) throws Exception
    {
        final String label = "reqresp " + size + " B " + client.pipelinedApi();
        progress.start(label + " warm-up", warmup);
        client.pipelined(warmup, window, Histograms.newHistogram(), progress);
        System.gc();
        final Histogram histogram = Histograms.newHistogram();
        progress.start(label, count);
        final long startNs = System.nanoTime();
        client.pipelined(count, window, histogram, progress);
        final long elapsedNs = System.nanoTime() - startNs;
        if (histogram.getTotalCount() != count)
        {
            throw new IllegalStateException("recorded " + histogram.getTotalCount() + " replies of " + count);
        }
        Line.of(Line.RESULT, "workload", "reqresp", "api", client.pipelinedApi(), "size", size, "warmup", warmup,
            "count", count, "window", window, "elapsedNs", elapsedNs, "hist", Histograms.encode(histogram))
            .print(OUT);
    }

    /**
     * Fan-out: a warm-up and a measured run flat out (throughput, and latency at full load), then a run paced
     * at {@code maxRate} messages/s or half the flat-out rate, whichever is lower, so that it stays below
     * saturation on every system (latency without the queueing), for {@code maxPaced} messages or
     * {@code pacedSeconds}, whichever is fewer.
     */
    private static void fanOut(
        final BenchClient client,
        final int size,
        final long warmup,
        final long count,
        final int subscribers,
        final long maxRate,
        final long maxPaced,
        final long pacedSeconds,
        final Progress progress) throws Exception
    {
        if (client.fanOutApi() == null)
        {
            throw new IllegalArgumentException("this system has no fan-out");
        }
        final String label = "fanout 1->" + subscribers + " " + size + " B";
        progress.start(label + " warm-up", warmup);
        client.fanOut(subscribers, warmup, 0, Histograms.newHistogram(), progress);
        System.gc();
        final Histogram loaded = Histograms.newHistogram();
        progress.start(label, count);
        final long startNs = System.nanoTime();
        client.fanOut(subscribers, count, 0, loaded, progress);
        final long elapsedNs = System.nanoTime() - startNs;
        checkDeliveries(loaded, count, subscribers);
        final long rate = Math.max(1, Math.min(maxRate, (long)(count * 1e9 / elapsedNs / 2)));
        final long pacedCount = Math.max(1, Math.min(maxPaced, rate * pacedSeconds));
        final Histogram paced = Histograms.newHistogram();
        progress.start(label + " at " + rate + " msg/s", pacedCount);
        client.fanOut(subscribers, pacedCount, rate, paced, progress);
        checkDeliveries(paced, pacedCount, subscribers);
        Line.of(Line.RESULT, "workload", "fanout", "api", client.fanOutApi(), "size", size, "warmup", warmup,
            "count", count, "subscribers", subscribers, "elapsedNs", elapsedNs, "rate", rate, "pacedCount", pacedCount,
            "settings", client.fanOutSettings(), "loadHist", Histograms.encode(loaded), "hist", Histograms.encode(paced))
            .print(OUT);
    }

    private static void checkDeliveries(final Histogram histogram, final long count, final int subscribers)
    {
        if (histogram.getTotalCount() != count * subscribers)
        {
            throw new IllegalStateException("recorded " + histogram.getTotalCount() + " deliveries of " +
                count * subscribers);
        }
    }

    private static void report(final Progress progress)
    {
        String lastLabel = "";
        long lastDone = -1;
        while (true)
        {
            try
            {
                Thread.sleep(500);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            final String label = progress.label();
            final long done = progress.done();
            if (!label.isEmpty() && (done != lastDone || !label.equals(lastLabel)))
            {
                Line.of(Line.PROGRESS, "label", label, "done", done, "total", progress.total()).print(OUT);
                lastDone = done;
                lastLabel = label;
            }
        }
    }
}
