package io.rivulet.bench.coordinator;

import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/** Issue 16's acceptance lines, computed from a made-up run whose ratios are known. */
class AcceptanceTest
{
    private static final List<Integer> SIZES = List.of(32, 256);

    private SystemRun floor;
    private SystemRun busy;
    private SystemRun invoker;
    private SystemRun backoff;
    private SystemRun rdma;
    private SystemRun aeronUdp;
    private SystemRun aeronIpc;

    @BeforeEach
    void run()
    {
        floor = run("floor-busy");
        pingPong(floor, 32, 10_000, 20_000, true);
        pingPong(floor, 256, 10_000, 20_000, true);
        rate(floor, "oneway", "write", 32, 1, 1_000_000);
        rate(floor, "reqresp", "write/read (spin)", 32, 64, 2_000_000);
        rate(floor, "reqresp", "write/read (spin)", 256, 64, 2_000_000);

        busy = run("rivulet-tcp-busy");
        pingPong(busy, 32, 14_000, 30_000, true);
        pingPong(busy, 256, 16_000, 30_000, true);
        rate(busy, "oneway", "offer", 32, 1, 1_600_000);
        rate(busy, "oneway", "fireAndForget", 32, 1, 400_000);
        rate(busy, "oneway", "requestChannel", 32, 1, 600_000);
        rate(busy, "reqresp", "flatMap", 32, 64, 900_000);
        // Faster, but one in flight: not a row the 64-in-flight targets compare.
        rate(busy, "reqresp", "concatMap", 32, 1, 3_000_000);
        rate(busy, "fanout", "Publication.offer → Connection.subscribe", 32, 1, 700_000);

        invoker = run("rivulet-tcp-invoker");
        pingPong(invoker, 32, 12_000, 30_000, false);
        pingPong(invoker, 256, 12_500, 30_000, true);
        rate(invoker, "oneway", "offer", 32, 1, 1_200_000);
        rate(invoker, "oneway", "fireAndForget", 32, 1, 700_000);
        rate(invoker, "oneway", "requestChannel", 32, 1, 800_000);
        rate(invoker, "reqresp", "flatMap", 32, 64, 1_100_000);

        backoff = run("rivulet-tcp-backoff");
        pingPong(backoff, 32, 25_000, 100_000, true);
        pingPong(backoff, 256, 18_000, 36_000, true);

        // Faster than every TCP row, but not a TCP row: never "best".
        rdma = run("rivulet-rdma-inprocess");
        pingPong(rdma, 32, 5_000, 6_000, true);
        rate(rdma, "reqresp", "flatMap", 32, 64, 9_000_000);

        aeronUdp = run("aeron-udp");
        rate(aeronUdp, "reqresp", "offer/poll", 32, 64, 1_200_000);
        rate(aeronUdp, "fanout", "ExclusivePublication.offer → Subscription.poll", 32, 1, 400_000);

        aeronIpc = run("aeron-ipc");
        rate(aeronIpc, "fanout", "ExclusivePublication.offer → Subscription.poll", 32, 1, 1_600_000);
    }

