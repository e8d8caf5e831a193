package io.rivulet.bench.coordinator;

import io.rivulet.bench.harness.BenchCli;
import io.rivulet.bench.harness.Line;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the whole comparison and writes the report. Started by {@code ./rivulet-bench}, which builds the
 * modules first and passes {@code --root}, {@code --command} and {@code --rdma-build}; {@code --help} lists
 * the options.
 */
@Command(name = "rivulet-bench", mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
    description = "Measures Rivulet and its peers on this machine, in one run, and writes results/<timestamp>/ " +
        "(results.md, results.csv, PNG plots, logs/) and results/latest.")
public final class Coordinator implements Callable<Integer>
{
    private static final long READY_TIMEOUT_S = 60;

    @Spec
    CommandSpec commandSpec;

    @Option(names = "--short", description = "quick comparison, about 6 minutes on 2 cores (the default)")
    boolean quick;

    @Option(names = "--full", description = "larger counts and JMH iterations, and 3 interleaved runs (--runs), " +
        "for numbers to publish")
    boolean full;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "short",
        description = "short or full; --full is --mode full (default ${DEFAULT-VALUE})")
    String mode;

    @Option(names = "--systems", paramLabel = "IDS", split = ",",
        description = "only these systems (default: all): floor-busy, floor-blocking, rivulet-tcp-busy, " +
            "rivulet-tcp-invoker, rivulet-tcp-backoff, rivulet-rdma-inprocess, rivulet-rdma, rsocket, aeron-ipc, " +
            "aeron-udp")
    List<String> systems;

    @Option(names = "--sizes", paramLabel = "LIST", split = ",", defaultValue = "32,256,4096",
        description = "payload sizes in bytes, at least 16 (default ${DEFAULT-VALUE})")
    List<Integer> sizes;

    @Option(names = "--workloads", paramLabel = "LIST", split = ",", defaultValue = "pingpong,oneway,reqresp,fanout",
        description = "only these workloads; fanout runs for the systems that have one: Rivulet's and Aeron's " +
            "(default ${DEFAULT-VALUE})")
    List<String> workloads;

    @Option(names = "--runs", paramLabel = "N",
        description = "measure every system N times, the runs interleaved (every system once, then again...), " +
            "and report each cell's median run with the spread of the N (default 1; 3 with --full)")
    Integer runsOption;

    @Option(names = "--no-jmh", description = "skip the JMH microbenchmarks")
    boolean noJmh;

    @Option(names = "--out", paramLabel = "DIR", description = "where results/ goes (default: the repository's " +
        "results/)")
    Path resultsOption;

    @Option(names = "--publish",
        description = "also copy the report and plots to benchmarks/published/ (committed; README links it)")
    boolean publish;

    @Option(names = "--root", paramLabel = "DIR", defaultValue = ".",
        description = "the repository (default ${DEFAULT-VALUE}; ./rivulet-bench passes it)")
    Path rootOption;

    @Option(names = "--command", paramLabel = "TEXT", defaultValue = "./rivulet-bench",
        description = "the command line the report quotes; ./rivulet-bench passes it (default ${DEFAULT-VALUE})")
    String command;

    @Option(names = "--rdma-build", paramLabel = "STATUS", defaultValue = "ok",
        description = "ok, or why the RDMA transport did not build (default ${DEFAULT-VALUE}; ./rivulet-bench " +
            "passes it)")
    String rdmaBuild;

    /** Runs the comparison with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(BenchCli.commandLine(new Coordinator()).execute(argv));
    }

    /** @return 0 after the report is written; {@link BenchCli#USAGE_EXIT_CODE} for a bad command line. */
    @Override
    public Integer call() throws Exception
    {
        final Path root = rootOption.toAbsolutePath().normalize();
        final String runMode = full ? "full" : mode;
        final Counts counts;
        try
        {
            counts = Counts.of(runMode);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(commandSpec.commandLine(), ex.getMessage());
        }
        final List<String> only = systems == null ? List.of() : systems;
        for (final String workload : workloads)
        {
            if (!SystemSpec.ALL_WORKLOADS.contains(workload))
            {
                throw new ParameterException(commandSpec.commandLine(), "--workloads: unknown workload '" + workload +
                    "'; known: " + SystemSpec.ALL_WORKLOADS);
            }
        }
        final boolean jmh = !noJmh;

        final long startNs = System.nanoTime();
        final ZonedDateTime started = ZonedDateTime.now(ZoneOffset.UTC);
        final Path results = (resultsOption != null ? resultsOption : root.resolve("results")).toAbsolutePath();
        final Path out = results.resolve(started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(out.resolve("logs"));

        final Jvm jvm = new Jvm(root);
        final Machine machine = Machine.describe(root);
        final List<SystemSpec> plan = new ArrayList<>();
        for (final SystemSpec spec : Plan.systems(jvm.rivuletFlagsFile().toString()))
        {
            if ((only.isEmpty() || only.contains(spec.id())) && !spec.workloads(workloads).isEmpty())
            {
                plan.add(spec);
            }
        }
        if (plan.isEmpty())
        {
            throw new ParameterException(commandSpec.commandLine(), "no system matches --systems " + only);
        }

        System.out.println("rivulet-bench: " + runMode + " mode, " + plan.size() + " systems, sizes " + sizes +
            (jmh ? ", then JMH" : ""));
        System.out.println("machine: " + machine.describe());
        System.out.println("counts:  " + counts.describe());
        System.out.println("output:  " + out);
        if (busy(machine))
        {
            System.out.println("warning: the machine is busy (load average " + machine.load() + "); other work " +
                "skews every row, spinning ones most");
        }

        final int rounds = runsOption != null ? runsOption : "full".equals(runMode) ? 3 : 1;
        if (rounds < 1)
        {
            throw new ParameterException(commandSpec.commandLine(), "--runs: at least 1, not " + rounds);
        }
        if (rounds > 1)
        {
            System.out.println("runs:    " + rounds + ", interleaved: every system once, then again; each cell " +
                "reports its median run and the spread");
        }
        int steps = jmh ? 1 : 0;
        for (final SystemSpec spec : plan)
        {
            steps += rounds * sizes.size() * spec.stepsPerSize(workloads);
        }
        final ProgressDisplay display = new ProgressDisplay(steps);
        // Interleaved, not N in a row: a slow minute of the machine then lands in one run of several systems,
        // not in every run of one.
        final List<List<SystemRun>> roundsBySystem = new ArrayList<>();
        plan.forEach(spec -> roundsBySystem.add(new ArrayList<>()));
        for (int round = 1; round <= rounds; round++)
        {
            for (int i = 0; i < plan.size(); i++)
            {
                final SystemSpec spec = plan.get(i);
                display.system(i + 1, plan.size(), spec.label() + (rounds > 1 ? " (run " + round + "/" + rounds + ")" :
                    ""));
                final SystemRun run = new SystemRun(spec);
                final long systemStartNs = System.nanoTime();
                try
                {
                    runSystem(run, jvm, counts, sizes, workloads, out, display, rdmaBuild);
                }
                catch (final Exception ex)
                {
                    run.errors.add("could not run: " + ex.getMessage());
                }
                run.wallNs = System.nanoTime() - systemStartNs;
                final int expected = sizes.size() * spec.stepsPerSize(workloads);
                display.stepsSkipped(Math.max(0, expected - run.results.size() - run.errors.size()));
                roundsBySystem.get(i).add(run);
                display.line(summary(run));
            }
        }
        final List<SystemRun> runs = new ArrayList<>();
        for (int i = 0; i < plan.size(); i++)
        {
            runs.add(SystemRun.merge(plan.get(i), roundsBySystem.get(i)));
        }

        List<Jmh.Score> scores = List.of();
        String jmhError = null;
        if (jmh)
        {
            display.system(plan.size(), plan.size(), "JMH microbenchmarks");
            try
            {
                scores = Jmh.run(jvm, counts, out, display);
            }
            catch (final Exception ex)
            {
                jmhError = ex.getMessage();
            }
            display.stepDone("JMH");
            display.line(jmhError == null ? "JMH: " + scores.size() + " scores" : "JMH failed: " + jmhError);
        }

        final long wallNs = System.nanoTime() - startNs;
        final Report report = new Report(machine, counts, sizes, command, started, wallNs, runs, scores, jmhError,
            workloads, rounds);
        // The tables first, so that nothing measured is lost if plotting fails or hangs.
        report.write(out, List.of(), "not drawn yet");
        final List<String> plots = new ArrayList<>();
        final String plotError = plot(out, runs, sizes, scores, plots);
        report.write(out, plots, plotError);
        latest(results, out);
        if (publish)
        {
            publish(out, root.resolve("benchmarks/published"));
        }

        System.out.println();
        System.out.println(Files.readString(out.resolve("summary.md"), StandardCharsets.UTF_8));
        System.out.println("rivulet-bench: finished in " + ProgressDisplay.clock(wallNs) + "; report " +
            out.resolve("results.md") + " (also " + results.resolve("latest") + ")");
        System.exit(0);
        if (plotError != null)
        {
            System.out.println("rivulet-bench: plots failed: " + plotError);
        }
        return 0;
    }

    /** Draws the plots on a thread of its own, given a minute. @return null, or why there are no plots. */
    private static String plot(
        final Path out,
        final List<SystemRun> runs,
        final List<Integer> sizes,
        final List<Jmh.Score> scores,
        final List<String> plots) throws InterruptedException
    {
        final String[] error = {null};
        final List<String> drawn = new java.util.concurrent.CopyOnWriteArrayList<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                drawn.addAll(Charts.write(out, runs, sizes, scores));
            }
            catch (final Exception | LinkageError ex)
            {
                error[0] = ex.toString() + (String.valueOf(ex).toLowerCase().contains("font") ?
                    " (headless AWT needs fonts: apt-get install fontconfig fonts-dejavu-core)" : "");
            }
        }, "plots");
        thread.setDaemon(true);
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(60));
        if (thread.isAlive())
        {
            return "plotting did not finish within 60 s";
        }
        plots.addAll(drawn);
        return error[0];
    }

    /** @return true when the 1-minute load average exceeds a quarter of the processors. */
    static boolean busy(final Machine machine)
    {
        try
        {
            return Double.parseDouble(machine.load().split(" ")[0]) > machine.cpus() / 4.0;
        }
        catch (final RuntimeException ex)
        {
            return false;
        }
    }

    private static String summary(final SystemRun run)
    {
        if (run.skipped != null)
        {
            return run.spec.label() + ": skipped: " + run.skipped;
        }
        return String.format(Locale.ROOT, "%s: %d results%s in %s", run.spec.label(), run.results.size(),
            run.errors.isEmpty() ? "" : ", " + run.errors.size() + " errors (" + run.errors.get(0) + ")",
            ProgressDisplay.clock(run.wallNs));
    }

    private static void runSystem(
        final SystemRun run,
        final Jvm jvm,
        final Counts counts,
        final List<Integer> sizes,
        final List<String> workloads,
        final Path out,
        final ProgressDisplay display,
        final String rdmaBuild) throws Exception
    {
        final SystemSpec spec = run.spec;
        String classPath = jvm.classPath(spec.module());
        if (spec.needsRdma())
        {
            final String rdma = jvm.rdmaClassPath();
            if (!"ok".equals(rdmaBuild) || rdma == null)
            {
                run.skipped = "rdma transport not built yet (" + ("ok".equals(rdmaBuild) ?
                    "benchmarks/rdma has no class path file" : rdmaBuild) + ")";
                return;
            }
            classPath = classPath + ":" + rdma;
            final String probe = probe(jvm, classPath, spec, out);
            if (probe != null)
            {
                run.skipped = "rdma transport not built yet (" + probe + ")";
                return;
            }
        }

        Process server = null;
        Thread serverDrain = null;
        final List<String> clientArgs = new ArrayList<>(spec.clientArgs());
        try
        {
            if (spec.serverMain() != null)
            {
                display.message("starting the server");
                server = jvm.start(jvm.command(classPath, spec.jvmFlags(), spec.serverMain(), spec.serverArgs()),
                    out.resolve("logs/" + spec.id() + "-server.log"));
                final BlockingQueue<Line> ready = new ArrayBlockingQueue<>(1);
                serverDrain = drain(server, out.resolve("logs/" + spec.id() + "-server.log"), ready);
                final Line line = ready.poll(READY_TIMEOUT_S, TimeUnit.SECONDS);
                if (line == null || !Line.READY.equals(line.type()))
                {
                    throw new IOException("server did not start" + (line == null ? " within " + READY_TIMEOUT_S + " s" :
                        ": " + line.get("message", "")) + "; see logs/" + spec.id() + "-server.log");
                }
                // Whatever the server says the client needs: its port, a second port, Aeron's directory...
                line.fields().forEach((key, value) ->
                {
                    if (!"address".equals(key))
                    {
                        clientArgs.add("--" + key);
                        clientArgs.add(value);
                    }
                });
            }
            clientArgs.addAll(counts.clientArgs());
            clientArgs.add("--workloads");
            clientArgs.add(String.join(",", spec.workloads(workloads)));
            clientArgs.add("--sizes");
            clientArgs.add(join(sizes));
            runClient(run, jvm, classPath, clientArgs, counts, out, display);
        }
        finally
        {
            if (server != null)
            {
                stop(server);
                serverDrain.join(5_000);
            }
        }
    }

    private static void runClient(
        final SystemRun run,
        final Jvm jvm,
        final String classPath,
        final List<String> clientArgs,
        final Counts counts,
        final Path out,
        final ProgressDisplay display) throws Exception
    {
        final SystemSpec spec = run.spec;
        final Path log = out.resolve("logs/" + spec.id() + "-client.log");
        final Process client = jvm.start(jvm.command(classPath, spec.jvmFlags(), spec.clientMain(), clientArgs), log);
        client.getOutputStream().close();
        final String[] lastProgress = {"before any progress"};
        final Thread watchdog = new Thread(() ->
        {
            try
            {
                if (!client.waitFor(counts.timeoutS(), TimeUnit.SECONDS))
                {
                    run.errors.add("timed out after " + counts.timeoutS() + " s, at " + lastProgress[0]);
                    client.destroyForcibly();
                }
            }
            catch (final InterruptedException ignore)
            {
                // The client finished.
            }
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(client.getInputStream(),
            StandardCharsets.UTF_8));
             BufferedWriter logWriter = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.APPEND))
        {
            String text;
            while ((text = reader.readLine()) != null)
            {
                final Line line = Line.parse(text);
                if (line == null || !Line.PROGRESS.equals(line.type()))
                {
                    logWriter.write(line != null && Line.RESULT.equals(line.type()) ? text.replaceAll("\t(load)?[hH]ist=\\S+", "") :
                        text);
                    logWriter.newLine();
                    logWriter.flush();
                }
                if (line == null)
                {
                    continue;
                }
                switch (line.type())
                {
                    case Line.INFO:
                        run.info = line;
                        break;
                    case Line.PROGRESS:
                        display.progress(line.get("label"), line.number("done"), line.number("total"));
                        lastProgress[0] = String.format(Locale.ROOT, "%s %,d/%,d", line.get("label"),
                            line.number("done"), line.number("total"));
                        break;
                    case Line.RESULT:
                        final SystemRun.Result result = SystemRun.Result.parse(run, line);
                        run.results.add(result);
                        display.stepDone(result.workload() + " " + result.size() + " B " + result.api());
                        break;
                    case Line.ERROR:
                        run.errors.add(line.get("workload") + " " + line.get("size", "") +
                            (line.get("api") != null ? " " + line.get("api") : "") + ": " + line.get("message"));
                        display.stepDone(line.get("workload") + " failed");
                        break;
                    default:
                        break;
                }
            }
        }
        client.waitFor(10, TimeUnit.SECONDS);
        watchdog.interrupt();
        if (client.isAlive())
        {
            client.destroyForcibly();
        }
        else if (client.exitValue() != 0 && run.errors.isEmpty())
        {
            run.errors.add("client exited with " + client.exitValue() + "; see logs/" + spec.id() + "-client.log");
        }
    }

    /** @return null when the transport is there, else why not. */
    private static String probe(final Jvm jvm, final String classPath, final SystemSpec spec, final Path out)
        throws Exception
    {
        final Path log = out.resolve("logs/" + spec.id() + "-probe.log");
        final Process probe = jvm.start(jvm.command(classPath, spec.jvmFlags(), "io.rivulet.bench.rivulet.RivuletProbe",
            List.of("rdma")), log);
        probe.getOutputStream().close();
        final String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!probe.waitFor(60, TimeUnit.SECONDS))
        {
            probe.destroyForcibly();
            return "the probe did not finish";
        }
        Files.writeString(log, output, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        for (final String text : output.split("\n"))
        {
            final Line line = Line.parse(text);
            if (line != null && Line.INFO.equals(line.type()))
            {
                return Boolean.parseBoolean(line.get("available")) ? null : line.get("reason");
            }
        }
        return "the probe failed; see logs/" + spec.id() + "-probe.log";
    }

    /** Copies a server's stdout to its log, handing the first READY or ERROR line to {@code ready}. */
    private static Thread drain(final Process process, final Path log, final BlockingQueue<Line> ready)
    {
        final Thread thread = new Thread(() ->
        {
            boolean signalled = false;
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                String text;
                while ((text = reader.readLine()) != null)
                {
                    Files.writeString(log, text + System.lineSeparator(), StandardCharsets.UTF_8,
                        StandardOpenOption.APPEND);
                    final Line line = Line.parse(text);
                    if (!signalled && line != null && (Line.READY.equals(line.type()) || Line.ERROR.equals(line.type())))
                    {
                        ready.offer(line);
                        signalled = true;
                    }
                }
            }
            catch (final IOException ignore)
            {
                // The process is gone.
            }
            if (!signalled)
            {
                ready.offer(Line.of(Line.ERROR, "message", "exited with " + exitValue(process)));
            }
        }, "server-output");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static String exitValue(final Process process)
    {
        try
        {
            return String.valueOf(process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : "still running");
        }
        catch (final InterruptedException ex)
        {
            return "unknown";
        }
    }

    /** Closing the server's standard input asks it to stop; it is killed if it does not. */
    private static void stop(final Process server) throws InterruptedException
    {
        try
        {
            server.getOutputStream().close();
        }
        catch (final IOException ignore)
        {
            // Already gone.
        }
        if (!server.waitFor(10, TimeUnit.SECONDS))
        {
            server.destroy();
            if (!server.waitFor(5, TimeUnit.SECONDS))
            {
                server.destroyForcibly();
            }
        }
    }

    /** Points results/latest at this run: a relative symbolic link, or a copy where links are not possible. */
    private static void latest(final Path results, final Path out) throws IOException
    {
        final Path latest = results.resolve("latest");
        if (Files.isSymbolicLink(latest) || Files.isRegularFile(latest))
        {
            Files.delete(latest);
        }
        else if (Files.isDirectory(latest))
        {
            try (Stream<Path> walk = Files.walk(latest))
            {
                walk.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
            }
        }
        try
        {
            Files.createSymbolicLink(latest, out.getFileName());
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            try (Stream<Path> walk = Files.walk(out))
            {
                for (final Path path : (Iterable<Path>)walk::iterator)
                {
                    final Path target = latest.resolve(out.relativize(path).toString());
                    if (Files.isDirectory(path))
                    {
                        Files.createDirectories(target);
                    }
                    else
                    {
                        Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
    }

    /**
     * Copies the report and plots (not the logs) to benchmarks/published/, which is committed, so README
     * can show the plots of the run its Performance section quotes.
     */
    private static void publish(final Path out, final Path published) throws IOException
    {
        Files.createDirectories(published);
        try (Stream<Path> old = Files.list(published))
        {
            for (final Path path : (Iterable<Path>)old::iterator)
            {
                final String name = path.getFileName().toString();
                if (name.endsWith(".png") || name.endsWith(".md") || name.endsWith(".csv"))
                {
                    Files.delete(path);
                }
            }
        }
        try (Stream<Path> files = Files.list(out))
        {
            for (final Path path : (Iterable<Path>)files::iterator)
            {
                if (Files.isRegularFile(path))
                {
                    Files.copy(path, published.resolve(path.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        System.out.println("rivulet-bench: published to " + published);
    }

    private static String join(final List<Integer> values)
    {
        final StringBuilder text = new StringBuilder();
        for (final Integer value : values)
        {
            text.append(text.length() == 0 ? "" : ",").append(value);
        }
        return text.toString();
    }
}
