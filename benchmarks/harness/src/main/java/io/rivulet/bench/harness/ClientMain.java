package io.rivulet.bench.harness;

import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs the workloads against one system and prints the results on the {@link Line} protocol. The same
 * loops, counts, warm-up and timing serve every system; only the operations differ ({@link BenchClient}).
 *
 * <p>The workload options below are the harness's; a system adds its own (host, port, idle strategy...) as a
 * picocli {@code @Option}-annotated object given to {@link #run}. The coordinator passes them; the defaults
 * suit a quick run by hand, and {@code --help} lists them all.
 * <pre>
 *   --sizes 32,256,4096                        payload sizes in bytes
 *   --workloads pingpong,oneway,reqresp        what to run, in this order for each size (and fanout)
 *   --pp-warmup N --pp-count N                 ping-pong round trips
 *   --ow-warmup N --ow-count N                 one-way messages
 *   --rr-warmup N --rr-count N --window 64     request-response exchanges and how many in flight (APIs that
 *                                              wait for each reply get the ping-pong counts)
 *   --rr-apis flatMap,concatMap,block()        only these request-response APIs (default: all the client has)
 *   --warmup-seconds S --warmup-min-seconds S --warmup-window-ms MS --warmup-windows K --warmup-tolerance PCT
 *                                              ping-pong and request-response warm up for at least their
 *                                              warm-up count (and the first size of each API for at least the
 *                                              shortest time), then until K windows agree within PCT %, at most S
 *   --fo-warmup N --fo-count N --subscribers 8 fan-out messages published flat out, and to how many subscribers
 *   --fo-rate N --fo-paced N --fo-paced-seconds S   then up to N messages/s (at most half the flat-out rate),
 *                                              for up to N messages or S seconds: latency below saturation
 * </pre>
 */
public final class ClientMain
{
    private static final PrintStream OUT = System.out;
    /** Round trips between two looks at the clock during a warm-up. */
    private static final long PING_PONG_CHUNK = 100;
    /** Fan-out messages per warm-up step: each step starts the publisher and waits for every delivery. */
    private static final long FAN_OUT_CHUNK = 5_000;
    /** One-way messages per warm-up chunk: well under a window (200 ms) even for the slowest row (~60,000/s). */
    private static final long ONE_WAY_CHUNK = 10_000;
    /** Where the progress of a warm-up chunk goes: the warm-up reports its own. */
    private static final Progress NO_PROGRESS = new Progress();

    private ClientMain()
    {
    }

    /**
     * Parses the command line into the harness's options and the system's, runs the workloads and exits: 0 when
     * every workload ran, 1 when one failed, {@link BenchCli#USAGE_EXIT_CODE} for a bad command line.
     *
     * @param argv    the command line.
     * @param options the system's options, an object with picocli {@code @Option} fields (and a {@code @Command}
     *                naming the command).
     * @param factory makes the system's client from its options, once they are parsed.
     * @param <T>     the type of the system's options.
     */
    public static <T> void run(final String[] argv, final T options, final Function<T, BenchClient> factory)
    {
        System.exit(commandLine(options, factory).execute(argv));
    }

    /**
     * @param options the system's options.
     * @param factory makes the system's client from its options.
     * @param <T>     the type of the system's options.
     * @return the command line of a client JVM: the harness's workload options and the system's.
     */
    public static <T> CommandLine commandLine(final T options, final Function<T, BenchClient> factory)
    {
        final CommandLine commandLine = new CommandLine(new Workloads(() -> factory.apply(options)));
        BenchCli.addSystemOptions(commandLine, options);
        return BenchCli.withConverters(commandLine);
    }

    /** The harness's options of a client JVM; running them runs the workloads. */
    @Command(mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class)
    static final class Workloads implements Callable<Integer>
    {
        @Option(names = "--sizes", paramLabel = "BYTES", split = ",", defaultValue = "32,256,4096",
            description = "payload sizes in bytes, comma-separated (default ${DEFAULT-VALUE})")
        List<Integer> sizes;

        @Option(names = "--workloads", paramLabel = "LIST", split = ",", defaultValue = "pingpong,oneway,reqresp",
            description = "what to run for each size, in this order: pingpong, oneway, reqresp, fanout " +
                "(default ${DEFAULT-VALUE})")
        List<String> workloads;

        @Option(names = "--pp-warmup", paramLabel = "N", defaultValue = "10000",
            description = "ping-pong warm-up round trips (default ${DEFAULT-VALUE})")
        long ppWarmup;

        @Option(names = "--pp-count", paramLabel = "N", defaultValue = "50000",
            description = "ping-pong measured round trips (default ${DEFAULT-VALUE})")
        long ppCount;

        @Option(names = "--ow-warmup", paramLabel = "N", defaultValue = "100000",
            description = "one-way warm-up messages at least; it goes on until the rate is steady (default ${DEFAULT-VALUE})")
        long owWarmup;

        @Option(names = "--ow-count", paramLabel = "N", defaultValue = "500000",
            description = "one-way measured messages (default ${DEFAULT-VALUE})")
        long owCount;

        @Option(names = "--rr-warmup", paramLabel = "N", defaultValue = "20000",
            description = "request-response warm-up exchanges (default ${DEFAULT-VALUE})")
        long rrWarmup;

        @Option(names = "--rr-count", paramLabel = "N", defaultValue = "200000",
            description = "request-response measured exchanges (default ${DEFAULT-VALUE})")
        long rrCount;

        @Option(names = "--rr-apis", paramLabel = "LIST", split = ",",
            description = "only these of the client's request-response APIs (default: all it has, e.g. " +
                "flatMap,concatMap,block())")
        List<String> rrApis;

        @Option(names = "--window", paramLabel = "N", defaultValue = "64",
            description = "request-response exchanges in flight (default ${DEFAULT-VALUE})")
        int window;

        @Option(names = "--warmup-seconds", paramLabel = "S", defaultValue = "4",
            description = "ping-pong and request-response: longest warm-up of one API and size, in seconds " +
                "(default ${DEFAULT-VALUE})")
        long warmupSeconds;

        @Option(names = "--warmup-min-seconds", paramLabel = "S", defaultValue = "3",
            description = "ping-pong and request-response: shortest warm-up of an API at the first size (the JIT " +
                "has compiled its path for the later ones) (default ${DEFAULT-VALUE})")
        long warmupMinSeconds;

        @Option(names = "--warmup-window-ms", paramLabel = "MS", defaultValue = "200",
            description = "shortest warm-up window whose rate is compared, in ms (default ${DEFAULT-VALUE})")
        long warmupWindowMs;

        @Option(names = "--warmup-windows", paramLabel = "K", defaultValue = "3",
            description = "consecutive warm-up windows that must agree (default ${DEFAULT-VALUE})")
        int warmupWindows;

        @Option(names = "--warmup-tolerance", paramLabel = "PCT", defaultValue = "5",
            description = "how far, in percent of the fastest, those windows' rates may differ " +
                "(default ${DEFAULT-VALUE})")
        double warmupTolerance;

        @Option(names = "--fo-warmup", paramLabel = "N", defaultValue = "20000",
            description = "fan-out warm-up messages (default ${DEFAULT-VALUE})")
        long foWarmup;

        @Option(names = "--fo-count", paramLabel = "N", defaultValue = "100000",
            description = "fan-out messages published flat out (default ${DEFAULT-VALUE})")
        long foCount;

        @Option(names = "--subscribers", paramLabel = "N", defaultValue = "8",
            description = "fan-out subscribers (default ${DEFAULT-VALUE})")
        int subscribers;

        @Option(names = "--fo-rate", paramLabel = "N", defaultValue = "10000",
            description = "paced fan-out: at most N messages/s, and at most half the flat-out rate " +
                "(default ${DEFAULT-VALUE})")
        long foRate;

        @Option(names = "--fo-paced", paramLabel = "N", defaultValue = "5000",
            description = "paced fan-out: at most N messages (default ${DEFAULT-VALUE})")
        long foPaced;

        @Option(names = "--fo-paced-seconds", paramLabel = "S", defaultValue = "1",
            description = "paced fan-out: at most S seconds (default ${DEFAULT-VALUE})")
        long foPacedSeconds;

        private final Supplier<BenchClient> client;
        /** Workload and API pairs warmed up already in this JVM (the shortest warm-up time applies once). */
        private final Set<String> warmed = new HashSet<>();

        Workloads(final Supplier<BenchClient> client)
        {
            this.client = client;
        }

        /** @return 0 when every workload ran, 1 when one failed or the client did not start. */
        @Override
        public Integer call()
        {
            return runWorkloads(this);
        }
    }

    private static int runWorkloads(final Workloads options)
    {
        final Progress progress = new Progress();
        final Thread reporter = new Thread(() -> report(progress), "progress-reporter");
        reporter.setDaemon(true);
        reporter.start();

        int exitCode = 0;
        try (BenchClient client = options.client.get())
        {
            client.start();
            client.info()
                .with("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"))
                .print(OUT);
            for (final int size : options.sizes)
            {
                client.prepare(size);
                for (final String workload : options.workloads)
                {
                    try
                    {
                        switch (workload)
                        {
                            case "pingpong":
                                pingPong(client, size, options, progress);
                                break;
                            case "oneway":
                                oneWay(client, size, options, progress);
                                break;
                            case "reqresp":
                                exitCode |= requestResponse(client, size, options, progress);
                                break;
                            case "fanout":
                                fanOut(client, size, options, progress);
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
        return exitCode;
    }

    /**
     * @return the steady-rate warm-up the options describe, at least {@code minOperations} long, and at least
     * {@code --warmup-min-seconds} the first time {@code workload} and {@code api} warm up in this JVM.
     */
    private static WarmUp warmUp(
        final Workloads options, final String workload, final String api, final long minOperations, final long chunk)
    {
        final boolean first = options.warmed.add(workload + "|" + api);
        return new WarmUp(minOperations, first ? TimeUnit.SECONDS.toNanos(options.warmupMinSeconds) : 0, chunk,
            TimeUnit.MILLISECONDS.toNanos(options.warmupWindowMs),
            options.warmupWindows, options.warmupTolerance / 100.0, TimeUnit.SECONDS.toNanos(options.warmupSeconds),
            System::nanoTime);
    }

    /** Prints how a warm-up went (every window's rate), for the log: a row's stability can be checked there. */
    private static void printWarmUp(
        final String workload, final String api, final int size, final WarmUp.Outcome outcome)
    {
        Line.of(Line.WARMUP, "workload", workload, "api", api, "size", size, "operations", outcome.operations(),
            "elapsedNs", outcome.elapsedNs(), "steady", outcome.steady(), "rates", outcome.ratesText()).print(OUT);
    }

    private static void pingPong(
        final BenchClient client, final int size, final Workloads options, final Progress progress)
        throws Exception
    {
        final String label = "pingpong " + size + " B " + client.pingPongApi();
        progress.start(label + " warm-up", options.ppWarmup);
        final WarmUp.Outcome warm = warmUp(options, "pingpong", client.pingPongApi(), options.ppWarmup,
            PING_PONG_CHUNK).run(operations ->
        {
            for (long i = 0; i < operations; i++)
            {
                client.roundTrip();
            }
        }, progress);
        printWarmUp("pingpong", client.pingPongApi(), size, warm);
        System.gc();
        final long count = options.ppCount;
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
        Line.of(Line.RESULT, "workload", "pingpong", "api", client.pingPongApi(), "size", size,
            "warmup", warm.operations(), "warmupNs", warm.elapsedNs(), "steady", warm.steady(),
            "count", count, "elapsedNs", previousNs - startNs, "hist", Histograms.encode(histogram)).print(OUT);
    }

    private static void oneWay(
        final BenchClient client, final int size, final Workloads options, final Progress progress)
        throws Exception
    {
        final long count = options.owCount;
        for (final String api : client.oneWayApis())
        {
            final String label = "oneway " + size + " B " + api;
            progress.start(label + " warm-up", options.owWarmup);
            final long warmBase = client.sync();
            final long[] warmSent = new long[1];
            // Until the send rate is steady, as the other workloads: a fixed 100,000 messages left some rows at a
            // third of the rate they reach warm (a 32-byte fireAndForget ran at 0.7-1.0 M/s after it, 2.6 M/s after
            // 4 M), and the measured run is short enough for the JIT to still be at work inside it.
            final WarmUp.Outcome warm = warmUp(options, "oneway", api, options.owWarmup, ONE_WAY_CHUNK).run(
                operations ->
                {
                    client.send(api, operations, NO_PROGRESS);
                    warmSent[0] += operations;
                }, progress);
            printWarmUp("oneway", api, size, warm);
            final long warmReceived = awaitReceived(client, warmBase, warmSent[0]);
            if (warmReceived != warmSent[0])
            {
                throw new IllegalStateException(api + ": receiver counted " + warmReceived + " of " + warmSent[0]);
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
            Line.of(Line.RESULT, "workload", "oneway", "api", api, "size", size, "warmup", warm.operations(),
                "warmupNs", warm.elapsedNs(), "steady", warm.steady(), "count", count, "elapsedNs", elapsedNs,
                "received", received).print(OUT);
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

    /**
     * Request-response, once per API the client measures: those that keep {@code --window} requests in flight
     * get the request-response counts; those that wait for each reply before the next request (a blocking
     * caller, a {@code concatMap} chain) run at ping-pong rates and get the ping-pong counts. An API that fails
     * gets an ERROR line of its own, and the next API still runs.
     *
     * @return 0 when every API ran, 1 when one failed.
     */
    private static int requestResponse(
        final BenchClient client, final int size, final Workloads options, final Progress progress)
    {
        int exitCode = 0;
        for (final String api : client.pipelinedApis())
        {
            if (options.rrApis != null && !options.rrApis.contains(api))
            {
                continue;
            }
            try
            {
                requestResponse(client, size, api, options, progress);
            }
            catch (final Exception ex)
            {
                exitCode = 1;
                Line.of(Line.ERROR, "workload", "reqresp", "api", api, "size", size, "message", String.valueOf(ex))
                    .print(OUT);
                ex.printStackTrace();
            }
        }
        return exitCode;
    }

    private static void requestResponse(
        final BenchClient client, final int size, final String api, final Workloads options, final Progress progress)
        throws Exception
    {
        final int inFlight = client.inFlight(api, options.window);
        final long minWarmup = inFlight > 1 ? options.rrWarmup : options.ppWarmup;
        final long count = inFlight > 1 ? options.rrCount : options.ppCount;
        final String label = "reqresp " + size + " B " + api;
        progress.start(label + " warm-up", minWarmup);
        final Histogram ignored = Histograms.newHistogram();
        final WarmUp.Outcome warm = warmUp(options, "reqresp", api, minWarmup,
            inFlight > 1 ? inFlight * 16L : PING_PONG_CHUNK).run(operations ->
            {
                ignored.reset();
                client.pipelined(api, operations, options.window, ignored, NO_PROGRESS);
            }, progress);
        printWarmUp("reqresp", api, size, warm);
        System.gc();
        final Histogram histogram = Histograms.newHistogram();
        progress.start(label, count);
        final long startNs = System.nanoTime();
        client.pipelined(api, count, options.window, histogram, progress);
        final long elapsedNs = System.nanoTime() - startNs;
        if (histogram.getTotalCount() != count)
        {
            throw new IllegalStateException(api + ": recorded " + histogram.getTotalCount() + " replies of " + count);
        }
        Line.of(Line.RESULT, "workload", "reqresp", "api", api, "size", size,
            "warmup", warm.operations(), "warmupNs", warm.elapsedNs(), "steady", warm.steady(),
            "count", count, "window", inFlight, "elapsedNs", elapsedNs, "hist", Histograms.encode(histogram))
            .print(OUT);
    }

    /**
     * Fan-out: a warm-up and a measured run flat out (throughput, and latency at full load), then a run paced
     * at {@code maxRate} messages/s or half the flat-out rate, whichever is lower, so that it stays below
     * saturation on every system (latency without the queueing), for {@code maxPaced} messages or
     * {@code pacedSeconds}, whichever is fewer.
     */
    private static void fanOut(
        final BenchClient client, final int size, final Workloads options, final Progress progress) throws Exception
    {
        if (client.fanOutApis().isEmpty())
        {
            throw new IllegalArgumentException("this system has no fan-out");
        }
        try
        {
            for (final String api : client.fanOutApis())
            {
                fanOut(client, api, size, options, progress);
            }
        }
        finally
        {
            client.endFanOut();
        }
    }

    private static void fanOut(
        final BenchClient client, final String api, final int size, final Workloads options, final Progress progress)
        throws Exception
    {
        final long warmup = options.foWarmup;
        final long count = options.foCount;
        final int subscribers = options.subscribers;
        final long maxRate = options.foRate;
        final long maxPaced = options.foPaced;
        final long pacedSeconds = options.foPacedSeconds;
        final String label = "fanout 1->" + subscribers + " " + size + " B " + api;
        progress.start(label + " warm-up", warmup);
        // Warmed until steady, as ping-pong and request-response are: 10,000 messages left the first size's rate
        // at a fraction of its steady rate, the JIT still compiling (issue 16).
        final Histogram ignored = Histograms.newHistogram();
        final WarmUp.Outcome warm = warmUp(options, "fanout", api, warmup, FAN_OUT_CHUNK)
            .run(operations ->
            {
                ignored.reset();
                client.fanOut(api, subscribers, operations, 0, ignored, NO_PROGRESS);
            }, progress);
        printWarmUp("fanout", api, size, warm);
        System.gc();
        final Histogram loaded = Histograms.newHistogram();
        progress.start(label, count);
        final long startNs = System.nanoTime();
        client.fanOut(api, subscribers, count, 0, loaded, progress);
        final long elapsedNs = System.nanoTime() - startNs;
        checkDeliveries(loaded, count, subscribers);
        final long rate = Math.max(1, Math.min(maxRate, (long)(count * 1e9 / elapsedNs / 2)));
        final long pacedCount = Math.max(1, Math.min(maxPaced, rate * pacedSeconds));
        final Histogram paced = Histograms.newHistogram();
        progress.start(label + " at " + rate + " msg/s", pacedCount);
        client.fanOut(api, subscribers, pacedCount, rate, paced, progress);
        checkDeliveries(paced, pacedCount, subscribers);
        Line.of(Line.RESULT, "workload", "fanout", "api", api, "size", size,
            "warmup", warm.operations(), "warmupNs", warm.elapsedNs(), "steady", warm.steady(), "count", count, "subscribers", subscribers, "elapsedNs", elapsedNs, "rate", rate, "pacedCount", pacedCount,
            "settings", client.fanOutSettings(api), "loadHist", Histograms.encode(loaded), "hist", Histograms.encode(paced))
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
