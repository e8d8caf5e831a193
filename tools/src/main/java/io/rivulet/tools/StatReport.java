package io.rivulet.tools;

import io.rivulet.counters.CounterSnapshot;
import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.ErrorRecord;
import io.rivulet.counters.HistogramSnapshot;
import io.rivulet.counters.LatencyHistogram;
import io.rivulet.counters.NodeFile;
import io.rivulet.counters.NodeFileLayout;
import io.rivulet.counters.NodeStatus;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Formats one node's counters and error log as the table {@code rivulet stat} prints, with a per-second rate
 * for each total once a previous sample of the same node exists; then the request-response round-trip percentiles
 * from the node's histogram, and per-topic and per-connection message and byte rates.
 *
 * <p>Not thread-safe; one per {@code stat} run.
 */
final class StatReport
{
    /** The percentiles printed, in percent. */
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    /** Previous values by node file and counter id, for rates. */
    private final Map<String, Map<Integer, Long>> previousValues = new HashMap<>();
    private final Map<String, Long> previousTimeMs = new HashMap<>();
    private final long heartbeatTimeoutMs;
    private final int maxErrors;

    StatReport(final long heartbeatTimeoutMs, final int maxErrors)
    {
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
        this.maxErrors = maxErrors;
    }

    /**
     * @param node  an open node file.
     * @param nowMs epoch ms of this sample.
     * @param out   where the table goes.
     */
    void print(final NodeFile node, final long nowMs, final StringBuilder out)
    {
        final String key = String.valueOf(node.file());
        final long heartbeat = node.heartbeatMs();
        final boolean alive = node.isAlive(nowMs, heartbeatTimeoutMs);
        out.append("node ").append(node.nodeName()).append("  pid ").append(node.pid()).append("  ");
        if (node.status() == NodeStatus.DEAD)
        {
            // Told by the node itself: its engine failed, and it closed its connections and listeners.
            out.append("DEAD (the engine failed at ").append(TIME.format(Instant.ofEpochMilli(node.failureTimeMs())))
                .append(" UTC, ").append(seconds(nowMs - node.failureTimeMs())).append(" ago: ")
                .append(clip(node.failureCause(), 300)).append(')');
        }
        else if (alive)
        {
            out.append("alive, up ").append(seconds(nowMs - node.startTimeMs())).append(", heartbeat ")
                .append(Math.max(0, nowMs - heartbeat)).append(" ms ago");
        }
        else if (heartbeat == 0)
        {
            out.append("CLOSED (the node closed cleanly; its file was kept)");
        }
        else
        {
            out.append("DEAD (last heartbeat ").append(TIME.format(Instant.ofEpochMilli(heartbeat))).append(" UTC, ")
                .append(seconds(nowMs - heartbeat)).append(" ago)");
        }
        out.append('\n').append("  file ").append(node.file()).append('\n');

        final Map<Integer, Long> previous = previousValues.get(key);
        final Long previousMs = previousTimeMs.get(key);
        final Map<Integer, Long> current = new HashMap<>();
        final List<CounterSnapshot> counters = node.counters();
        out.append(String.format("  %5s  %-64s %16s %12s%n", "id", "counter", "value", "per second"));
        for (final CounterSnapshot counter : counters)
        {
            current.put(counter.id(), counter.value());
            String rate = "";
            if (previous != null && previousMs != null && nowMs > previousMs && !counter.isLevel())
            {
                final Long before = previous.get(counter.id());
                if (before != null && counter.value() >= before)
                {
                    rate = String.format("%,.0f", (counter.value() - before) * 1000.0 / (nowMs - previousMs));
                }
            }
            out.append(String.format("  %5d  %-64s %,16d %12s%n", counter.id(), clip(counter.label(), 64),
                counter.value(), rate));
        }
        final double elapsedS = previous != null && previousMs != null && nowMs > previousMs ?
            (nowMs - previousMs) / 1000.0 : 0;
        printLatency(node, out);
        printTopics(counters, previous, elapsedS, out);
        printConnections(counters, previous, elapsedS, out);
        previousValues.put(key, current);
        previousTimeMs.put(key, nowMs);

        final List<ErrorRecord> errors = node.errors();
        out.append("  errors: ").append(errors.size()).append(" distinct");
        if (errors.isEmpty())
        {
            out.append('\n');
            return;
        }
        out.append(errors.size() > maxErrors ? " (most recent " + maxErrors + ")" : "").append('\n');
        errors.sort((a, b) -> Long.compare(b.lastMs(), a.lastMs()));
        for (final ErrorRecord error : errors.subList(0, Math.min(maxErrors, errors.size())))
        {
            out.append(String.format("  %6dx  last %s UTC  first %s UTC  %s%n", error.count(),
                TIME.format(Instant.ofEpochMilli(error.lastMs())), TIME.format(Instant.ofEpochMilli(error.firstMs())),
                clip(error.summary(), 160)));
        }
    }

