package io.rivulet.bench.coordinator;

import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FanOutReportTest
{
    private static final List<Integer> SIZES = List.of(32);

    @Test
    void shouldRunFanOutOnlyForSystemsThatHaveOne()
    {
        final SystemSpec floor = spec("floor-busy");
        final SystemSpec rsocket = spec("rsocket");
        final SystemSpec rivulet = spec("rivulet-tcp-busy");
        final SystemSpec aeron = spec("aeron-udp");

        assertThat(floor.workloads(SystemSpec.ALL_WORKLOADS)).containsExactly("pingpong", "oneway", "reqresp");
        assertThat(rsocket.noFanOut()).startsWith("n/a: RSocket has no fan-out");
        assertThat(rivulet.workloads(SystemSpec.ALL_WORKLOADS)).contains("fanout");
        assertThat(aeron.workloads(List.of("fanout"))).containsExactly("fanout");
        assertThat(floor.workloads(List.of("fanout"))).isEmpty();
        // Rivulet: ping-pong, three one-way APIs, four request-response APIs and fan-out.
        assertThat(rivulet.stepsPerSize(SystemSpec.ALL_WORKLOADS)).isEqualTo(9);
        // INVOKER has no block() row: nothing would deliver the reply while its only thread blocks.
        assertThat(spec("rivulet-tcp-invoker").stepsPerSize(List.of("reqresp"))).isEqualTo(3);
        assertThat(floor.stepsPerSize(SystemSpec.ALL_WORKLOADS)).isEqualTo(3);
    }

    @Test
    void shouldParseAFanOutResultLineAsTheClientPrintsIt()
    {
        final SystemRun run = new SystemRun(spec("rivulet-tcp-busy"));

        final SystemRun.Result result = SystemRun.Result.parse(run, Line.parse(fanOutLine(50_000, 1_000_000_000L, 5_000)
            .toString()));

        assertThat(result.workload()).isEqualTo("fanout");
        assertThat(result.subscribers()).isEqualTo(8);
        assertThat(result.perSecond()).isEqualTo(50_000.0);
        assertThat(result.deliveriesPerSecond()).isEqualTo(400_000.0);
        assertThat(result.rate()).isEqualTo(5_000);
        assertThat(result.pacedCount()).isEqualTo(5_000);
        assertThat(result.histogram().getTotalCount()).isEqualTo(3);
        assertThat(result.loadHistogram().getTotalCount()).isEqualTo(2);
        assertThat(result.settings()).isEqualTo("publisher in the server process");
    }

    @Test
    void shouldWriteFanOutRowsRatiosAndTheReasonsOfSystemsWithout(@TempDir final Path out) throws Exception
    {
        final SystemRun floor = run("floor-busy", "JDK 17");
        final SystemRun rivulet = run("rivulet-tcp-busy", "0.1.0-SNAPSHOT");
        rivulet.results.add(SystemRun.Result.parse(rivulet, Line.parse(fanOutLine(50_000, 1_000_000_000L, 10_000)
            .toString())));
        final SystemRun aeron = run("aeron-ipc", "1.46.7");
        aeron.results.add(SystemRun.Result.parse(aeron, Line.parse(fanOutLine(100_000, 1_000_000_000L, 10_000)
            .toString())));
        final Counts counts = Counts.of("short");
        final Report report = new Report(new Machine(2, "test cpu", true, "1 GiB", "test os", "test jdk", "abc1234",
            "0.1 0.1 0.1", "4.0 / 4.1 / 4.2 µs"),
            counts, SIZES, "./rivulet-bench", ZonedDateTime.of(2026, 11, 30, 12, 0, 0, 0, ZoneOffset.UTC),
            1_000_000_000L, List.of(floor, rivulet, aeron), List.of(), null, SystemSpec.ALL_WORKLOADS, 1);

        report.write(out, List.of(), null);

        final String results = Files.readString(out.resolve("results.md"), StandardCharsets.UTF_8);
        assertThat(results).contains("## Fan-out 1→8");
        assertThat(results).contains("| Rivulet TCP, busy-spin | 0.1.0-SNAPSHOT | publisher in the server process | " +
            "Publication.offer → Connection.subscribe | 32 B | 10,000 + 50,000 + 5,000 paced | 50,000 | 400,000 |");
        assertThat(results).contains("| TCP floor, busy-poll | JDK 17 | " + Plan.FLOOR_NO_FANOUT + " |");
        assertThat(results).contains("Fan-out 1→8 throughput");
        assertThat(results).contains("| Rivulet TCP, busy-spin | 32 B | 0.50× |");
        final String summary = Files.readString(out.resolve("summary.md"), StandardCharsets.UTF_8);
        assertThat(summary).contains("| TCP floor, busy-poll | n/a |");
        assertThat(summary).contains("| Rivulet TCP, busy-spin | 50,000 (");
        final String csv = Files.readString(out.resolve("results.csv"), StandardCharsets.UTF_8);
        assertThat(csv).contains("aeron-ipc,\"Aeron IPC\"").contains(",fanout,").contains(",8,\"publisher in the server process\"");
    }

    @Test
    void shouldDrawFanOutThroughputAndLatencyCharts() throws Exception
    {
        // Kept in target/ so the plots can be looked at.
        final Path out = Files.createDirectories(Path.of("target", "test-charts"));
        final SystemRun rivulet = run("rivulet-tcp-busy", "0.1.0-SNAPSHOT");
        rivulet.results.add(SystemRun.Result.parse(rivulet, Line.parse(fanOutLine(50_000, 1_000_000_000L, 10_000)
            .toString())));
        final SystemRun aeron = run("aeron-ipc", "1.46.7");
        aeron.results.add(SystemRun.Result.parse(aeron, Line.parse(fanOutLine(100_000, 1_000_000_000L, 10_000)
            .toString())));

        final List<String> files = Charts.write(out, List.of(rivulet, aeron), List.of(32, 256), List.of());

        assertThat(files).containsExactly("fanout-throughput.png", "fanout-latency-32B.png");
        assertThat(Files.size(out.resolve("fanout-throughput.png"))).isGreaterThan(0);
    }

    @Test
    void shouldNameEachFanOutApiOfASystemInItsRowLabel()
    {
        // The plots name their series by the row's label: two fan-out APIs under one name failed every plot.
        final SystemRun rivulet = run("rivulet-tcp-busy", "0.1.0-SNAPSHOT");
        final SystemRun.Result flux = SystemRun.Result.parse(rivulet, Line.parse(fanOutLine(50_000, 1_000_000_000L,
            10_000).toString()));
        rivulet.results.add(flux);
        assertThat(flux.label()).as("one API: the system's name").isEqualTo("Rivulet TCP, busy-spin");
        final SystemRun.Result handler = SystemRun.Result.parse(rivulet, Line.parse(fanOutLine(60_000,
            1_000_000_000L, 10_000).toString().replace("Connection.subscribe", "subscribe(TopicHandler)")));
        rivulet.results.add(handler);

        assertThat(flux.label()).isEqualTo("Rivulet TCP, busy-spin · Publication.offer → Connection.subscribe");
        assertThat(handler.label()).isEqualTo("Rivulet TCP, busy-spin · Publication.offer → subscribe(TopicHandler)");
    }

    private static Line fanOutLine(final long count, final long elapsedNs, final long rate)
    {
        final Histogram paced = Histograms.newHistogram();
        paced.recordValue(10_000);
        paced.recordValue(20_000);
        paced.recordValue(30_000);
        final Histogram loaded = Histograms.newHistogram();
        loaded.recordValue(1_000_000);
        loaded.recordValue(2_000_000);
        return Line.of(Line.RESULT, "workload", "fanout", "api", "Publication.offer → Connection.subscribe", "size", 32,
            "warmup", 10_000, "count", count, "subscribers", 8, "elapsedNs", elapsedNs, "rate", rate, "pacedCount", 5_000,
            "settings", "publisher in the server process", "loadHist", Histograms.encode(loaded), "hist",
            Histograms.encode(paced));
    }

    private static SystemRun run(final String id, final String version)
    {
        final SystemRun run = new SystemRun(spec(id));
        run.info = Line.of(Line.INFO, "version", version, "transport", "test", "topology", "test", "settings", "test",
            "jvm", "test jvm");
        return run;
    }

    private static SystemSpec spec(final String id)
    {
        for (final SystemSpec spec : Plan.systems("jvm.options"))
        {
            if (spec.id().equals(id))
            {
                return spec;
            }
        }
        throw new IllegalArgumentException(id);
    }
}
