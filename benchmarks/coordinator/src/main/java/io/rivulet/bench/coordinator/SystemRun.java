package io.rivulet.bench.coordinator;

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
     * @param workload  pingpong, oneway or reqresp.
     * @param api       the API measured.
     * @param size      payload bytes.
     * @param warmup    warm-up operations.
     * @param count     measured operations.
     * @param elapsedNs wall time of the measured operations.
     * @param histogram latencies in ns (ping-pong, request-response), or null.
     * @param window    requests in flight (request-response), else 1.
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
        int window)
    {
        double perSecond()
        {
            return elapsedNs > 0 ? count * 1e9 / elapsedNs : 0;
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
