package io.rivulet.tools;

import io.rivulet.counters.CounterSnapshot;
import io.rivulet.counters.ErrorRecord;
import io.rivulet.counters.NodeFile;
import io.rivulet.counters.NodeStatus;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Formats one node's counters and error log as the table {@code rivulet stat} prints, with a per-second rate
 * for each total once a previous sample of the same node exists.
 *
 * <p>Not thread-safe; one per {@code stat} run.
 */
final class StatReport
{
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

    private static String seconds(final long ms)
    {
        return String.format("%.1f s", ms / 1000.0);
    }

    private static String clip(final String text, final int max)
    {
        return text.length() <= max ? text : text.substring(0, max - 3) + "...";
    }
}
