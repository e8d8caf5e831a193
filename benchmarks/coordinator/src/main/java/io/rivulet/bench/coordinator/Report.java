package io.rivulet.bench.coordinator;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes results.md (every row with its system, version, settings and counts), results.csv, and summary.md
 * (the short form the console prints and README's Performance section shows).
 */
final class Report
{
    private static final String PINGPONG = "pingpong";
    private static final String ONEWAY = "oneway";
    private static final String REQRESP = "reqresp";
    private static final String FANOUT = "fanout";
    /** In {@link #ratios}: the results with the window's requests in flight rather than one API. */
    private static final String IN_FLIGHT = "in flight";

    private final Machine machine;
    private final Counts counts;
    private final List<Integer> sizes;
    private final String command;
    private final ZonedDateTime started;
    private final long wallNs;
    private final List<SystemRun> runs;
    private final List<Jmh.Score> scores;
    private final String jmhError;
    private final List<String> workloads;
    private final int rounds;

    Report(
        final Machine machine,
        final Counts counts,
        final List<Integer> sizes,
        final String command,
        final ZonedDateTime started,
        final long wallNs,
        final List<SystemRun> runs,
        final List<Jmh.Score> scores,
        final String jmhError,
        final List<String> workloads,
        final int rounds)
    {
        this.rounds = rounds;
        this.machine = machine;
        this.counts = counts;
        this.sizes = sizes;
        this.command = command;
        this.started = started;
        this.wallNs = wallNs;
        this.runs = runs;
        this.scores = scores;
        this.jmhError = jmhError;
        this.workloads = workloads;
    }

    void write(final Path out, final List<String> plots, final String plotError) throws IOException
    {
        Files.writeString(out.resolve("results.md"), full(plots, plotError), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("summary.md"), summary(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("results.csv"), csv(), StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------------------------ results.md

    private String full(final List<String> plots, final String plotError)
    {
        final StringBuilder md = new StringBuilder();
        md.append("# Rivulet benchmark results, ").append(date()).append("\n\n");
        header(md);

        md.append("## Systems\n\n");
        md.append("| system | version | transport | topology | settings | wall time |\n|---|---|---|---|---|---|\n");
        for (final SystemRun run : runs)
        {
            if (run.skipped != null)
            {
                md.append(row(run.spec.label(), "—", "—", "—", "skipped: " + run.skipped, "—"));
                continue;
            }
            md.append(row(run.spec.label(), run.version(), info(run, "transport"), info(run, "topology"),
                info(run, "settings"), ProgressDisplay.clock(run.wallNs)));
        }
        md.append("\nJVM of every process: ").append(info(firstMeasured(), "jvm")).append(", flags `")
            .append(String.join(" ", Plan.COMMON_JVM_FLAGS)).append("` plus what each system needs (Rivulet: `")
            .append("--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/sun.nio.ch=ALL-UNNAMED`")
            .append("; Aeron: `--add-opens java.base/sun.nio.ch=ALL-UNNAMED`).\n\n");

        md.append("## Ping-pong round-trip latency\n\n");
        md.append("One message in flight; each round trip timed on the client (HdrHistogram, µs).\n\n");
        md.append("| system | version | settings | API | size | warm-up + measured | p50 | p90 | p99 | p99.9 | max | " +
            "round trips/s |\n|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (final int size : sizes)
        {
            for (final SystemRun.Result r : results(PINGPONG, size))
            {
                final Histogram h = r.histogram();
                md.append(row(r.label(), r.run().version(), r.run().spec.settings(), r.api(), size + " B",
                    countText(r), us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(90)),
                    us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()),
                    range(r)));
            }
        }
        skippedRows(md, 12);

        md.append("\n## One-way throughput\n\n");
        md.append("Messages sent as fast as the API allows, respecting its back-pressure; timed until the receiver " +
            "confirms it counted them all. Rivulet is measured on three APIs: `offer` (the zero-copy path into the " +
            "outbound ring), `fireAndForget` (one `Mono` per message, bounded by a confirmation every 8,192) and " +
            "`requestChannel` (the Flux API: every message in the inbound `Flux` of one request-channel, the server's " +
            "demand carried back as credits).\n\n");
        md.append("| system | version | settings | API | size | warm-up + measured | messages/s | MiB/s |\n" +
            "|---|---|---|---|--:|--:|--:|--:|\n");
        for (final int size : sizes)
        {
            for (final SystemRun.Result r : results(ONEWAY, size))
            {
                md.append(row(r.label(), r.run().version(), r.run().spec.settings(), r.api(), size + " B",
                    countText(r), range(r), decimal(r.mibPerSecond())));
            }
        }
        skippedRows(md, 8);

        md.append("\n## Request-response throughput\n\n");
        md.append("Rivulet and RSocket are measured the ways users write request-response: a `flatMap` chain with ")
            .append(counts.window()).append(" requests in flight (`Flux.range(..).flatMap(i -> requestResponse(..), ")
            .append(counts.window()).append(")`), Rivulet's zero-copy `offerRequest` with as many in flight (a loop " +
                "that offers while fewer are out, one `ReplyHandler` taking the replies on the engine thread, as an " +
                "Aeron application writes it; Rivulet's server answers every request in place, with the zero-copy " +
                "`requestResponseHandler`), a `concatMap` chain (the next request sent from the previous " +
                "reply's signal) and a blocking caller (`requestResponse(..).block()` per request); the last two have " +
                "one request in flight and get the ping-pong counts. On Rivulet's INVOKER row, `block()` runs the node's " +
                "duty cycle while it waits. The floors and Aeron keep ")
            .append(counts.window()).append(" in flight with their own loops. Latency is per request, from send to " +
                "reply (with ").append(counts.window()).append(" in flight it includes their queueing), µs.\n\n");
        md.append("| system | version | settings | API | in flight | size | warm-up + measured | requests/s | p50 | p99 | " +
            "p99.9 |\n|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (final int size : sizes)
        {
            for (final SystemRun.Result r : results(REQRESP, size))
            {
                final Histogram h = r.histogram();
                md.append(row(r.label(), r.run().version(), r.run().spec.settings(), r.api(), "" + r.window(),
                    size + " B", countText(r), range(r), us(h.getValueAtPercentile(50)),
                    us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9))));
            }
        }
        skippedRows(md, 11);

        md.append("\n## Fan-out 1→").append(counts.subscribers()).append("\n\n");
        md.append("One publisher, ").append(counts.subscribers()).append(" subscribers, each receiving every message " +
            "(checked: in order, none missing). Two runs per size after the warm-up: **flat out**, the publisher " +
            "offering as fast as its back-pressure allows, which gives the throughput — messages/s delivered to all ")
            .append(counts.subscribers()).append(" (timed until the slowest subscriber has the last one; deliveries/s " +
                "counts each subscriber's copy) — and a latency that is mostly queueing behind that back-pressure; " +
                "then **paced** at ").append(number(counts.foRate())).append(" messages/s, or half the flat-out rate " +
                "when that is lower (the row says which), for up to ").append(number(counts.foPaced()))
            .append(" messages or ").append(counts.foPacedSeconds()).append(" s: the latency below saturation, without " +
                "the queueing. Latency runs from the " +
                "publication timestamp in each message's payload (System.nanoTime at the offer that took it; one clock " +
                "for every process of the host) to its delivery to a subscriber; every delivery of every subscriber in " +
                "one HdrHistogram, µs.\n\n");
        md.append("| system | version | fan-out settings | API | size | warm-up + measured | messages/s (to all) | " +
            "deliveries/s | flat-out p50 | flat-out p99 | paced at msg/s | paced p50 | paced p90 | paced p99 | paced p99.9 | " +
            "paced max |\n|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (final int size : sizes)
        {
            for (final SystemRun.Result r : results(FANOUT, size))
            {
                final Histogram h = r.histogram();
                final Histogram loaded = r.loadHistogram();
                md.append(row(r.label(), r.run().version(), r.settings(), r.api(), size + " B",
                    countText(r) + " + " + String.format(Locale.ROOT, "%,d paced", r.pacedCount()),
                    range(r), number(r.deliveriesPerSecond()),
                    loaded == null ? "—" : us(loaded.getValueAtPercentile(50)),
                    loaded == null ? "—" : us(loaded.getValueAtPercentile(99)), number(r.rate()),
                    us(h.getValueAtPercentile(50)),
                    us(h.getValueAtPercentile(90)), us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)),
                    us(h.getMaxValue())));
            }
        }
        skippedRows(md, 16);
        for (final SystemRun run : runs)
        {
            if (run.skipped == null && run.spec.noFanOut() != null)
            {
                md.append("| ").append(run.spec.label()).append(" | ").append(run.version()).append(" | ")
                    .append(run.spec.noFanOut()).append(" |").append(" — |".repeat(13)).append('\n');
            }
        }

        md.append("\n## Issue 16 acceptance\n\n");
        acceptance(md);

        md.append("\n## Rivulet against its peers\n\n");
        ratios(md, true);

        md.append("\n## JMH microbenchmarks\n\n");
        jmh(md);

        final List<String> problems = problems();
        if (!problems.isEmpty())
        {
            md.append("\n## Skipped and failed\n\n");
            problems.forEach(problem -> md.append("- ").append(problem).append('\n'));
        }

        md.append("\n## Plots\n\n");
        if (plotError != null)
        {
            md.append("Plots failed: ").append(plotError).append("\n");
        }
        for (final String plot : plots)
        {
            md.append("![").append(plot).append("](").append(plot).append(")\n\n");
        }
        return md.toString();
    }

    private void header(final StringBuilder md)
    {
        md.append("- **Command:** `").append(command).append("` (").append(counts.mode()).append(" mode), ")
            .append(date()).append(", took ").append(ProgressDisplay.clock(wallNs)).append('\n');
        md.append("- **Machine:** ").append(machine.describe()).append('\n');
        md.append("- **Rivulet:** ").append(rivuletVersion()).append(", commit ").append(machine.commit()).append('\n');
        md.append("- **Where:** every system on 127.0.0.1 or inside one process, in JVMs of its own; nothing else " +
            "was measured at the same time\n");
        md.append("- **Counts, the same for every system:** ").append(counts.describe()).append('\n');
        md.append("- **Runs:** ").append(runsText()).append('\n');
        md.append("- **Payloads:** ").append(sizesText()).append(" bytes of application data per message, the first " +
            "16 holding the harness's kind, sequence and count\n\n");
    }

    private void skippedRows(final StringBuilder md, final int columns)
    {
        for (final SystemRun run : runs)
        {
            if (run.skipped != null)
            {
                md.append("| ").append(run.spec.label()).append(" | — | ").append(run.spec.settings())
                    .append(" | skipped: ").append(run.skipped).append(" |").append(" — |".repeat(columns - 4))
                    .append('\n');
            }
        }
    }

    // ------------------------------------------------------------------------------------------ ratios

    /** Rivulet ÷ peer for every Rivulet row and every peer. */
    private void ratios(final StringBuilder md, final boolean allRivuletRows)
    {
        final List<SystemRun> peers = new ArrayList<>();
        final List<SystemRun> rivulets = new ArrayList<>();
        for (final SystemRun run : runs)
        {
            if (run.skipped == null && !run.results.isEmpty())
            {
                (run.spec.rivulet() ? rivulets : peers).add(run);
            }
        }
        if (rivulets.isEmpty() || peers.isEmpty())
        {
            md.append("No ratios: Rivulet or every peer is missing from this run.\n");
            return;
        }
        final List<SystemRun> shown = allRivuletRows ? rivulets : rivulets.subList(0, 1);

        md.append("Latency: Rivulet's p50 ÷ the peer's p50 (p99 ÷ p99 in brackets); **above 1× Rivulet is slower**.\n\n");
        ratioTable(md, shown, peers, PINGPONG, true);
        md.append("\nOne-way throughput: Rivulet's messages/s ÷ the peer's; **above 1× Rivulet is faster**.\n\n");
        ratioTable(md, shown, peers, ONEWAY, false);
        md.append("\nRequest-response throughput: Rivulet's requests/s ÷ the peer's, like for like (the peer's row of " +
            "the same API where it has one, RSocket; else its row with as many requests in flight, so one-in-flight " +
            "rows have no floor or Aeron ratio); **above 1× Rivulet is faster**.\n\n");
        ratioTable(md, shown, peers, REQRESP, false);
        final List<SystemRun> fanOutPeers = new ArrayList<>();
        for (final SystemRun peer : peers)
        {
            if (peer.spec.noFanOut() == null)
            {
                fanOutPeers.add(peer);
            }
        }
        if (!fanOutPeers.isEmpty())
        {
            md.append("\nFan-out 1→").append(counts.subscribers()).append(" throughput: Rivulet's messages/s to all ÷ " +
                "the peer's; **above 1× Rivulet is faster**.\n\n");
            ratioTable(md, shown, fanOutPeers, FANOUT, false);
            md.append("\nFan-out 1→").append(counts.subscribers()).append(" latency, paced (at the rates the fan-out " +
                "table gives): Rivulet's p50 ÷ the peer's p50 (p99 ÷ p99 in brackets); **above 1× Rivulet is " +
                "slower**.\n\n");
            ratioTable(md, shown, fanOutPeers, FANOUT, true);
        }
    }

    private void ratioTable(
        final StringBuilder md,
        final List<SystemRun> rivulets,
        final List<SystemRun> peers,
        final String workload,
        final boolean latency)
    {
        md.append("| Rivulet row | size |");
        peers.forEach(peer -> md.append(" ÷ ").append(peer.spec.label()).append(" |"));
        md.append("\n|---|--:|");
        peers.forEach(peer -> md.append("--:|"));
        md.append('\n');
        for (final SystemRun rivulet : rivulets)
        {
            for (final int size : sizes)
            {
                for (final SystemRun.Result r : rivulet.results)
                {
                    if (!r.workload().equals(workload) || r.size() != size)
                    {
                        continue;
                    }
                    md.append("| ").append(r.label()).append(" | ").append(size).append(" B |");
                    for (final SystemRun peer : peers)
                    {
                        final SystemRun.Result p = peerResult(peer, r);
                        md.append(' ').append(p == null ? "—" : latency ?
                            ratio(r.histogram().getValueAtPercentile(50), p.histogram().getValueAtPercentile(50)) +
                                " (" + ratio(r.histogram().getValueAtPercentile(99), p.histogram().getValueAtPercentile(99)) +
                                ")" :
                            ratio(r.perSecond(), p.perSecond())).append(" |");
                    }
                    md.append('\n');
                }
            }
        }
    }

    /**
     * @return the peer's result to set against a Rivulet result: for request-response the same API when the peer
     * has it (RSocket), else its result with as many requests in flight (the floors' and Aeron's loops keep the
     * window; none of theirs matches a one-in-flight row); for the other workloads the peer's result of that size.
     */
    private static SystemRun.Result peerResult(final SystemRun peer, final SystemRun.Result rivulet)
    {
        if (!REQRESP.equals(rivulet.workload()))
        {
            return peer.find(rivulet.workload(), null, rivulet.size());
        }
        final SystemRun.Result sameApi = peer.find(REQRESP, rivulet.api(), rivulet.size());
        return sameApi != null ? sameApi : peer.findInFlight(REQRESP, rivulet.window(), rivulet.size());
    }

    // ------------------------------------------------------------------------------------------ acceptance

    /** Issue 16's acceptance lines ({@link Acceptance}): each ratio, its target, and met or not. */
    private void acceptance(final StringBuilder md)
    {
        final List<Acceptance.Check> checks = new Acceptance(runs, sizes, workloads, counts.window()).checks();
        int measured = 0;
        int met = 0;
        for (final Acceptance.Check check : checks)
        {
            measured += check.measured() ? 1 : 0;
            met += check.met() ? 1 : 0;
        }
        md.append("Every ratio the Acceptance section of issue 16 names, from this run (with several runs, of the " +
            "median runs). A report, not a test: nothing fails on it. The issue asks for a quiet machine: compare " +
            "the load average and the park/unpark round trip in the header, and the spreads. Rivulet rows: the TCP " +
            "rows (best = lowest p50 or highest rate, named in each line; one-way takes the slowest row, since every " +
            "row must pass); default row: back-off idle; request-response: the rows with ").append(counts.window())
            .append(" in flight. † marks a ratio with a row whose warm-up hit its time bound before its rate was " +
                "steady.\n\n");
        md.append(String.format(Locale.ROOT, "**%d of %d measured ratios meet their target** (%d not measured).%n%n",
            met, measured, checks.size() - measured));
        md.append("| criterion | measured | target | result | from |\n|---|--:|--:|---|---|\n");
        for (final Acceptance.Check check : checks)
        {
            md.append(row(check.criterion(), check.ratioText(), check.targetText(),
                check.met() ? "**met**" : check.verdict(), check.detail()));
        }
    }

    // ------------------------------------------------------------------------------------------ summary.md

    private String summary()
    {
        final StringBuilder md = new StringBuilder();
        md.append("Run of ").append(date()).append(": `").append(command).append("` (").append(counts.mode())
            .append(" mode, ").append(ProgressDisplay.clock(wallNs)).append(" wall time).\n\n");
        md.append("Machine: ").append(machine.describe()).append(". Rivulet ").append(rivuletVersion())
            .append(", commit ").append(machine.commit()).append(".\n\n");
        md.append("Counts, the same for every system: ").append(counts.describe()).append(".\n\n");
        md.append("Runs: ").append(runsText()).append(".\n\n");

        md.append("**Ping-pong round trip, µs (p50 / p99)**\n\n| system | version | settings |");
        sizes.forEach(size -> md.append(' ').append(size).append(" B |"));
        md.append("\n|---|---|---|");
        sizes.forEach(size -> md.append("--:|"));
        md.append('\n');
        for (final SystemRun run : runs)
        {
            if (run.skipped != null)
            {
                md.append("| ").append(run.spec.label()).append(" | — | skipped: ").append(run.skipped).append(" |");
                sizes.forEach(size -> md.append(" — |"));
                md.append('\n');
                continue;
            }
            md.append("| ").append(run.spec.label()).append(" | ").append(run.version()).append(" | ")
                .append(run.spec.settings()).append(" |");
            for (final int size : sizes)
            {
                final SystemRun.Result r = run.find(PINGPONG, null, size);
                md.append(' ').append(r == null ? missing(PINGPONG) : us(r.histogram().getValueAtPercentile(50)) + " / " +
                    us(r.histogram().getValueAtPercentile(99)) + unsteadyMark(r)).append(" |");
            }
            md.append('\n');
        }

        md.append("\n**One-way throughput, messages/s**\n\n| system · API |");
        sizes.forEach(size -> md.append(' ').append(size).append(" B |"));
        md.append("\n|---|");
        sizes.forEach(size -> md.append("--:|"));
        md.append('\n');
        throughputRows(md, ONEWAY);

        md.append("\n**Request-response, requests/s** (flatMap and offerRequest: ").append(counts.window())
            .append(" in flight; concatMap and block(): one; the peers' loops: ").append(counts.window())
            .append(")\n\n| system · API |");
        sizes.forEach(size -> md.append(' ').append(size).append(" B |"));
        md.append("\n|---|");
        sizes.forEach(size -> md.append("--:|"));
        md.append('\n');
        throughputRows(md, REQRESP);

        md.append("\n**Fan-out 1→").append(counts.subscribers()).append(": messages/s delivered to all ")
            .append(counts.subscribers()).append(" flat out (latency p50 / p99 in µs, paced at ")
            .append(number(counts.foRate())).append(" messages/s or half the flat-out rate if lower)**\n\n| system · API |");
        sizes.forEach(size -> md.append(' ').append(size).append(" B |"));
        md.append("\n|---|");
        sizes.forEach(size -> md.append("--:|"));
        md.append('\n');
        for (final SystemRun run : runs)
        {
            if (run.skipped != null)
            {
                continue;
            }
            if (run.spec.noFanOut() != null)
            {
                md.append("| ").append(run.spec.label()).append(" |").append(" n/a |".repeat(sizes.size())).append('\n');
                continue;
            }
            // A row per fan-out API the system measured (Rivulet: the flux and the handler).
            final List<String> apis = run.apis(FANOUT);
            for (final String api : apis.isEmpty() ? java.util.Collections.<String>singletonList(null) : apis)
            {
                md.append("| ").append(run.spec.label()).append(apis.size() > 1 ? " · " + api : "").append(" |");
                for (final int size : sizes)
                {
                    final SystemRun.Result r = run.find(FANOUT, api, size);
                    md.append(' ').append(r == null ? missing(FANOUT) : number(r.perSecond()) + spread(r) + " (" +
                        us(r.histogram().getValueAtPercentile(50)) + " / " +
                        us(r.histogram().getValueAtPercentile(99)) +
                        (r.rate() < counts.foRate() ? " at " + number(r.rate()) + "/s" : "") + ")")
                        .append(" |");
                }
                md.append('\n');
            }
        }
        md.append("\nFan-out layouts: ");
        final List<String> layouts = new ArrayList<>();
        for (final SystemRun run : runs)
        {
            if (run.skipped == null && !run.results.isEmpty())
            {
                final List<String> apis = run.apis(FANOUT);
                if (run.spec.noFanOut() != null || apis.isEmpty())
                {
                    layouts.add(run.spec.label() + ": " + (run.spec.noFanOut() != null ? run.spec.noFanOut() :
                        missing(FANOUT)));
                }
                for (final String api : run.spec.noFanOut() != null ? List.<String>of() : apis)
                {
                    final SystemRun.Result r = run.find(FANOUT, api, sizes.get(0));
                    layouts.add(run.spec.label() + (apis.size() > 1 ? " · " + api : "") + ": " +
                        (r == null ? missing(FANOUT) : r.settings()));
                }
            }
        }
        md.append(String.join("; ", layouts)).append(".\n\n");
        md.append("**Rivulet against each peer**\n\n");
        summaryRatios(md);
        md.append("\n**Issue 16 acceptance**\n\n");
        acceptance(md);
        return md.toString();
    }

    private void throughputRows(final StringBuilder md, final String workload)
    {
        for (final SystemRun run : runs)
        {
            if (run.skipped != null)
            {
                continue;
            }
            final Map<String, Map<Integer, SystemRun.Result>> byApi = new LinkedHashMap<>();
            for (final SystemRun.Result r : run.results)
            {
                if (r.workload().equals(workload))
                {
                    byApi.computeIfAbsent(r.label(), key -> new LinkedHashMap<>()).put(r.size(), r);
                }
            }
            byApi.forEach((label, bySize) ->
            {
                md.append("| ").append(label).append(" |");
                for (final int size : sizes)
                {
                    final SystemRun.Result r = bySize.get(size);
                    md.append(' ').append(r == null ? missing(workload) : number(r.perSecond()) + spread(r) +
                        unsteadyMark(r)).append(" |");
                }
                md.append('\n');
            });
        }
    }

    /** Ratios of the first (busy-spin) Rivulet TCP row against each peer, every size in one cell. */
    private void summaryRatios(final StringBuilder md)
    {
        SystemRun rivulet = null;
        final List<SystemRun> peers = new ArrayList<>();
        for (final SystemRun run : runs)
        {
            if (run.skipped != null || run.results.isEmpty())
            {
                continue;
            }
            if (run.spec.rivulet())
            {
                rivulet = rivulet == null ? run : rivulet;
            }
            else
            {
                peers.add(run);
            }
        }
        if (rivulet == null || peers.isEmpty())
        {
            md.append("No ratios: Rivulet or every peer is missing from this run.\n");
            return;
        }
        md.append("Rivulet row: ").append(rivulet.spec.label()).append(" (").append(rivulet.spec.settings())
            .append("). Each cell gives ").append(sizesText()).append(" bytes. Latency ratio = Rivulet ÷ peer ")
            .append("(above 1× Rivulet is slower); throughput ratio = Rivulet ÷ peer (above 1× Rivulet is faster).\n\n");
        md.append("| peer | ping-pong p50 | ping-pong p99 | one-way (offer) | one-way (fireAndForget) | " +
            "one-way (requestChannel) | request-response (" + counts.window() + " in flight) | fan-out 1→" +
            counts.subscribers() + " |\n" +
            "|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (final SystemRun peer : peers)
        {
            md.append("| ").append(peer.spec.label()).append(" | ")
                .append(ratios(rivulet, peer, PINGPONG, null, 50)).append(" | ")
                .append(ratios(rivulet, peer, PINGPONG, null, 99)).append(" | ")
                .append(ratios(rivulet, peer, ONEWAY, "offer", 0)).append(" | ")
                .append(ratios(rivulet, peer, ONEWAY, "fireAndForget", 0)).append(" | ")
                .append(ratios(rivulet, peer, ONEWAY, "requestChannel", 0)).append(" | ")
                .append(ratios(rivulet, peer, REQRESP, IN_FLIGHT, 0)).append(" | ")
                .append(peer.spec.noFanOut() != null ? "n/a" : ratios(rivulet, peer, FANOUT, null, 0)).append(" |\n");
        }
    }

    private String ratios(
        final SystemRun rivulet, final SystemRun peer, final String workload, final String api, final double percentile)
    {
        final List<String> cells = new ArrayList<>();
        for (final int size : sizes)
        {
            final SystemRun.Result r = IN_FLIGHT.equals(api) ? rivulet.findInFlight(workload, counts.window(), size) :
                rivulet.find(workload, api, size);
            final SystemRun.Result p = IN_FLIGHT.equals(api) ? peer.findInFlight(workload, counts.window(), size) :
                peer.find(workload, null, size);
            if (r == null || p == null)
            {
                cells.add("—");
            }
            else if (percentile > 0)
            {
                cells.add(ratioNumber(r.histogram().getValueAtPercentile(percentile),
                    p.histogram().getValueAtPercentile(percentile)));
            }
            else
            {
                cells.add(ratioNumber(r.perSecond(), p.perSecond()));
            }
        }
        return String.join(" / ", cells) + "×";
    }

    // ------------------------------------------------------------------------------------------ JMH, CSV

    private void jmh(final StringBuilder md)
    {
        if (jmhError != null)
        {
            md.append("JMH failed: ").append(jmhError).append(".\n");
            return;
        }
        if (scores.isEmpty())
        {
            md.append("Not run (`--no-jmh`).\n");
            return;
        }
        md.append("`java -cp benchmarks/jmh/... org.openjdk.jmh.Main ").append(String.join(" ", counts.jmhArgs()))
            .append("`; CodecBenchmark: one REQUEST_FNF frame encoded with FrameWriter / validated and read with " +
                "FrameReader. HandoffBenchmark: Connection.offer (or fireAndForget) into the outbound ring, drained by " +
                "the Sender agent to a link that copies and discards; `handoff:offer` is the rate of an application " +
                "thread offering while the sender drains on another thread. RequestResponseBenchmark: one " +
                "request-response through both ends of a connection on one thread, without sockets " +
                "(`requestResponse`: one at a time; `requestResponseBatch`: 64 opened together, per request). " +
                "TopicFanOutBenchmark: a message from Publication.offer to eight zero-copy subscriber connections on " +
                "one thread, without sockets, per message (`links=runs`: each link takes a run of log records in " +
                "one copy, as the TCP link does; `links=frames`: one frame at a time).\n\n");
        md.append("| benchmark | size | score | ± (99.9%) | unit |\n|---|--:|--:|--:|---|\n");
        for (final Jmh.Score score : scores)
        {
            md.append(row(score.benchmark(), score.size() + " B", decimal(score.score()), decimal(score.error()),
                score.unit()));
        }
    }

    private String csv()
    {
        final StringBuilder csv = new StringBuilder("system_id,system,version,transport,topology,settings,workload,api," +
            "size,warmup,count,window,elapsed_ns,ops_per_s,mib_per_s,p50_us,p90_us,p99_us,p999_us,max_us,mean_us," +
            "subscribers,workload_settings,runs,ops_per_s_min,ops_per_s_max,spread_pct,warmup_ns,warmup_steady\n");
        for (final SystemRun run : runs)
        {
            for (final SystemRun.Result r : run.results)
            {
                final Histogram h = r.histogram();
                csv.append(String.join(",", List.of(run.spec.id(), quote(r.label()), quote(run.version()),
                    quote(info(run, "transport")), quote(info(run, "topology")), quote(run.spec.settings()),
                    r.workload(), quote(r.api()), "" + r.size(), "" + r.warmup(), "" + r.count(), "" + r.window(),
                    "" + r.elapsedNs(), String.format(Locale.ROOT, "%.1f", r.perSecond()),
                    String.format(Locale.ROOT, "%.3f", r.mibPerSecond()),
                    h == null ? "" : plain(h.getValueAtPercentile(50)), h == null ? "" : plain(h.getValueAtPercentile(90)),
                    h == null ? "" : plain(h.getValueAtPercentile(99)), h == null ? "" : plain(h.getValueAtPercentile(99.9)),
                    h == null ? "" : plain(h.getMaxValue()), h == null ? "" : plain((long)h.getMean()),
                    "" + r.subscribers(), quote(r.settings()), "" + run.perSecondRuns(r).length,
                    String.format(Locale.ROOT, "%.1f", run.perSecondRuns(r)[0]),
                    String.format(Locale.ROOT, "%.1f", run.perSecondRuns(r)[run.perSecondRuns(r).length - 1]),
                    String.format(Locale.ROOT, "%.1f", run.spreadPercent(r)), "" + r.warmupNs(),
                    r.steady() == null ? "" : "" + r.steady())))
                    .append('\n');
            }
        }
        return csv.toString();
    }

    // ------------------------------------------------------------------------------------------ helpers

    private List<SystemRun.Result> results(final String workload, final int size)
    {
        final List<SystemRun.Result> list = new ArrayList<>();
        for (final SystemRun run : runs)
        {
            for (final SystemRun.Result r : run.results)
            {
                if (r.workload().equals(workload) && r.size() == size)
                {
                    list.add(r);
                }
            }
        }
        return list;
    }

    private List<String> problems()
    {
        final List<String> problems = new ArrayList<>();
        for (final SystemRun run : runs)
        {
            if (run.skipped != null)
            {
                problems.add(run.spec.label() + ": skipped: " + run.skipped);
            }
            for (final String error : run.errors)
            {
                problems.add(run.spec.label() + ": " + error + " (logs/" + run.spec.id() + "-client.log)");
            }
        }
        return problems;
    }

    private SystemRun firstMeasured()
    {
        for (final SystemRun run : runs)
        {
            if (run.info != null)
            {
                return run;
            }
        }
        return null;
    }

    private String rivuletVersion()
    {
        for (final SystemRun run : runs)
        {
            if (run.spec.rivulet() && run.info != null)
            {
                return run.version();
            }
        }
        return "version unknown (no Rivulet row ran)";
    }

    private String sizesText()
    {
        final List<String> parts = new ArrayList<>();
        sizes.forEach(size -> parts.add(String.valueOf(size)));
        return String.join(" / ", parts);
    }

    private String date()
    {
        return started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT));
    }

    private static String info(final SystemRun run, final String key)
    {
        return run == null || run.info == null ? "?" : run.info.get(key, "?");
    }

    /** @return what a table cell says for a result that is not there. */
    private String missing(final String workload)
    {
        return workloads.contains(workload) ? "failed" : "not run";
    }

    /** @return warm-up + measured operations; a warm-up to a steady rate also gives its time, and † when unsteady. */
    private static String countText(final SystemRun.Result r)
    {
        return String.format(Locale.ROOT, "%,d", r.warmup()) + (r.warmupNs() > 0 ?
            String.format(Locale.ROOT, " (%.1f s)", r.warmupNs() / 1e9) : "") + unsteadyMark(r) +
            String.format(Locale.ROOT, " + %,d", r.count());
    }

    /** @return " †" when the result's warm-up hit its time bound before its rate was steady, else nothing. */
    private static String unsteadyMark(final SystemRun.Result r)
    {
        return r.unsteady() ? " †" : "";
    }

    private String runsText()
    {
        return rounds == 1 ? "1 (no spread measured; --runs N repeats every system N times, interleaved)" :
            rounds + ", interleaved (every system once, then again); each cell shows its median run (for an even " +
                "number of runs the lower of the middle two), its latencies from that same run; ±x% after a " +
                "throughput is the farthest any run was from that median, min..max the slowest and fastest run";
    }

    /** @return the cell's throughput, and with several runs its slowest and fastest. */
    private static String range(final SystemRun.Result r)
    {
        final double[] runs = r.run().perSecondRuns(r);
        return runs.length < 2 ? number(r.perSecond()) :
            number(r.perSecond()) + " (" + number(runs[0]) + ".." + number(runs[runs.length - 1]) + ")";
    }

    /** @return " ±x%" after a throughput measured in several runs, else nothing. */
    private static String spread(final SystemRun.Result r)
    {
        return r.run().perSecondRuns(r).length < 2 ? "" :
            String.format(Locale.ROOT, " ±%.0f%%", r.run().spreadPercent(r));
    }

    private static String row(final String... cells)
    {
        final StringBuilder row = new StringBuilder("|");
        for (final String cell : cells)
        {
            row.append(' ').append(cell.replace("|", "\\|")).append(" |");
        }
        return row.append('\n').toString();
    }

    /** @return microseconds from nanoseconds, with the digits that matter at that magnitude. */
    static String us(final long nanos)
    {
        final double micros = nanos / 1000.0;
        if (micros < 10)
        {
            return String.format(Locale.ROOT, "%.2f", micros);
        }
        if (micros < 1000)
        {
            return String.format(Locale.ROOT, "%.1f", micros);
        }
        return String.format(Locale.ROOT, "%,.0f", micros);
    }

    private static String plain(final long nanos)
    {
        return String.format(Locale.ROOT, "%.3f", nanos / 1000.0);
    }

    private static String number(final double value)
    {
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    private static String decimal(final double value)
    {
        return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, value < 10 ? "%.3f" : "%,.1f", value);
    }

    private static String ratio(final double rivulet, final double peer)
    {
        return ratioNumber(rivulet, peer) + "×";
    }

    private static String ratioNumber(final double rivulet, final double peer)
    {
        if (peer <= 0)
        {
            return "—";
        }
        final double ratio = rivulet / peer;
        return String.format(Locale.ROOT, ratio < 10 ? "%.2f" : "%.0f", ratio);
    }

    private static String quote(final String text)
    {
        return "\"" + text.replace("\"", "\"\"") + "\"";
    }
}