    @Test
    void shouldComparePingPongP50OfTheBestTcpRowAndTheDefaultRowWithTheFloor()
    {
        final List<Acceptance.Check> checks = checks();

        final Acceptance.Check best32 = check(checks, "ping-pong p50, 32 B: best Rivulet row ÷ busy-poll floor");
        assertThat(best32.ratio()).isCloseTo(1.2, offset(0.01));
        assertThat(best32.met()).isTrue();
        assertThat(best32.detail()).startsWith("Rivulet TCP, INVOKER client 12.0 µs ÷ TCP floor, busy-poll 10.0 µs");
        // The INVOKER row's warm-up was not steady: the ratio says so.
        assertThat(best32.ratioText()).isEqualTo("1.20× †");
        assertThat(check(checks, "ping-pong p50, 256 B: best Rivulet row ÷ busy-poll floor").ratioText())
            .isEqualTo("1.25×");

        final Acceptance.Check default32 = check(checks, "ping-pong p50, 32 B: default row ÷ busy-poll floor");
        assertThat(default32.ratio()).isCloseTo(2.5, offset(0.01));
        assertThat(default32.verdict()).isEqualTo("not met");
        assertThat(check(checks, "ping-pong p50, 256 B: default row ÷ busy-poll floor").met()).isTrue();

        final Acceptance.Check tail32 = check(checks, "ping-pong, 32 B: default row's p99 ÷ its p50");
        assertThat(tail32.ratio()).isCloseTo(4.0, offset(0.01));
        assertThat(tail32.met()).isFalse();
        assertThat(tail32.targetText()).isEqualTo("≤ 3.0×");
        final Acceptance.Check tail256 = check(checks, "ping-pong, 256 B: default row's p99 ÷ its p50");
        assertThat(tail256.ratio()).isCloseTo(2.0, offset(0.01));
        assertThat(tail256.met()).isTrue();
    }

    @Test
    void shouldCompareTheBestRowWithTheWindowInFlightWithTheFloorAndAeronUdp()
    {
        final List<Acceptance.Check> checks = checks();

        final Acceptance.Check floor32 = check(checks,
            "request-response, 64 in flight, 32 B: best Rivulet row ÷ busy-poll floor");
        assertThat(floor32.ratio()).isCloseTo(0.55, offset(0.001));
        assertThat(floor32.met()).isTrue();
        assertThat(floor32.targetText()).isEqualTo("≥ 0.5×");
        assertThat(floor32.detail()).isEqualTo("Rivulet TCP, INVOKER client · flatMap 1,100,000/s ÷ " +
            "TCP floor, busy-poll 2,000,000/s");
        final Acceptance.Check udp32 = check(checks, "request-response, 64 in flight, 32 B: best Rivulet row ÷ Aeron UDP");
        assertThat(udp32.ratio()).isCloseTo(0.917, offset(0.001));
        assertThat(udp32.targetText()).isEqualTo("> 1.0×");
        assertThat(udp32.met()).isFalse();
        // No Rivulet request-response at 256 B in this run.
        final Acceptance.Check floor256 = check(checks,
            "request-response, 64 in flight, 256 B: best Rivulet row ÷ busy-poll floor");
        assertThat(floor256.measured()).isFalse();
        assertThat(floor256.verdict()).isEqualTo("not measured");
        assertThat(floor256.ratioText()).isEqualTo("—");
    }

    @Test
    void shouldHoldEveryOneWayRowToHalfTheFloorAndOfferToOneAndAHalf()
    {
        final List<Acceptance.Check> checks = checks();

        // The slowest row of each API: every row must pass.
        final Acceptance.Check fireAndForget = check(checks,
            "one-way fireAndForget, 32 B: slowest Rivulet row ÷ busy-poll floor");
        assertThat(fireAndForget.ratio()).isCloseTo(0.4, offset(0.001));
        assertThat(fireAndForget.met()).isFalse();
        assertThat(fireAndForget.detail()).startsWith("Rivulet TCP, busy-spin · fireAndForget 400,000/s");
        assertThat(check(checks, "one-way requestChannel, 32 B: slowest Rivulet row ÷ busy-poll floor").met()).isTrue();
        assertThat(check(checks, "one-way offer, 256 B: slowest Rivulet row ÷ busy-poll floor").measured()).isFalse();

        final Acceptance.Check offer = check(checks, "one-way offer, 32 B: best Rivulet row ÷ busy-poll floor");
        assertThat(offer.ratio()).isCloseTo(1.6, offset(0.001));
        assertThat(offer.met()).isTrue();
    }

