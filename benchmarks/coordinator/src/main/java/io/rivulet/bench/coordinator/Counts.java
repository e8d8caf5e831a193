package io.rivulet.bench.coordinator;

import java.util.List;
import java.util.Locale;

/**
 * The counts and warm-ups every system gets in a mode: the same for all, so the rows compare.
 *
 * @param mode      short or full.
 * @param ppWarmup  ping-pong warm-up round trips.
 * @param ppCount   ping-pong measured round trips.
 * @param owWarmup  one-way warm-up messages.
 * @param owCount   one-way measured messages.
 * @param rrWarmup  request-response warm-up exchanges.
 * @param rrCount   request-response measured exchanges.
 * @param window    requests in flight.
 * @param foWarmup  fan-out warm-up messages (each delivered to every subscriber).
 * @param foCount   fan-out measured messages.
 * @param subscribers fan-out subscribers.
 * @param foRate    messages/s of the paced fan-out run (latency below saturation).
 * @param foPaced   most messages of the paced fan-out run.
 * @param foPacedSeconds longest paced fan-out run.
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
    long timeoutS,
    List<String> jmhArgs)
{
    static Counts of(final String mode)
    {
        switch (mode)
        {
            case "short":
                return new Counts("short", 10_000, 20_000, 50_000, 200_000, 20_000, 60_000, 64, 10_000, 30_000, 8, 10_000, 5_000, 1, 150,
                    List.of("-f", "1", "-wi", "1", "-w", "1s", "-i", "2", "-r", "1s"));
            case "full":
                return new Counts("full", 100_000, 500_000, 500_000, 5_000_000, 200_000, 2_000_000, 64, 100_000, 1_000_000, 8,
                    10_000, 50_000, 5, 2400,
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
            "--fo-paced-seconds", "" + foPacedSeconds);
    }

    String describe()
    {
        return String.format(Locale.ROOT, "ping-pong %,d warm-up + %,d measured round trips (one in flight); " +
            "one-way %,d warm-up + %,d measured messages; request-response %,d warm-up + %,d measured exchanges " +
            "with %d in flight; fan-out %,d warm-up + %,d measured messages flat out, then up to %,d (or %d s) paced at " +
            "%,d messages/s or half the flat-out rate if lower, each to %d subscribers", ppWarmup, ppCount, owWarmup,
            owCount, rrWarmup, rrCount, window, foWarmup, foCount, foPaced, foPacedSeconds, foRate, subscribers);
    }
}
