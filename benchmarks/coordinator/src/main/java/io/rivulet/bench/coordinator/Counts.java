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
    long timeoutS,
    List<String> jmhArgs)
{
    static Counts of(final String mode)
    {
        switch (mode)
        {
            case "short":
                return new Counts("short", 10_000, 30_000, 50_000, 300_000, 20_000, 100_000, 64, 60,
                    List.of("-f", "1", "-wi", "1", "-w", "1s", "-i", "2", "-r", "1s"));
            case "full":
                return new Counts("full", 100_000, 500_000, 500_000, 5_000_000, 200_000, 2_000_000, 64, 2400,
                    List.of("-f", "2", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s"));
            default:
                throw new IllegalArgumentException("--mode short|full, not " + mode);
        }
    }

    List<String> clientArgs()
    {
        return List.of("--pp-warmup", "" + ppWarmup, "--pp-count", "" + ppCount, "--ow-warmup", "" + owWarmup,
            "--ow-count", "" + owCount, "--rr-warmup", "" + rrWarmup, "--rr-count", "" + rrCount,
            "--window", "" + window);
    }

    String describe()
    {
        return String.format(Locale.ROOT, "ping-pong %,d warm-up + %,d measured round trips (one in flight); " +
            "one-way %,d warm-up + %,d measured messages; request-response %,d warm-up + %,d measured exchanges " +
            "with %d in flight", ppWarmup, ppCount, owWarmup, owCount, rrWarmup, rrCount, window);
    }
}
