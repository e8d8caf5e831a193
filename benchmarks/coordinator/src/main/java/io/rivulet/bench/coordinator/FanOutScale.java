package io.rivulet.bench.coordinator;

import io.rivulet.bench.harness.Line;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Fan-out at scale: one publisher to 1, 8 and 64 subscribers over UDP multicast, Rivulet's per-path UDP datagrams
 * and TCP, beside Aeron's UDP multicast, in the same run ({@code ./rivulet-bench fanout-scale}). Each cell (system,
 * size, subscribers) starts a publisher process and a subscriber process holding every subscriber ({@code
 * io.rivulet.bench.harness.ScaleFanOut}), publishes a warm-up run flat out, then a measured run flat out (the
 * delivered rate per subscriber: every subscriber gets every message, in order), an idle interval, then runs paced
 * at half a rate every system keeps up with and at the full rate (the publisher's marginal CPU per message below
 * saturation, {@link Sample#marginalPublisherCpuPerMessage}). CPU is each process's, from {@link ProcessCpu}.
 *
 * <p>Runs are interleaved: every run measures every cell, the systems of a cell one after another, in reverse order
 * on odd runs; ratios are taken within a run and reported as their median with min-max ({@link FanOutScaleReport}).
 *
 * <p>Multicast needs a network of its own: this refuses to run where an interface other than {@code lo} is up, and
 * {@code ./rivulet-bench fanout-scale} starts it in a fresh network namespace (lo up, multicast on, a route for
 * 224.0.0.0/4), so nothing reaches the host's interfaces.
 */
@Command(name = "rivulet-bench fanout-scale", mixinStandardHelpOptions = true,
    description = "Fan-out 1->N over UDP multicast, per-path UDP and TCP beside Aeron UDP multicast, in a network " +
        "namespace; writes results/fanout-scale-<timestamp>/ (report.md, runs.csv, logs/).")
public final class FanOutScale implements Callable<Integer>
{
    /** Group of Rivulet's multicast rows. */
    static final String RIVULET_GROUP = "239.255.40.1:40456";
    /** Group of Aeron's multicast rows (Aeron wants an odd data address; the next one is its control address). */
    static final String AERON_GROUP = "239.255.40.3:40457";
    private static final long REPLY_TIMEOUT_S = 180;

    @Option(names = "--root", required = true, description = "the repository")
    Path root;

    @Option(names = "--command", description = "the command line, quoted in the report")
    String command = "./rivulet-bench fanout-scale";

    @Option(names = "--systems", split = ",", description = "ids, in order (default: all): ${DEFAULT-VALUE}",
        defaultValue = "rivulet-udp-multicast,aeron-udp-multicast,rivulet-udp,rivulet-tcp")
    List<String> systems;

    @Option(names = "--subscribers", split = ",", defaultValue = "1,8,64", description = "default ${DEFAULT-VALUE}")
    List<Integer> subscribers;

    @Option(names = "--sizes", split = ",", defaultValue = "32,256", description = "default ${DEFAULT-VALUE}")
    List<Integer> sizes;

    @Option(names = "--runs", defaultValue = "5", description = "interleaved runs (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--count", defaultValue = "400000",
        description = "flat-out messages at 1->1; 1->8 and more publish half (default ${DEFAULT-VALUE})")
    long count;

    @Option(names = "--paced-rate", defaultValue = "20000", description = "messages/s (default ${DEFAULT-VALUE})")
    long pacedRate;

    @Option(names = "--paced-seconds", defaultValue = "2", description = "default ${DEFAULT-VALUE}")
    long pacedSeconds;

    @Option(names = "--out", description = "where results/ goes (default: the repository's results/)")
    Path out;

    /** One system: how its two processes start. */
    record Scale(String id, String label, String module, String main, List<String> publisherFlags,
        List<String> subscriberFlags, String how)
    {
        List<String> publisherArgs(final int size)
        {
            return main.endsWith("AeronScaleFanOut") ?
                List.of("publisher", Integer.toString(size), aeronChannel() + "|fc=min") :
                List.of(Integer.toString(size));
        }

        List<String> subscriberArgs(final String port, final int subscribers)
        {
            return main.endsWith("AeronScaleFanOut") ?
                List.of("subscribers", Integer.toString(subscribers), aeronChannel()) :
                List.of(port, Integer.toString(subscribers));
        }

        String subscriberMain()
        {
            return main.endsWith("AeronScaleFanOut") ? main : "io.rivulet.bench.rivulet.ScaleFanOutSubscribers";
        }

        private static String aeronChannel()
        {
            return "aeron:udp?endpoint=" + AERON_GROUP + "|interface=127.0.0.1";
        }
    }

    /** One measurement: a cell in a run. Times in ns; CPU per message in ns; -1 where it failed. */
    record Sample(int run, int order, String system, int size, int subscribers, long count, long elapsedNs,
        long publisherCpuNs, long subscriberCpuNs, long pacedCount, long pacedElapsedNs, long pacedPublisherCpuNs,
        long pacedSubscriberCpuNs, long halfCount, long halfElapsedNs, long halfPublisherCpuNs, long idleElapsedNs,
        long idlePublisherCpuNs, String error)
    {
        double ratePerSubscriber()
        {
            return error != null ? Double.NaN : count * 1e9 / elapsedNs;
        }

        double publisherCpuPerMessage()
        {
            return error != null ? Double.NaN : publisherCpuNs / (double)count;
        }

        double pacedPublisherCpuPerMessage()
        {
            return error != null ? Double.NaN : pacedPublisherCpuNs / (double)pacedCount;
        }

        /**
         * @return the publisher's CPU per message added between a run paced at half the rate and one at the full
         * rate, both in bursts every {@link ScaleFanOut#PACING_TICK_NS}: the engine's wake-ups (one per burst), its
         * idle polling and its timers are the same in both, so what differs is what the messages cost, status
         * messages and repairs included. The per-message figure of a single paced run is mostly wake-ups.
         */
        double marginalPublisherCpuPerMessage()
        {
            if (error != null || halfElapsedNs <= 0 || pacedElapsedNs <= 0)
            {
                return Double.NaN;
            }
            final double cpuPerSecond = pacedPublisherCpuNs / (double)pacedElapsedNs -
                halfPublisherCpuNs / (double)halfElapsedNs;
            final double messagesPerSecond = pacedCount / (double)pacedElapsedNs - halfCount / (double)halfElapsedNs;
            return cpuPerSecond / messagesPerSecond;
        }

        /** @return the publisher's share of one core while connected and idle. */
        double idlePublisherCores()
        {
            return error != null || idleElapsedNs <= 0 ? Double.NaN : idlePublisherCpuNs / (double)idleElapsedNs;
        }

        double subscriberCpuPerDelivery()
        {
            return error != null ? Double.NaN : subscriberCpuNs / (double)(count * subscribers);
        }

        /** @return true when the paced run took more than 20 % longer than its schedule: the system saturated. */
        boolean pacedSaturated(final long pacedRate)
        {
            return error == null && pacedElapsedNs > 1.2e9 * pacedCount / pacedRate;
        }
    }

    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new FanOutScale()).execute(args));
    }

    static List<Scale> allSystems(final String rivuletFlagsFile)
    {
        final List<String> rivulet = List.of("@" + rivuletFlagsFile);
        final List<String> udp = List.of("-Drivulet.datagrams=udp", "-Drivulet.udp.bind=127.0.0.1:0",
            "-Drivulet.udp.interface=lo");
        final String rivuletMain = "io.rivulet.bench.rivulet.ScaleFanOutPublisher";
        final String aeronMain = "io.rivulet.bench.aeron.AeronScaleFanOut";
        return List.of(
            new Scale("rivulet-udp-multicast", "Rivulet UDP multicast", "rivulet", rivuletMain,
                concat(rivulet, udp, List.of("-Drivulet.topicMulticast=bench.>=" + RIVULET_GROUP)),
                concat(rivulet, udp, List.of("-Drivulet.topicMulticastReceive=true")),
                "rivulet.topicMulticast: one stream to " + RIVULET_GROUP + " on lo; each subscriber connection an " +
                    "image of the node's one receiving socket (the publisher hears N receivers)"),
            new Scale("aeron-udp-multicast", "Aeron 1.46.7 UDP multicast", "aeron", aeronMain,
                List.of("--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED"),
                List.of("--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED"),
                "aeron:udp?endpoint=" + AERON_GROUP + "|interface=127.0.0.1|fc=min; N subscriptions of the " +
                    "subscriber's driver read its one image (the publisher hears 1 receiver)"),
            new Scale("rivulet-udp", "Rivulet UDP per path", "rivulet", rivuletMain,
                concat(rivulet, udp, List.of("-Drivulet.topicDatagrams=true")),
                concat(rivulet, udp, List.of("-Drivulet.topicDatagrams=true")),
                "rivulet.topicDatagrams: the reliable per-path datagram protocol, one UDP datagram stream per " +
                    "subscriber (the UD path's protocol)"),
            new Scale("rivulet-tcp", "Rivulet TCP", "rivulet", rivuletMain, rivulet, rivulet,
                "each subscriber's TCP connection"));
    }

    @SafeVarargs
    private static List<String> concat(final List<String>... lists)
    {
        final List<String> all = new ArrayList<>();
        for (final List<String> list : lists)
        {
            all.addAll(list);
        }
        return all;
    }

    @Override
    public Integer call() throws Exception
    {
        final String outside = interfacesOtherThanLoopback();
        if (!outside.isEmpty())
        {
            System.err.println("fanout-scale: interfaces other than lo are up here (" + outside + "); multicast must " +
                "not reach them. Run it as ./rivulet-bench fanout-scale, which starts it in a network namespace.");
            return 2;
        }
        final Jvm jvm = new Jvm(root);
        final List<Scale> chosen = new ArrayList<>();
        for (final String id : systems)
        {
            chosen.add(allSystems(jvm.rivuletFlagsFile().toString()).stream().filter(s -> s.id().equals(id))
                .findFirst().orElseThrow(() -> new CommandLine.ParameterException(new CommandLine(this),
                    "unknown system " + id + "; known: " + allSystems("x").stream().map(Scale::id).toList())));
        }
        final String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd_HH-mm-ss"));
        final Path dir = (out != null ? out : root.resolve("results")).toAbsolutePath().resolve("fanout-scale-" + stamp);
        Files.createDirectories(dir.resolve("logs"));
        final List<Sample> samples = new ArrayList<>();
        final long startNs = System.nanoTime();
        final int cells = runs * sizes.size() * subscribers.size() * chosen.size();
        int done = 0;
        for (int run = 1; run <= runs; run++)
        {
            for (final int size : sizes)
            {
                for (final int n : subscribers)
                {
                    final List<Scale> order = new ArrayList<>(chosen);
                    if (run % 2 == 0)
                    {
                        Collections.reverse(order);
                    }
                    for (int position = 0; position < order.size(); position++)
                    {
                        final Scale system = order.get(position);
                        final Sample sample = measure(jvm, dir, system, run, position, size, n);
                        samples.add(sample);
                        done++;
                        System.out.printf("[%3d/%d %4.0f s] run %d %-22s %4d B 1->%-2d %s%n", done, cells,
                            (System.nanoTime() - startNs) / 1e9, run, system.id(), size, n,
                            sample.error() != null ? "ERROR " + sample.error() : String.format(
                                "%,.0f msg/s per subscriber, publisher %.0f ns/msg flat out, %.0f ns/msg paced " +
                                    "(%.0f marginal, idle %.2f cores)",
                                sample.ratePerSubscriber(), sample.publisherCpuPerMessage(),
                                sample.pacedPublisherCpuPerMessage(), sample.marginalPublisherCpuPerMessage(),
                                sample.idlePublisherCores()));
                    }
                }
            }
        }
        writeCsv(dir.resolve("runs.csv"), samples);
        final String report = new FanOutScaleReport(chosen, sizes, subscribers, pacedRate, samples)
            .render(command, Machine.describe(root), (System.nanoTime() - startNs) / 1e9);
        Files.writeString(dir.resolve("report.md"), report, StandardCharsets.UTF_8);
        System.out.println(report);
        System.out.println("fanout-scale: " + dir.resolve("report.md"));
        return samples.stream().anyMatch(s -> s.error() != null) ? 1 : 0;
    }

    private long countFor(final int n)
    {
        return n >= 8 ? count / 2 : count;
    }

    private Sample measure(final Jvm jvm, final Path dir, final Scale system, final int run, final int order,
        final int size, final int n) throws IOException, InterruptedException
    {
        final long flat = countFor(n);
        final long paced = pacedRate * pacedSeconds;
        final String name = system.id() + "-" + size + "-" + n + "-run" + run;
        final String classPath = jvm.classPath(system.module());
        Peer publisher = null;
        Peer subscribers = null;
        try
        {
            publisher = Peer.start(jvm, jvm.command(classPath, system.publisherFlags(), system.main(),
                system.publisherArgs(size)), dir.resolve("logs").resolve(name + "-publisher.log"));
            final Line ready = publisher.expect(Line.READY);
            subscribers = Peer.start(jvm, jvm.command(classPath, system.subscriberFlags(), system.subscriberMain(),
                system.subscriberArgs(ready.get("port"), n)), dir.resolve("logs").resolve(name + "-subscribers.log"));
            subscribers.expect(Line.READY);
            long target = 0;
            target = runOnce(publisher, subscribers, flat, 0, target).target; // warm-up
            final Measured measured = runOnce(publisher, subscribers, flat, 0, target);
            target = measured.target;
            Thread.sleep(1_000); // what the flat-out run left (repairs, compilation) settles before the idle interval
            final long idleStartNs = System.nanoTime();
            final long idleCpu = ProcessCpu.nanos(publisher.process.pid());
            Thread.sleep(TimeUnit.SECONDS.toMillis(pacedSeconds));
            final long idlePublisherCpuNs = ProcessCpu.nanos(publisher.process.pid()) - idleCpu;
            final long idleElapsedNs = System.nanoTime() - idleStartNs;
            final Measured halfRun = runOnce(publisher, subscribers, paced / 2, pacedRate / 2, target);
            target = halfRun.target;
            final Measured pacedRun = runOnce(publisher, subscribers, paced, pacedRate, target);
            return new Sample(run, order, system.id(), size, n, flat, measured.elapsedNs, measured.publisherCpuNs,
                measured.subscriberCpuNs, paced, pacedRun.elapsedNs, pacedRun.publisherCpuNs,
                pacedRun.subscriberCpuNs, paced / 2, halfRun.elapsedNs, halfRun.publisherCpuNs, idleElapsedNs,
                idlePublisherCpuNs, null);
        }
        catch (final Exception ex)
        {
            return new Sample(run, order, system.id(), size, n, flat, -1, -1, -1, paced, -1, -1, -1, paced / 2, -1, -1, -1, -1,
                String.valueOf(ex.getMessage()).replace(',', ';'));
        }
        finally
        {
            if (subscribers != null)
            {
                subscribers.stop();
            }
            if (publisher != null)
            {
                publisher.stop();
            }
        }
    }

    private record Measured(long target, long elapsedNs, long publisherCpuNs, long subscriberCpuNs)
    {
    }

    private static Measured runOnce(final Peer publisher, final Peer subscribers, final long count, final long rate,
        final long before) throws IOException, InterruptedException
    {
        final long target = before + count;
        final long publisherCpu = ProcessCpu.nanos(publisher.process.pid());
        final long subscriberCpu = ProcessCpu.nanos(subscribers.process.pid());
        subscribers.send(Line.of(Line.AWAIT, "target", target));
        publisher.send(Line.of(Line.PUBLISH, "count", count, "rate", rate));
        final Line published = publisher.expect(Line.PUBLISHED);
        final Line received = subscribers.expect(Line.RECEIVED);
        final long publisherCpuNs = ProcessCpu.nanos(publisher.process.pid()) - publisherCpu;
        final long subscriberCpuNs = ProcessCpu.nanos(subscribers.process.pid()) - subscriberCpu;
        return new Measured(target, received.number("lastNs") - published.number("startNs"), publisherCpuNs,
            subscriberCpuNs);
    }

    private static void writeCsv(final Path file, final List<Sample> samples) throws IOException
    {
        final List<String> lines = new ArrayList<>();
        lines.add("run,order,system,size,subscribers,count,elapsedNs,ratePerSubscriber,publisherCpuNs," +
            "subscriberCpuNs,pacedCount,pacedElapsedNs,pacedPublisherCpuNs,pacedSubscriberCpuNs,halfCount," +
            "halfElapsedNs,halfPublisherCpuNs,idleElapsedNs," +
            "idlePublisherCpuNs,error");
        for (final Sample s : samples)
        {
            lines.add(s.run() + "," + s.order() + "," + s.system() + "," + s.size() + "," + s.subscribers() + "," +
                s.count() + "," + s.elapsedNs() + "," + String.format("%.0f", s.ratePerSubscriber()) + "," +
                s.publisherCpuNs() + "," + s.subscriberCpuNs() + "," + s.pacedCount() + "," + s.pacedElapsedNs() +
                "," + s.pacedPublisherCpuNs() + "," + s.pacedSubscriberCpuNs() + "," + s.halfCount() + "," +
                s.halfElapsedNs() + "," + s.halfPublisherCpuNs() + "," + s.idleElapsedNs() + "," +
                s.idlePublisherCpuNs() + "," + (s.error() == null ? "" : s.error()));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** @return the names of the interfaces that are up, other than loopback (empty inside a fresh namespace). */
    static String interfacesOtherThanLoopback() throws SocketException
    {
        return NetworkInterface.networkInterfaces()
            .filter(i ->
            {
                try
                {
                    return i.isUp() && !i.isLoopback();
                }
                catch (final SocketException ex)
                {
                    return true;
                }
            })
            .map(NetworkInterface::getName).collect(Collectors.joining(", "));
    }

    /** A role's process: its protocol lines arrive on a queue, its other output goes to its log. */
    private static final class Peer
    {
        final Process process;
        final PrintStream in;
        final BlockingQueue<Line> lines = new ArrayBlockingQueue<>(64);

        private Peer(final Process process, final Path log)
        {
            this.process = process;
            this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            final Thread reader = new Thread(() -> read(log), "fanout-scale-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        static Peer start(final Jvm jvm, final List<String> command, final Path log) throws IOException
        {
            return new Peer(jvm.start(command, log), log);
        }

        private void read(final Path log)
        {
            try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                String text;
                while ((text = out.readLine()) != null)
                {
                    Files.writeString(log, text + System.lineSeparator(), StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.APPEND);
                    final Line line = Line.parse(text);
                    if (line != null && !Line.PROGRESS.equals(line.type()))
                    {
                        lines.put(line);
                    }
                }
            }
            catch (final IOException | InterruptedException ended)
            {
                // The process ended; expect() says so.
            }
        }

        void send(final Line line)
        {
            in.println(line);
        }

        Line expect(final String type) throws InterruptedException, IOException
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(REPLY_TIMEOUT_S);
            Line line;
            // Polled in slices so a process that died is reported at once, not at the timeout.
            while ((line = lines.poll(200, TimeUnit.MILLISECONDS)) == null)
            {
                if (!process.isAlive() && lines.isEmpty())
                {
                    process.waitFor(1, TimeUnit.SECONDS);
                    throw new IOException("no " + type + ": the process exited with " + process.exitValue() +
                        " (see its log)");
                }
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new IOException("no " + type + " within " + REPLY_TIMEOUT_S + " s");
                }
            }
            if (Line.ERROR.equals(line.type()))
            {
                throw new IOException(line.get("message"));
            }
            if (!type.equals(line.type()))
            {
                throw new IOException("expected " + type + ", got " + line);
            }
            return line;
        }

        void stop() throws InterruptedException
        {
            in.close();
            if (!process.waitFor(15, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