    @Test
    void shouldCompareFanOutWithAeronUdpAndIpc()
    {
        final List<Acceptance.Check> checks = checks();

        final Acceptance.Check udp = check(checks, "fan-out 1→8, 32 B: best Rivulet row ÷ Aeron UDP");
        assertThat(udp.ratio()).isCloseTo(1.75, offset(0.001));
        assertThat(udp.met()).isTrue();
        assertThat(check(checks, "fan-out 1→8, 256 B: best Rivulet row ÷ Aeron UDP").measured()).isFalse();
        final Acceptance.Check ipc = check(checks, "fan-out 1→8, 32 B: best Rivulet row ÷ Aeron IPC");
        assertThat(ipc.ratio()).isCloseTo(0.4375, offset(0.001));
        assertThat(ipc.met()).isFalse();
    }

    @Test
    void shouldTakeTheBestOfEveryFanOutApiOfARow()
    {
        // The Rivulet client measures the flux and then the handler: each is a row, the faster one counts.
        rate(backoff, "fanout", "Publication.offer → Connection.subscribe", 32, 1, 600_000);
        rate(backoff, "fanout", "Publication.offer → subscribe(TopicHandler)", 32, 1, 900_000);

        final Acceptance.Check ipc = check(checks(), "fan-out 1→8, 32 B: best Rivulet row ÷ Aeron IPC");

        assertThat(ipc.ratio()).isCloseTo(0.5625, offset(0.001));
        assertThat(ipc.met()).isTrue();
        assertThat(ipc.detail()).isEqualTo("Rivulet TCP, back-off · Publication.offer → subscribe(TopicHandler) " +
            "900,000/s ÷ Aeron IPC 1,600,000/s");
    }

    @Test
    void shouldNameASizeTheRunLeftOutAndKeepSmallRatiosReadable()
    {
        final List<Acceptance.Check> checks = new Acceptance(List.of(floor, busy, invoker, backoff, aeronIpc),
            List.of(32), List.of("pingpong", "oneway", "reqresp"), 64).checks();

        assertThat(check(checks, "request-response, 64 in flight, 256 B: best Rivulet row ÷ busy-poll floor").detail())
            .isEqualTo("256 B is not among this run's sizes (--sizes)");
        assertThat(check(checks, "fan-out 1→8, 32 B: best Rivulet row ÷ Aeron UDP").detail())
            .isEqualTo("fanout is not among this run's workloads (--workloads)");
        assertThat(check(checks, "request-response, 64 in flight, 32 B: best Rivulet row ÷ Aeron UDP").detail())
            .isEqualTo("no peer's result in this run");
        assertThat(new Acceptance.Check("x", "", 0.0042, Acceptance.Comparison.AT_LEAST, 0.5, false).ratioText())
            .isEqualTo("0.0042×");
    }

    @Test
    void shouldSayNotMeasuredWhenTheFloorIsNotInTheRun()
    {
        final List<Acceptance.Check> checks = new Acceptance(List.of(busy, invoker, backoff), SIZES,
            SystemSpec.ALL_WORKLOADS, 64).checks();

        // Only the default row's own tail needs no peer.
        assertThat(checks).filteredOn(Acceptance.Check::measured).extracting(Acceptance.Check::criterion)
            .containsExactly("ping-pong, 32 B: default row's p99 ÷ its p50", "ping-pong, 256 B: default row's p99 ÷ its p50");
        assertThat(check(checks, "ping-pong p50, 32 B: default row ÷ busy-poll floor").detail())
            .isEqualTo("no peer's result in this run");
    }

