package io.rivulet.bench.coordinator;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.List;
import java.util.Locale;

/**
 * The counts and warm-ups every system gets in a mode: the same for all, so the rows compare.
 *
 * <p>Ping-pong and request-response warm up for at least their warm-up count (the first size of each API also for
 * at least {@code warmupMinSeconds}: the JIT's last compilations can lift a rate that looked steady), then until
 * the rates of
 * {@code warmupWindows} consecutive windows of at least {@code warmupWindowMs} agree within
 * {@code warmupTolerancePct} (the harness's {@code WarmUp}), for at most {@code warmupSeconds} per API and size;
 * fan-out warms up the same way in steps of 5,000 messages, one-way in steps of 10,000 timed at the sender.
 * Request-response APIs with one request in flight ({@code concatMap}, {@code block()}) run at ping-pong rates and
 * get the ping-pong counts.
 *
 * @param mode      short or full.
 * @param ppWarmup  ping-pong warm-up round trips (at least).
 * @param ppCount   ping-pong measured round trips.
 * @param owWarmup  one-way warm-up messages (at least).
 * @param owCount   one-way measured messages.
 * @param rrWarmup  request-response warm-up exchanges (at least).
 * @param rrCount   request-response measured exchanges.
 * @param window    requests in flight.
 * @param foWarmup  fan-out warm-up messages (each delivered to every subscriber).
 * @param foCount   fan-out measured messages.
 * @param subscribers fan-out subscribers.
 * @param foRate    messages/s of the paced fan-out run (latency below saturation).
 * @param foPaced   most messages of the paced fan-out run.
 * @param foPacedSeconds longest paced fan-out run.
 * @param warmupSeconds longest warm-up of one ping-pong or request-response API and size.
 * @param warmupMinSeconds shortest warm-up of an API at the first size.
 * @param warmupWindowMs shortest window whose rate the warm-up compares.
 * @param warmupWindows consecutive windows that must agree.
 * @param warmupTolerancePct how far their rates may differ, in percent of the fastest.
 * @param timeoutS  most seconds one system's client may run.
 * @param jmhArgs   JMH's iteration options.
 */
record Counts(
    String mode,
    long ppWarmup,
    long ppCount,
    long owWarmup,
    long owCount,
    long rrWarmup,
    long rrCount,
    int window,
    long foWarmup,
    long foCount,
    int subscribers,
    long foRate,
    long foPaced,
    long foPacedSeconds,
    long warmupSeconds,
    long warmupMinSeconds,
    long warmupWindowMs,
    int warmupWindows,
    double warmupTolerancePct,
    long timeoutS,
    List<String> jmhArgs)
{
    /** Longest warm-up of one API and size in short mode. */
    private static final long SHORT_WARMUP_SECONDS = 4;

    static Counts of(final String mode)
    {
        switch (mode)
        {
            case "short":
                return new Counts("short", 10_000, 20_000, 50_000, 200_000, 20_000, 60_000, 64, 10_000, 30_000, 8, 10_000, 5_000, 1,
                    SHORT_WARMUP_SECONDS, 3, 200, 3, 5.0, 240,
                    List.of("-f", "1", "-wi", "1", "-w", "1s", "-i", "2", "-r", "1s"));
            case "full":
                return new Counts("full", 100_000, 500_000, 500_000, 5_000_000, 200_000, 2_000_000, 64, 100_000, 1_000_000, 8,
                    10_000, 50_000, 5, 30, 10, 500, 3, 5.0, 3600,
                    List.of("-f", "2", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s"));
            default:
                throw new IllegalArgumentException("--mode short|full, not " + mode);
        }
    }

    List<String> clientArgs()
    {
        return List.of("--pp-warmup", "" + ppWarmup, "--pp-count", "" + ppCount, "--ow-warmup", "" + owWarmup,
            "--ow-count", "" + owCount, "--rr-warmup", "" + rrWarmup, "--rr-count", "" + rrCount,
            "--window", "" + window, "--fo-warmup", "" + foWarmup, "--fo-count", "" + foCount,
            "--subscribers", "" + subscribers, "--fo-rate", "" + foRate, "--fo-paced", "" + foPaced,
            "--fo-paced-seconds", "" + foPacedSeconds, "--warmup-seconds", "" + warmupSeconds,
            "--warmup-min-seconds", "" + warmupMinSeconds,
            "--warmup-window-ms", "" + warmupWindowMs, "--warmup-windows", "" + warmupWindows,
            "--warmup-tolerance", "" + warmupTolerancePct);
    }

    String describe()
    {
        final String tolerance = new DecimalFormat("0.#", DecimalFormatSymbols.getInstance(Locale.ROOT))
            .format(warmupTolerancePct);
        return String.format(Locale.ROOT, "ping-pong at least %,d warm-up + %,d measured round trips (one in flight); " +
            "request-response at least %,d warm-up + %,d measured exchanges with %d in flight (flatMap), or the " +
            "ping-pong counts with one in flight (concatMap, block()); one-way at least %,d warm-up + %,d measured messages; " +
            "fan-out at least %,d warm-up + %,d measured messages flat out, then up to %,d (or %d s) paced at %,d " +
            "messages/s or half the flat-out rate if lower, each to %d subscribers; ping-pong, request-response, one-way " +
            "(in steps of 10,000 messages timed at the sender, then a sync) and fan-out warm up (the " +
            "first size of each API at least %d s) until %d consecutive windows of %d ms agree within %s%%, for at " +
            "most %d s per API and size (a row marked † hit that bound first)", ppWarmup, ppCount, rrWarmup, rrCount,
            window, owWarmup, owCount, foWarmup, foCount, foPaced, foPacedSeconds, foRate, subscribers,
            warmupMinSeconds, warmupWindows, warmupWindowMs, tolerance, warmupSeconds);
    }
}
