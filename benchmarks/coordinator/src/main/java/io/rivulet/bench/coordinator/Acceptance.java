package io.rivulet.bench.coordinator;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 16's acceptance, computed from one run: every ratio its Acceptance section names, each with its target
 * and whether this run meets it. A report, never a test: the run does not fail on it, and a ratio whose rows are
 * not in the run (a {@code --systems} or {@code --sizes} subset, a failed row) says "not measured".
 *
 * <p>Rows compared: the Rivulet TCP rows (every Rivulet row that needs no RDMA; "best" is the lowest p50 or the
 * highest rate among them, named in the line), the default row ({@value #DEFAULT_ROW}, back-off idle), the TCP
 * floor that busy-polls ({@value #FLOOR}), and Aeron UDP and IPC. Request-response compares the rows with
 * {@code window} requests in flight: Rivulet's {@code flatMap} and {@code offerRequest} rows, the floor's pipelined
 * write/read and Aeron's offer/poll, all with the same count in flight.
 */
final class Acceptance
{
    /** The busy-poll TCP floor every latency and one-way target is relative to. */
    static final String FLOOR = "floor-busy";
    /** Rivulet's default configuration: SHARED threading, back-off idle. */
    static final String DEFAULT_ROW = "rivulet-tcp-backoff";
    static final String AERON_UDP = "aeron-udp";
    static final String AERON_IPC = "aeron-ipc";

    private static final String PINGPONG = "pingpong";
    private static final String ONEWAY = "oneway";
    private static final String REQRESP = "reqresp";
    private static final String FANOUT = "fanout";
    private static final List<Integer> PING_PONG_SIZES = List.of(32, 256);
    private static final List<String> ONE_WAY_APIS = List.of("offer", "fireAndForget", "requestChannel");
    private static final Pattern SIZE = Pattern.compile(", (\\d+) B:");

    /** How a measured ratio must compare with its target. */
    enum Comparison
    {
        AT_MOST("≤"),
        AT_LEAST("≥"),
        ABOVE(">");

        final String symbol;

        Comparison(final String symbol)
        {
            this.symbol = symbol;
        }

        boolean holds(final double ratio, final double target)
        {
            switch (this)
            {
                case AT_MOST:
                    return ratio <= target;
                case AT_LEAST:
                    return ratio >= target;
                default:
                    return ratio > target;
            }
        }
    }

    /**
     * One acceptance line.
     *
     * @param criterion  what is compared, as the issue says it.
     * @param detail     the rows and figures the ratio comes from, or why it is not measured.
     * @param ratio      the measured ratio, NaN when not measured.
     * @param comparison how it must compare with the target.
     * @param target     the target.
     * @param unsteady   whether a row it comes from warmed up to its time bound without a steady rate.
     */
    record Check(String criterion, String detail, double ratio, Comparison comparison, double target,
        boolean unsteady)
    {
        boolean measured()
        {
            return !Double.isNaN(ratio);
        }

        boolean met()
        {
            return measured() && comparison.holds(ratio, target);
        }

        String ratioText()
        {
            // Two decimals, or two significant digits for a ratio far below target (0.0042×, not 0.00×).
            return measured() ? String.format(Locale.ROOT, ratio >= 0.1 ? "%.2f×" : "%.2g×", ratio) +
                (unsteady ? " †" : "") : "—";
        }

        String targetText()
        {
            return comparison.symbol + " " + String.format(Locale.ROOT, "%.1f", target) + "×";
        }

        String verdict()
        {
            return !measured() ? "not measured" : met() ? "met" : "not met";
        }
    }

    private final List<SystemRun> runs;
    private final List<Integer> sizes;
    private final List<String> workloads;
    private final int window;

    /**
     * @param runs      every system's (merged) run.
     * @param sizes     the run's payload sizes.
     * @param workloads the run's workloads.
     * @param window    the requests in flight of the request-response rows compared.
     */
    Acceptance(final List<SystemRun> runs, final List<Integer> sizes, final List<String> workloads, final int window)
    {
        this.runs = runs;
        this.sizes = sizes;
        this.workloads = workloads;
        this.window = window;
    }

    /** @return every line, in the order of the Acceptance section. */
    List<Check> checks()
    {
        final List<Check> checks = new ArrayList<>();
        final SystemRun floor = run(FLOOR);
        final SystemRun defaultRow = run(DEFAULT_ROW);
        for (final int size : PING_PONG_SIZES)
        {
            final SystemRun.Result best = best(PINGPONG, null, size, false);
            checks.add(latencyRatio("ping-pong p50, " + size + " B: best Rivulet row ÷ busy-poll floor", best,
                result(floor, PINGPONG, size), 1.3));
        }
        for (final int size : PING_PONG_SIZES)
        {
            checks.add(latencyRatio("ping-pong p50, " + size + " B: default row ÷ busy-poll floor",
                result(defaultRow, PINGPONG, size), result(floor, PINGPONG, size), 2.0));
        }
        for (final int size : PING_PONG_SIZES)
        {
            final SystemRun.Result own = result(defaultRow, PINGPONG, size);
            final String criterion = "ping-pong, " + size + " B: default row's p99 ÷ its p50";
            if (own == null)
            {
                checks.add(notMeasured(criterion, Comparison.AT_MOST, 3.0, "no default-row result in this run"));
                continue;
            }
            final Histogram h = own.histogram();
            checks.add(new Check(criterion, own.label() + ": " + Report.us(h.getValueAtPercentile(99)) + " µs ÷ " +
                Report.us(h.getValueAtPercentile(50)) + " µs", ratio(h.getValueAtPercentile(99),
                h.getValueAtPercentile(50)), Comparison.AT_MOST, 3.0, own.unsteady()));
        }
        for (final int size : PING_PONG_SIZES)
        {
            final SystemRun.Result best = best(REQRESP, null, size, true);
            checks.add(rateRatio("request-response, " + window + " in flight, " + size +
                " B: best Rivulet row ÷ busy-poll floor", best, inFlight(floor, size), Comparison.AT_LEAST, 0.5));
            checks.add(rateRatio("request-response, " + window + " in flight, " + size +
                " B: best Rivulet row ÷ Aeron UDP", best, inFlight(run(AERON_UDP), size), Comparison.ABOVE, 1.0));
        }
        for (final String api : ONE_WAY_APIS)
        {
            for (final int size : sizes)
            {
                checks.add(rateRatio("one-way " + api + ", " + size + " B: slowest Rivulet row ÷ busy-poll floor",
                    worst(ONEWAY, api, size), result(floor, ONEWAY, size), Comparison.AT_LEAST, 0.5));
            }
        }
        checks.add(rateRatio("one-way offer, 32 B: best Rivulet row ÷ busy-poll floor",
            best(ONEWAY, "offer", 32, true), result(floor, ONEWAY, 32), Comparison.AT_LEAST, 1.5));
        for (final int size : PING_PONG_SIZES)
        {
            checks.add(rateRatio("fan-out 1→8, " + size + " B: best Rivulet row ÷ Aeron UDP",
                best(FANOUT, null, size, true), result(run(AERON_UDP), FANOUT, size), Comparison.AT_LEAST, 1.5));
        }
        checks.add(rateRatio("fan-out 1→8, 32 B: best Rivulet row ÷ Aeron IPC", best(FANOUT, null, 32, true),
            result(run(AERON_IPC), FANOUT, 32), Comparison.AT_LEAST, 0.5));
        return sizesNamed(checks);
    }

    private static Check latencyRatio(
        final String criterion, final SystemRun.Result rivulet, final SystemRun.Result floor, final double target)
    {
        if (rivulet == null || floor == null)
        {
            return notMeasured(criterion, Comparison.AT_MOST, target, missing(rivulet));
        }
        final long r = rivulet.histogram().getValueAtPercentile(50);
        final long f = floor.histogram().getValueAtPercentile(50);
        return new Check(criterion, rivulet.label() + " " + Report.us(r) + " µs ÷ " + floor.label() + " " +
            Report.us(f) + " µs", ratio(r, f), Comparison.AT_MOST, target, rivulet.unsteady() || floor.unsteady());
    }

    private static Check rateRatio(
        final String criterion, final SystemRun.Result rivulet, final SystemRun.Result peer,
        final Comparison comparison, final double target)
    {
        if (rivulet == null || peer == null)
        {
            return notMeasured(criterion, comparison, target, missing(rivulet));
        }
        return new Check(criterion, rivulet.label() + " " + rate(rivulet.perSecond()) + "/s ÷ " + peer.label() + " " +
            rate(peer.perSecond()) + "/s", ratio(rivulet.perSecond(), peer.perSecond()), comparison, target,
            rivulet.unsteady() || peer.unsteady());
    }

    private static Check notMeasured(
        final String criterion, final Comparison comparison, final double target, final String why)
    {
        return new Check(criterion, why, Double.NaN, comparison, target, false);
    }

    /**
     * @return the checks, each not measured for a workload or size the run left out saying so rather than naming
     * a missing row.
     */
    private List<Check> sizesNamed(final List<Check> checks)
    {
        final List<Check> named = new ArrayList<>();
        for (final Check check : checks)
        {
            final Integer size = sizeOf(check.criterion());
            final String workload = workloadOf(check.criterion());
            if (check.measured())
            {
                named.add(check);
            }
            else if (!workloads.contains(workload))
            {
                named.add(notMeasured(check.criterion(), check.comparison(), check.target(), workload +
                    " is not among this run's workloads (--workloads)"));
            }
            else if (size != null && !sizes.contains(size))
            {
                named.add(notMeasured(check.criterion(), check.comparison(), check.target(), size + " B is not " +
                    "among this run's sizes (--sizes)"));
            }
            else
            {
                named.add(check);
            }
        }
        return named;
    }

    /** @return the workload a criterion is about, from how it starts. */
    private static String workloadOf(final String criterion)
    {
        return criterion.startsWith("ping-pong") ? PINGPONG : criterion.startsWith("request-response") ? REQRESP :
            criterion.startsWith("one-way") ? ONEWAY : FANOUT;
    }

    /** @return the payload size a criterion names ("..., 256 B: ..."), or null. */
    private static Integer sizeOf(final String criterion)
    {
        final Matcher matcher = SIZE.matcher(criterion);
        return matcher.find() ? Integer.valueOf(matcher.group(1)) : null;
    }

    /** @return why a ratio is not measured: its Rivulet row, or else its peer's, is not in this run. */
    private static String missing(final SystemRun.Result rivulet)
    {
        return rivulet == null ? "no Rivulet row's result in this run" : "no peer's result in this run";
    }

    /** @return the fastest (throughput) or lowest-p50 (latency) Rivulet TCP row's result, or null. */
    private SystemRun.Result best(final String workload, final String api, final int size, final boolean rate)
    {
        SystemRun.Result best = null;
        for (final SystemRun.Result result : rivuletResults(workload, api, size))
        {
            if (best == null || (rate ? result.perSecond() > best.perSecond() :
                result.histogram().getValueAtPercentile(50) < best.histogram().getValueAtPercentile(50)))
            {
                best = result;
            }
        }
        return best;
    }

    /** @return the slowest Rivulet TCP row's result, or null. */
    private SystemRun.Result worst(final String workload, final String api, final int size)
    {
        SystemRun.Result worst = null;
        for (final SystemRun.Result result : rivuletResults(workload, api, size))
        {
            if (worst == null || result.perSecond() < worst.perSecond())
            {
                worst = result;
            }
        }
        return worst;
    }

    private List<SystemRun.Result> rivuletResults(final String workload, final String api, final int size)
    {
        final List<SystemRun.Result> results = new ArrayList<>();
        for (final SystemRun run : runs)
        {
            if (!run.spec.rivulet() || run.spec.needsRdma() || run.skipped != null)
            {
                continue;
            }
            if (REQRESP.equals(workload))
            {
                results.addAll(run.allInFlight(workload, window, size));
                continue;
            }
            if (api == null)
            {
                results.addAll(run.findAll(workload, size)); // every API's row (fan-out: the flux and the handler)
                continue;
            }
            final SystemRun.Result result = run.find(workload, api, size);
            if (result != null)
            {
                results.add(result);
            }
        }
        return results;
    }

    private SystemRun.Result inFlight(final SystemRun run, final int size)
    {
        return run == null ? null : run.findInFlight(REQRESP, window, size);
    }

    private static SystemRun.Result result(final SystemRun run, final String workload, final int size)
    {
        return run == null ? null : run.find(workload, null, size);
    }

    private SystemRun run(final String id)
    {
        for (final SystemRun run : runs)
        {
            if (run.spec.id().equals(id) && run.skipped == null)
            {
                return run;
            }
        }
        return null;
    }

    private static double ratio(final double numerator, final double denominator)
    {
        return denominator > 0 ? numerator / denominator : Double.NaN;
    }

    private static String rate(final double perSecond)
    {
        return String.format(Locale.ROOT, "%,.0f", perSecond);
    }
}