    private static void printLatency(final NodeFile node, final StringBuilder out)
    {
        final HistogramSnapshot latency = node.histogram(NodeFileLayout.HISTOGRAM_REQUEST_RESPONSE);
        out.append("  request-response round trip (requester: request sent to reply received): ");
        if (latency == null)
        {
            out.append("not recorded (node file version ").append(node.version()).append(")\n");
            return;
        }
        if (latency.count() == 0)
        {
            out.append("no replies yet\n");
            return;
        }
        out.append(String.format("%,d replies%n   ", latency.count()));
        for (final double percentile : PERCENTILES)
        {
            final String name = percentile == Math.rint(percentile) ? String.valueOf((long)percentile) :
                String.valueOf(percentile);
            out.append(String.format(" p%s <= %s ", name, duration(latency.percentileNs(percentile))));
        }
        out.append(" max ").append(duration(latency.maxNs()))
            .append("\n    (percentiles are bucket upper bounds, at most ").append(100.0 / LatencyHistogram.SUB_BUCKETS).append("% above the true value; max is exact)\n");
    }

    /** Per topic: subscribers now, and messages and log bytes per second since the previous sample. */
    private static void printTopics(
        final List<CounterSnapshot> counters, final Map<Integer, Long> previous, final double elapsedS,
        final StringBuilder out)
    {
        final Map<String, String[]> topics = new LinkedHashMap<>();
        for (final CounterSnapshot counter : counters)
        {
            final int column = counter.typeId() == CounterTypes.TOPIC_SUBSCRIBERS ? 0 :
                counter.typeId() == CounterTypes.TOPIC_PUBLISHED ? 1 :
                counter.typeId() == CounterTypes.TOPIC_LOG_BYTES ? 2 : -1;
            if (column < 0)
            {
                continue;
            }
            final String[] row = topics.computeIfAbsent(counter.tag(), topic -> new String[] {"", "-", "-"});
            row[column] = column == 0 ? String.format("%,d", counter.value()) : rate(counter, previous, elapsedS);
        }
        if (topics.isEmpty())
        {
            return;
        }
        out.append(String.format("  %-48s %11s %14s %14s%n", "topic (publisher side)", "subscribers", "messages/s",
            "bytes/s"));
        topics.forEach((topic, row) -> out.append(String.format("  %-48s %11s %14s %14s%n", clip(topic, 48), row[0],
            row[1], row[2])));
    }

    /** Per connection: messages and bytes per second each way since the previous sample. */
    private static void printConnections(
        final List<CounterSnapshot> counters, final Map<Integer, Long> previous, final double elapsedS,
        final StringBuilder out)
    {
        final Map<Long, String[]> connections = new LinkedHashMap<>();
        for (final CounterSnapshot counter : counters)
        {
            final int column;
            switch (counter.typeId())
            {
                case CounterTypes.CONNECTION_MESSAGES_IN: column = 1; break;
                case CounterTypes.CONNECTION_BYTES_IN: column = 2; break;
                case CounterTypes.CONNECTION_MESSAGES_OUT: column = 3; break;
                case CounterTypes.CONNECTION_BYTES_OUT: column = 4; break;
                default: continue;
            }
            final String[] row = connections.computeIfAbsent(counter.ownerId(), id ->
                new String[] {id + " " + counter.tag(), "-", "-", "-", "-"});
            row[column] = rate(counter, previous, elapsedS);
        }
        if (connections.isEmpty())
        {
            return;
        }
        out.append(String.format("  %-48s %11s %14s %14s %14s%n", "connection", "msgs in/s", "bytes in/s",
            "msgs out/s", "bytes out/s"));
        connections.values().forEach(row -> out.append(String.format("  %-48s %11s %14s %14s %14s%n",
            clip(row[0], 48), row[1], row[2], row[3], row[4])));
    }

    /** @return the counter's growth per second since the previous sample, or "-" without one. */
    private static String rate(final CounterSnapshot counter, final Map<Integer, Long> previous, final double elapsedS)
    {
        final Long before = previous == null ? null : previous.get(counter.id());
        if (elapsedS <= 0 || before == null || counter.value() < before)
        {
            return "-";
        }
        return String.format("%,.0f", (counter.value() - before) / elapsedS);
    }

    /** @return nanoseconds in a readable unit, three significant digits or so. */
    static String duration(final long ns)
    {
        if (ns < 1_000)
        {
            return ns + " ns";
        }
        if (ns < 1_000_000)
        {
            return String.format("%.1f us", ns / 1e3);
        }
        if (ns < 1_000_000_000)
        {
            return String.format("%.2f ms", ns / 1e6);
        }
        return String.format("%.2f s", ns / 1e9);
    }

    private static String seconds(final long ms)
    {
        return String.format("%.1f s", ms / 1000.0);
    }

    private static String clip(final String text, final int max)
    {
        return text.length() <= max ? text : text.substring(0, max - 3) + "...";
    }
}
