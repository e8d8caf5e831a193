package io.rivulet.bench.coordinator;

import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What one system's run produced: its description, results, errors, or why it was skipped. */
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
        long pacedCount)
    {
        /** @return the result a RESULT line of a client reports. */
        static Result parse(final SystemRun run, final Line line)
        {
            return new Result(run, line.get("workload"), line.get("api"), Integer.parseInt(line.get("size")),
                line.number("warmup"), line.number("count"), line.number("elapsedNs"), histogram(line, "hist"),
                Integer.parseInt(line.get("window", "1")), Integer.parseInt(line.get("subscribers", "1")),
                line.get("settings", ""), histogram(line, "loadHist"), Long.parseLong(line.get("rate", "0")),
                Long.parseLong(line.get("pacedCount", "0")));
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

        /** @return the row's name: the system, and the API when the system measures several. */
        String label()
        {
            return run.spec.oneWayApis() > 1 && "oneway".equals(workload) ? run.spec.label() + " · " + api :
                run.spec.label();
        }
    }

    final SystemSpec spec;
    Line info;
    final List<Result> results = new ArrayList<>();
    final List<String> errors = new CopyOnWriteArrayList<>();
    String skipped;
    long wallNs;

    SystemRun(final SystemSpec spec)
    {
        this.spec = spec;
    }

    String version()
    {
        return info == null ? "?" : info.get("version", "?");
    }

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
}