    @Test
    void shouldWriteTheTableIntoTheSummaryAndTheResults(@TempDir final Path out) throws Exception
    {
        final Report report = new Report(new Machine(2, "test cpu", true, "1 GiB", "test os", "test jdk", "abc1234",
            "0.1 0.1 0.1", "4.0 / 4.1 / 4.2 µs"),
            Counts.of("short"), SIZES, "./rivulet-bench", ZonedDateTime.of(2026, 12, 2, 12, 0, 0, 0,
            ZoneOffset.UTC), 1_000_000_000L, List.of(floor, busy, invoker, backoff, rdma, aeronUdp, aeronIpc), List.of(),
            null, SystemSpec.ALL_WORKLOADS, 1);

        report.write(out, List.of(), null);

        final String line = "| ping-pong p50, 32 B: default row ÷ busy-poll floor | 2.50× | ≤ 2.0× | not met | " +
            "Rivulet TCP, back-off 25.0 µs ÷ TCP floor, busy-poll 10.0 µs |";
        final String summary = Files.readString(out.resolve("summary.md"), StandardCharsets.UTF_8);
        assertThat(summary).contains("**Issue 16 acceptance**").contains(line)
            .contains("| fan-out 1→8, 32 B: best Rivulet row ÷ Aeron UDP | 1.75× | ≥ 1.5× | **met** |")
            .contains("**9 of 14 measured ratios meet their target** (6 not measured).");
        final String results = Files.readString(out.resolve("results.md"), StandardCharsets.UTF_8);
        assertThat(results).contains("## Issue 16 acceptance").contains(line);
        // The request-response rows name their API and how many requests each keeps in flight.
        assertThat(results).contains("| Rivulet TCP, busy-spin · concatMap | 0.1.0-SNAPSHOT |")
            .contains("| concatMap | 1 | 32 B |").contains("| flatMap | 64 | 32 B |");
    }

    private List<Acceptance.Check> checks()
    {
        return new Acceptance(List.of(floor, busy, invoker, backoff, rdma, aeronUdp, aeronIpc), SIZES,
            SystemSpec.ALL_WORKLOADS, 64).checks();
    }

    private static Acceptance.Check check(final List<Acceptance.Check> checks, final String criterion)
    {
        return checks.stream().filter(check -> check.criterion().equals(criterion)).findFirst()
            .orElseThrow(() -> new AssertionError("no line '" + criterion + "' in " + checks));
    }

    /** Ping-pong of 100 round trips: 98 at {@code p50Ns}, 2 at {@code p99Ns}. */
    private static void pingPong(
        final SystemRun run, final int size, final long p50Ns, final long p99Ns, final boolean steady)
    {
        final Histogram histogram = Histograms.newHistogram();
        histogram.recordValueWithCount(p50Ns, 98);
        histogram.recordValueWithCount(p99Ns, 2);
        run.results.add(SystemRun.Result.parse(run, Line.of(Line.RESULT, "workload", "pingpong", "api",
            "requestResponse", "size", size, "warmup", 1_000, "warmupNs", 1_000_000_000L, "steady", steady,
            "count", 100, "elapsedNs", 1_000_000L, "hist", Histograms.encode(histogram))));
    }

    /** A throughput result of {@code perSecond} operations per second. */
    private static void rate(
        final SystemRun run, final String workload, final String api, final int size, final int window,
        final long perSecond)
    {
        final Histogram histogram = Histograms.newHistogram();
        histogram.recordValue(10_000);
        run.results.add(SystemRun.Result.parse(run, Line.of(Line.RESULT, "workload", workload, "api", api,
            "size", size, "warmup", 1_000, "count", perSecond, "window", window, "subscribers", 8,
            "elapsedNs", 1_000_000_000L, "hist", Histograms.encode(histogram), "loadHist", Histograms.encode(histogram))));
    }

    private static SystemRun run(final String id)
    {
        for (final SystemSpec spec : Plan.systems("jvm.options"))
        {
            if (spec.id().equals(id))
            {
                final SystemRun run = new SystemRun(spec);
                run.info = Line.of(Line.INFO, "version", id.startsWith("rivulet") ? "0.1.0-SNAPSHOT" : "test",
                    "transport", "test", "topology", "test", "settings", "test", "jvm", "test jvm");
                return run;
            }
        }
        throw new IllegalArgumentException(id);
    }
}
