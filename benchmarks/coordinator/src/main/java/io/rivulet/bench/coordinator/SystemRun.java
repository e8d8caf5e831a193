package io.rivulet.bench.coordinator;

import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What one system's run produced: its description, results, errors, or why it was skipped. With {@code --runs N}
 * it is the {@link #merge} of N runs: each cell's row is the run with the median throughput, and
 * {@link #perSecondRuns} keeps every run's throughput for the spread.
 *
 * <p>Thread-safety: filled by the coordinator's thread (errors also by a client's watchdog), read after.
 */
final class SystemRun
{
    /**
     * One measured row.
     *
     * @param workload  pingpong, oneway, reqresp or fanout.
     * @param api       the API measured.
     * @param size      payload bytes.
     * @param warmup    warm-up operations.
     * @param count     measured operations.
     * @param elapsedNs wall time of the measured operations.
     * @param histogram latencies in ns (ping-pong, request-response, fan-out: every delivery), or null.
     * @param window    requests in flight (request-response), else 1.
     * @param subscribers subscribers each message reached (fan-out), else 1.
     * @param settings  how the workload was laid out, when it differs from the system's settings (fan-out).
     * @param loadHistogram fan-out: latencies of the flat-out run (which gives the throughput), else null;
     *                  {@code histogram} then holds those of the paced run.
     * @param rate      fan-out: messages/s of the paced run, else 0.
     * @param pacedCount fan-out: messages of the paced run, else 0.
     * @param warmupNs  how long the warm-up took (ping-pong, request-response), else 0.
     * @param steady    ping-pong, request-response: whether the warm-up ended with a steady rate (false: it hit its
     *                  time bound first); null for a warm-up by count (one-way, fan-out).
     */
    record Result(
        SystemRun run,
        String workload,
        String api,
        int size,
        long warmup,
        long count,
        long elapsedNs,
        Histogram histogram,
        int window,
        int subscribers,
        String settings,
        Histogram loadHistogram,
        long rate,
        long pacedCount,
        long warmupNs,
        Boolean steady)
    {
        /** @return the result a RESULT line of a client reports. */
        static Result parse(final SystemRun run, final Line line)
        {
            return new Result(run, line.get("workload"), line.get("api"), Integer.parseInt(line.get("size")),
                line.number("warmup"), line.number("count"), line.number("elapsedNs"), histogram(line, "hist"),
                Integer.parseInt(line.get("window", "1")), Integer.parseInt(line.get("subscribers", "1")),
                line.get("settings", ""), histogram(line, "loadHist"), Long.parseLong(line.get("rate", "0")),
                Long.parseLong(line.get("pacedCount", "0")), Long.parseLong(line.get("warmupNs", "0")),
                line.get("steady") == null ? null : Boolean.valueOf(line.get("steady")));
        }

        private static Histogram histogram(final Line line, final String key)
        {
            return line.get(key) == null ? null : Histograms.decode(line.get(key));
        }

        /** @return operations per second; for a fan-out, messages per second delivered to every subscriber. */
        double perSecond()
        {
            return elapsedNs > 0 ? count * 1e9 / elapsedNs : 0;
        }

        /** @return messages handed to subscribers per second (fan-out: {@link #perSecond()} × subscribers). */
        double deliveriesPerSecond()
        {
            return perSecond() * subscribers;
        }

        double mibPerSecond()
        {
            return perSecond() * size / (1024.0 * 1024.0);
        }

        /** @return the row's name: the system, and the API when the system measures several for the workload. */
        String label()
        {
            final boolean severalApis = "oneway".equals(workload) ? run.spec.oneWayApis() > 1 :
                "reqresp".equals(workload) ? run.spec.reqRespApis() > 1 :
                run.apis(workload).size() > 1; // fan-out: the Rivulet rows measure two APIs, as the report's rows say
            return severalApis ? run.spec.label() + " · " + api : run.spec.label();
        }

        /** @return whether the warm-up hit its time bound before the rate was steady. */
        boolean unsteady()
        {
            return Boolean.FALSE.equals(steady);
        }
    }

    final SystemSpec spec;
    Line info;
    final List<Result> results = new ArrayList<>();
    final List<String> errors = new CopyOnWriteArrayList<>();
    String skipped;
    long wallNs;
    /** Every run's operations per second of each cell ({@link #key}), in run order; one entry without --runs. */
    final Map<String, double[]> perSecondRuns = new HashMap<>();

    SystemRun(final SystemSpec spec)
    {
        this.spec = spec;
    }

    /**
     * Merges the runs of one system, in run order: each cell is represented by the run whose throughput is the
     * median (for an even count the lower of the middle two, a run that happened rather than a mean of two), so
     * that its latencies and throughput come from one measurement; a cell missing from a run is left out of its
     * spread, and that run's errors say why.
     */
    static SystemRun merge(final SystemSpec spec, final List<SystemRun> rounds)
    {
        final SystemRun merged = new SystemRun(spec);
        final Map<String, List<Result>> byCell = new LinkedHashMap<>();
        for (int i = 0; i < rounds.size(); i++)
        {
            final SystemRun round = rounds.get(i);
            merged.wallNs += round.wallNs;
            if (merged.info == null)
            {
                merged.info = round.info;
            }
            if (round.skipped != null && merged.skipped == null)
            {
                merged.skipped = round.skipped;
            }
            for (final String error : round.errors)
            {
                merged.errors.add(rounds.size() > 1 ? "run " + (i + 1) + ": " + error : error);
            }
            for (final Result result : round.results)
            {
                byCell.computeIfAbsent(key(result), k -> new ArrayList<>()).add(result);
            }
        }
        byCell.forEach((key, results) ->
        {
            final double[] perSecond = new double[results.size()];
            for (int i = 0; i < perSecond.length; i++)
            {
                perSecond[i] = results.get(i).perSecond();
            }
            final List<Result> sorted = new ArrayList<>(results);
            sorted.sort((a, b) -> Double.compare(a.perSecond(), b.perSecond()));
            final Result median = sorted.get((sorted.size() - 1) / 2);
            merged.results.add(new Result(merged, median.workload, median.api, median.size, median.warmup,
                median.count, median.elapsedNs, median.histogram, median.window, median.subscribers, median.settings,
                median.loadHistogram, median.rate, median.pacedCount, median.warmupNs, median.steady));
            merged.perSecondRuns.put(key, perSecond);
        });
        if (!merged.results.isEmpty())
        {
            merged.skipped = null;
        }
        return merged;
    }

    /** @return the cell a result belongs to: workload, API and size. */
    static String key(final Result result)
    {
        return result.workload + "|" + result.api + "|" + result.size;
    }

    /** @return every run's operations per second of this result's cell, sorted; just its own without --runs. */
    double[] perSecondRuns(final Result result)
    {
        final double[] runs = perSecondRuns.get(key(result));
        if (runs == null)
        {
            return new double[] {result.perSecond()};
        }
        final double[] sorted = runs.clone();
        Arrays.sort(sorted);
        return sorted;
    }

    /**
     * @return the spread of a cell's throughput: the largest distance of any run from the reported (median) run,
     * as a percentage of it; 0 for a single run.
     */
    double spreadPercent(final Result result)
    {
        final double[] sorted = perSecondRuns(result);
        final double median = result.perSecond();
        if (sorted.length < 2 || median <= 0)
        {
            return 0;
        }
        return 100.0 * Math.max(median - sorted[0], sorted[sorted.length - 1] - median) / median;
    }

    String version()
    {
        return info == null ? "?" : info.get("version", "?");
    }

    /** @return the APIs the run measured the workload with, in the order it measured them. */
    List<String> apis(final String workload)
    {
        final List<String> apis = new ArrayList<>();
        for (final Result result : results)
        {
            if (result.workload.equals(workload) && !apis.contains(result.api))
            {
                apis.add(result.api);
            }
        }
        return apis;
    }

    /** @return every result of the workload at the size, one per API, in the order they were measured. */
    List<Result> findAll(final String workload, final int size)
    {
        final List<Result> found = new ArrayList<>();
        for (final Result result : results)
        {
            if (result.workload.equals(workload) && result.size == size)
            {
                found.add(result);
            }
        }
        return found;
    }

    /**
     * @param workload the workload.
     * @param api      the API, or null for the workload's first result of that size.
     * @param size     payload bytes.
     * @return the result, or null when this system has none.
     */
    Result find(final String workload, final String api, final int size)
    {
        for (final Result result : results)
        {
            if (result.workload.equals(workload) && result.size == size && (api == null || result.api.equals(api)))
            {
                return result;
            }
        }
        return null;
    }

    /**
     * @return the result of the workload and size with {@code window} requests in flight (request-response: each
     * system's first such API), or null.
     */
    /** @return every result of the workload at the size with {@code window} in flight (one per API that has it). */
    List<Result> allInFlight(final String workload, final int window, final int size)
    {
        final List<Result> found = new ArrayList<>();
        for (final Result result : results)
        {
            if (result.workload.equals(workload) && result.size == size && result.window == window)
            {
                found.add(result);
            }
        }
        return found;
    }

    Result findInFlight(final String workload, final int window, final int size)
    {
        for (final Result result : results)
        {
            if (result.workload.equals(workload) && result.size == size && result.window == window)
            {
                return result;
            }
        }
        return null;
    }
}
