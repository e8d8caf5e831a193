package io.rivulet.bench.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The fan-out-at-scale report ({@link FanOutScale}): for each size, each system's delivered rate per subscriber and
 * publisher CPU per message at 1, 8 and 64 subscribers, as the median run with min-max; then ratios taken within
 * each run (the publisher's CPU per message at the most subscribers against 1→1; Rivulet's multicast rate against
 * Aeron's), as the median of the per-run ratios with min-max, and the criteria they are read against.
 *
 * <p>Immutable once made; not thread-safe.
 */
final class FanOutScaleReport
{
    private static final String MULTICAST = "rivulet-udp-multicast";
    private static final String AERON = "aeron-udp-multicast";
    /** Publisher CPU per message at the most subscribers, within this factor of 1→1. */
    private static final double CPU_GROWTH_LIMIT = 1.3;

    private final List<FanOutScale.Scale> systems;
    private final List<Integer> sizes;
    private final List<Integer> subscribers;
    private final long pacedRate;
    private final List<FanOutScale.Sample> samples;

    FanOutScaleReport(final List<FanOutScale.Scale> systems, final List<Integer> sizes,
        final List<Integer> subscribers, final long pacedRate, final List<FanOutScale.Sample> samples)
    {
        this.systems = systems;
        this.sizes = sizes;
        this.subscribers = subscribers;
        this.pacedRate = pacedRate;
        this.samples = samples;
    }

    String render(final String command, final Machine machine, final double seconds)
    {
        final StringBuilder md = new StringBuilder();
        final int runs = samples.stream().mapToInt(FanOutScale.Sample::run).max().orElse(0);
        md.append("# Fan-out at scale\n\n")
            .append("`").append(command).append("` at ").append(machine.commit()).append(", ").append(runs)
            .append(" interleaved runs (systems in reverse order on even runs), ")
            .append(String.format(Locale.ROOT, "%.0f s", seconds)).append(", in a network namespace of its own ")
            .append("(lo, multicast on).\n\n").append(machine.describe()).append(".\n\n")
            .append("Each cell: a publisher process and one subscriber process holding every subscriber; a warm-up ")
            .append("run flat out, a measured run flat out (rate: messages/s delivered to each subscriber, every ")
            .append("one receiving every message in order, timed from the first offer to the slowest subscriber's ")
            .append("last delivery), then a run paced at ").append(String.format(Locale.ROOT, "%,d", pacedRate))
            .append(" messages/s and one at half that rate, both in bursts every 10 ms, after an idle interval ")
            .append("as long. The publisher's CPU per message paced is its CPU over the run at the full rate ÷ the ")
            .append("messages: what a publisher pays at that rate, status messages, timers, wake-ups (one per burst) ")
            .append("and idle polling included; the criterion reads it and the flat-out figure. The marginal figure ")
            .append("(information) is the difference of its CPU per second between the two paced runs over the ")
            .append("difference of their message rates, so that fixed costs cancel; on this machine it is noisy. ")
            .append("CPU: the process's, all threads, from ")
            .append("/proc/<pid>/task/*/schedstat over the run. Every engine and driver uses a back-off idle ")
            .append("strategy; publishers park 50 µs while back-pressured. Cells are `median [min–max]` over the ")
            .append("runs.\n\n");
        for (final FanOutScale.Scale system : systems)
        {
            md.append("- **").append(system.label()).append("** (`").append(system.id()).append("`): ")
                .append(system.how()).append('\n');
        }
        md.append('\n');
        for (final int size : sizes)
        {
            md.append("## ").append(size).append(" B\n\n");
            table(md, size, "delivered messages/s per subscriber (flat out)", FanOutScale.Sample::ratePerSubscriber,
                "%,.0f");
            table(md, size, "publisher CPU ns per message, paced at " + String.format(Locale.ROOT, "%,d", pacedRate) +
                "/s, as measured (idle included)", FanOutScale.Sample::pacedPublisherCpuPerMessage, "%,.0f");
            table(md, size, "publisher CPU ns per message, flat out", FanOutScale.Sample::publisherCpuPerMessage,
                "%,.0f");
            table(md, size, "publisher CPU ns per message, paced at " + String.format(Locale.ROOT, "%,d", pacedRate) +
                "/s vs half of it, marginal (information: noisy)", FanOutScale.Sample::marginalPublisherCpuPerMessage,
                "%,.0f");
            table(md, size, "publisher CPU while connected and idle, cores", FanOutScale.Sample::idlePublisherCores,
                "%.3f");
            table(md, size, "subscriber process CPU ns per delivery, flat out",
                FanOutScale.Sample::subscriberCpuPerDelivery, "%,.0f");
        }
        acceptance(md);
        final List<FanOutScale.Sample> failed = samples.stream().filter(s -> s.error() != null).toList();
        final List<FanOutScale.Sample> saturated = samples.stream().filter(s -> s.pacedSaturated(pacedRate)).toList();
        if (!saturated.isEmpty())
        {
            md.append("\nPaced runs that fell more than 20 % behind their schedule (the system saturated at that ")
                .append("rate, so their CPU per message is a flat-out figure): ");
            md.append(String.join(", ", saturated.stream().map(s -> s.system() + " " + s.size() + " B 1→" +
                s.subscribers() + " run " + s.run()).distinct().toList())).append(".\n");
        }
        if (!failed.isEmpty())
        {
            md.append("\n**Failed cells** (not in the medians):\n\n");
            failed.forEach(s -> md.append("- run ").append(s.run()).append(' ').append(s.system()).append(' ')
                .append(s.size()).append(" B 1→").append(s.subscribers()).append(": ").append(s.error()).append('\n'));
        }
        return md.toString();
    }

    private void table(final StringBuilder md, final int size, final String title,
        final ToDoubleFunction<FanOutScale.Sample> value, final String format)
    {
        md.append("**").append(title).append("**\n\n| system |");
        subscribers.forEach(n -> md.append(" 1→").append(n).append(" |"));
        md.append("\n|---|");
        subscribers.forEach(n -> md.append("--:|"));
        md.append('\n');
        for (final FanOutScale.Scale system : systems)
        {
            md.append("| ").append(system.label()).append(" |");
            for (final int n : subscribers)
            {
                md.append(' ').append(cell(values(system.id(), size, n, value), format)).append(" |");
            }
            md.append('\n');
        }
        md.append('\n');
    }

    private void acceptance(final StringBuilder md)
    {
        md.append("## Ratios within each run (median [min–max] of the per-run ratios)\n\n")
            .append("| criterion | size | per-run ratios | median [min–max] | holds |\n|---|--:|---|--:|:-:|\n");
        final int most = subscribers.stream().mapToInt(Integer::intValue).max().orElse(1);
        final int least = subscribers.stream().mapToInt(Integer::intValue).min().orElse(1);
        for (final int size : sizes)
        {
            if (most > least)
            {
                for (final FanOutScale.Scale system : systems)
                {
                    final boolean criterion = MULTICAST.equals(system.id());
                    growth(md, system, size, most, least, "publisher CPU/msg paced at " +
                        String.format(Locale.ROOT, "%,d", pacedRate) + "/s (idle included)",
                        FanOutScale.Sample::pacedPublisherCpuPerMessage, criterion);
                    growth(md, system, size, most, least, "publisher CPU/msg flat out",
                        FanOutScale.Sample::publisherCpuPerMessage, criterion);
                    growth(md, system, size, most, least, "marginal publisher CPU/msg (paced, information)",
                        FanOutScale.Sample::marginalPublisherCpuPerMessage, false);
                }
            }
            for (final int n : subscribers)
            {
                if (n < 8)
                {
                    continue;
                }
                final List<Double> ratios = ratios(MULTICAST, size, n, AERON, size, n,
                    FanOutScale.Sample::ratePerSubscriber);
                if (!ratios.isEmpty())
                {
                    row(md, "Rivulet UDP multicast ÷ Aeron UDP multicast, delivered rate per subscriber at 1→" + n +
                        ", ≥ 1", size, ratios, median(ratios) >= 1.0);
                }
            }
        }
    }

    /** One system's growth from the smallest to the largest audience; a criterion only for the multicast row. */
    private void growth(final StringBuilder md, final FanOutScale.Scale system, final int size, final int most,
        final int least, final String what, final ToDoubleFunction<FanOutScale.Sample> value, final boolean criterion)
    {
        final List<Double> ratios = ratios(system.id(), size, most, system.id(), size, least, value);
        row(md, system.label() + ": " + what + " at 1→" + most + " ÷ at 1→" + least +
            (criterion ? ", ≤ " + CPU_GROWTH_LIMIT : " (for scale)"), size, ratios,
            criterion ? median(ratios) <= CPU_GROWTH_LIMIT : null);
    }

    private static void row(final StringBuilder md, final String criterion, final int size, final List<Double> ratios,
        final Boolean holds)
    {
        md.append("| ").append(criterion).append(" | ").append(size).append(" | ")
            .append(String.join(", ", ratios.stream().map(r -> String.format(Locale.ROOT, "%.2f", r)).toList()))
            .append(" | ").append(cell(ratios, "%.2f")).append(" | ")
            .append(holds == null || ratios.isEmpty() ? "" : holds ? "yes" : "**no**").append(" |\n");
    }

    /** Ratios of {@code a} to {@code b} over the runs that measured both. */
    private List<Double> ratios(final String systemA, final int sizeA, final int nA, final String systemB,
        final int sizeB, final int nB, final ToDoubleFunction<FanOutScale.Sample> value)
    {
        final List<Double> ratios = new ArrayList<>();
        final int runs = samples.stream().mapToInt(FanOutScale.Sample::run).max().orElse(0);
        for (int run = 1; run <= runs; run++)
        {
            final double a = value(run, systemA, sizeA, nA, value);
            final double b = value(run, systemB, sizeB, nB, value);
            if (!Double.isNaN(a) && !Double.isNaN(b) && b > 0)
            {
                ratios.add(a / b);
            }
        }
        return ratios;
    }

    private double value(final int run, final String system, final int size, final int n,
        final ToDoubleFunction<FanOutScale.Sample> value)
    {
        return samples.stream().filter(s -> s.run() == run && s.system().equals(system) && s.size() == size &&
            s.subscribers() == n).mapToDouble(value).findFirst().orElse(Double.NaN);
    }

    private List<Double> values(final String system, final int size, final int n,
        final ToDoubleFunction<FanOutScale.Sample> value)
    {
        final List<Double> values = new ArrayList<>();
        samples.stream().filter(s -> s.system().equals(system) && s.size() == size && s.subscribers() == n)
            .mapToDouble(value).filter(v -> !Double.isNaN(v)).forEach(values::add);
        return values;
    }

    private static String cell(final List<Double> values, final String format)
    {
        if (values.isEmpty())
        {
            return "—";
        }
        final List<Double> sorted = values.stream().sorted().toList();
        return String.format(Locale.ROOT, format, median(sorted)) + " [" +
            String.format(Locale.ROOT, format, sorted.get(0)) + "–" +
            String.format(Locale.ROOT, format, sorted.get(sorted.size() - 1)) + "]";
    }

    static double median(final List<Double> values)
    {
        if (values.isEmpty())
        {
            return Double.NaN;
        }
        final List<Double> sorted = values.stream().sorted().toList();
        final int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
