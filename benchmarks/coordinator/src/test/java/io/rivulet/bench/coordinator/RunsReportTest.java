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

class RunsReportTest
{
    @Test
    void shouldRepresentEachCellByItsMedianRunAndKeepEveryRunForTheSpread()
    {
        final SystemSpec spec = spec("floor-busy");

        final SystemRun merged = SystemRun.merge(spec, List.of(
            run(spec, 1_000_000_000L, "run one failed a size"), run(spec, 500_000_000L, null),
            run(spec, 800_000_000L, null)));

        // 100,000 messages in 1.0 s, 0.5 s and 0.8 s: 100,000, 200,000 and 125,000 messages/s.
        assertThat(merged.results).hasSize(1);
        final SystemRun.Result median = merged.results.get(0);
        assertThat(median.perSecond()).isEqualTo(125_000.0);
        assertThat(median.run()).isSameAs(merged);
        assertThat(merged.perSecondRuns(median)).containsExactly(100_000.0, 125_000.0, 200_000.0);
        // The farthest run, 200,000, is 60% above the median.
        assertThat(merged.spreadPercent(median)).isEqualTo(60.0);
        assertThat(merged.errors).containsExactly("run 1: run one failed a size");
        assertThat(merged.wallNs).isEqualTo(3);
    }

    @Test
    void shouldTakeTheLowerMiddleRunForAnEvenCount()
    {
        final SystemSpec spec = spec("floor-busy");

        final SystemRun merged = SystemRun.merge(spec, List.of(run(spec, 500_000_000L, null),
            run(spec, 1_000_000_000L, null)));

        assertThat(merged.results.get(0).perSecond()).isEqualTo(100_000.0);
        assertThat(merged.spreadPercent(merged.results.get(0))).isEqualTo(100.0);
    }

    @Test
    void shouldReportOneRunWithoutASpread()
    {
        final SystemSpec spec = spec("floor-busy");

        final SystemRun merged = SystemRun.merge(spec, List.of(run(spec, 1_000_000_000L, null)));

        assertThat(merged.perSecondRuns(merged.results.get(0))).containsExactly(100_000.0);
        assertThat(merged.spreadPercent(merged.results.get(0))).isZero();
        assertThat(merged.errors).isEmpty();
    }

    @Test
    void shouldWriteTheMedianWithItsSpreadInEveryFile(@TempDir final Path out) throws Exception
    {
        final SystemSpec spec = spec("floor-busy");
        final SystemRun merged = SystemRun.merge(spec, List.of(run(spec, 1_000_000_000L, null),
            run(spec, 500_000_000L, null), run(spec, 800_000_000L, null)));
        final Report report = new Report(new Machine(2, "test cpu", true, "1 GiB", "test os", "test jdk", "abc1234",
            "0.1 0.1 0.1", "4.0 / 4.1 / 4.2 µs"),
            Counts.of("short"), List.of(32), "./rivulet-bench --runs 3",
            ZonedDateTime.of(2026, 12, 2, 12, 0, 0, 0, ZoneOffset.UTC), 1_000_000_000L, List.of(merged), List.of(),
            null, List.of("oneway"), 3);

        report.write(out, List.of(), null);

        final String summary = Files.readString(out.resolve("summary.md"), StandardCharsets.UTF_8);
        assertThat(summary).contains("Runs: 3, interleaved").contains("| TCP floor, busy-poll | 125,000 ±60% |");
        final String results = Files.readString(out.resolve("results.md"), StandardCharsets.UTF_8);
        assertThat(results).contains("- **Runs:** 3, interleaved").contains("| 125,000 (100,000..200,000) |")
            .contains("a park/unpark round trip between two threads (median of each of 3 trials) 4.0 / 4.1 / 4.2 µs");
        final String csv = Files.readString(out.resolve("results.csv"), StandardCharsets.UTF_8);
        assertThat(csv.lines().findFirst().orElseThrow())
            .endsWith(",runs,ops_per_s_min,ops_per_s_max,spread_pct,warmup_ns,warmup_steady");
        // One-way warms up by count: no warm-up time, no steadiness.
        assertThat(csv).contains(",3,100000.0,200000.0,60.0,0,\n");
    }

    @Test
    void shouldKeepTheMedianRunsWarmUpAndMarkItWhenItWasNotSteady(@TempDir final Path out) throws Exception
    {
        final SystemSpec spec = spec("rivulet-tcp-busy");
        final SystemRun merged = SystemRun.merge(spec, List.of(reqResp(spec, 500_000_000L, true),
            reqResp(spec, 800_000_000L, false), reqResp(spec, 1_000_000_000L, true)));

        final SystemRun.Result median = merged.results.get(0);
        assertThat(median.perSecond()).isEqualTo(125_000.0);
        assertThat(median.unsteady()).isTrue();
        assertThat(median.warmupNs()).isEqualTo(800_000_000L);
        assertThat(median.label()).isEqualTo("Rivulet TCP, busy-spin · flatMap");
        final Report report = new Report(new Machine(2, "test cpu", true, "1 GiB", "test os", "test jdk", "abc1234",
            "0.1 0.1 0.1", "4.0 / 4.1 / 4.2 µs"),
            Counts.of("short"), List.of(32), "./rivulet-bench --runs 3",
            ZonedDateTime.of(2026, 12, 2, 12, 0, 0, 0, ZoneOffset.UTC), 1_000_000_000L, List.of(merged), List.of(),
            null, List.of("reqresp"), 3);

        report.write(out, List.of(), null);

        assertThat(Files.readString(out.resolve("summary.md"), StandardCharsets.UTF_8))
            .contains("| Rivulet TCP, busy-spin · flatMap | 125,000 ±60% † |");
        assertThat(Files.readString(out.resolve("results.md"), StandardCharsets.UTF_8))
            .contains("| flatMap | 64 | 32 B | 20,000 (0.8 s) † + 100,000 | 125,000 (100,000..200,000) |");
        assertThat(Files.readString(out.resolve("results.csv"), StandardCharsets.UTF_8))
            .contains(",3,100000.0,200000.0,60.0,800000000,false\n");
    }

    /** A request-response row whose warm-up took as long as the measured exchanges did. */
    private static SystemRun reqResp(final SystemSpec spec, final long elapsedNs, final boolean steady)
    {
        final SystemRun run = new SystemRun(spec);
        run.info = Line.of(Line.INFO, "version", "0.1.0-SNAPSHOT", "transport", "tcp", "topology", "test",
            "settings", "test", "jvm", "test jvm");
        final Histogram histogram = Histograms.newHistogram();
        histogram.recordValue(10_000);
        run.results.add(SystemRun.Result.parse(run, Line.of(Line.RESULT, "workload", "reqresp", "api", "flatMap",
            "size", 32, "warmup", 20_000, "warmupNs", elapsedNs, "steady", steady, "count", 100_000, "window", 64,
            "elapsedNs", elapsedNs, "hist", Histograms.encode(histogram))));
        return run;
    }

    private static SystemRun run(final SystemSpec spec, final long elapsedNs, final String error)
    {
        final SystemRun run = new SystemRun(spec);
        run.info = Line.of(Line.INFO, "version", "JDK 17", "transport", "test", "topology", "test", "settings", "test",
            "jvm", "test jvm");
        run.wallNs = 1;
        run.results.add(SystemRun.Result.parse(run, Line.of(Line.RESULT, "workload", "oneway", "api", "write",
            "size", 32, "warmup", 1_000, "count", 100_000, "elapsedNs", elapsedNs)));
        if (error != null)
        {
            run.errors.add(error);
        }
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
