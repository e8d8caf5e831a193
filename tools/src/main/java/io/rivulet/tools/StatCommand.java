package io.rivulet.tools;

import io.rivulet.counters.NodeDirectory;
import io.rivulet.counters.NodeFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code rivulet stat}: reads the node files of running nodes (read-only mappings, so the nodes do not notice)
 * and prints their counters, request-response latency percentiles, per-topic and per-connection rates and recent
 * errors, refreshing every interval. Rates are differences between two samples: {@code --once} takes a first,
 * silent sample and prints the second, one interval later.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
    description = "Print the counters, request-response latency percentiles, per-topic and per-connection rates " +
        "and recent errors of running nodes, refreshed every interval.")
final class StatCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "directory of node files (default: rivulet.countersDir, else /dev/shm/rivulet-<user>, or under java.io.tmpdir)")
    Path directory;

    @Option(names = "--node", paramLabel = "NAME",
        description = "only nodes whose name (or file name) starts with NAME")
    String node;

    @Option(names = "--once",
        description = "print one sample and exit (taken one interval after a first sample, for the rates)")
    boolean once;

    @Option(names = "--interval", paramLabel = "MS", defaultValue = "1000",
        description = "milliseconds between samples: refreshes, and the span rates are measured over " +
            "(default ${DEFAULT-VALUE})")
    long intervalMs;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0",
        description = "stop after N samples; 0 runs until Ctrl-C (default ${DEFAULT-VALUE})")
    int count;

    @Option(names = "--timeout", paramLabel = "MS", defaultValue = "3000",
        description = "heartbeat age after which a node is reported dead (default ${DEFAULT-VALUE})")
    long heartbeatTimeoutMs;

    @Option(names = "--errors", paramLabel = "N", defaultValue = "10",
        description = "distinct errors to show per node, most recent first (default ${DEFAULT-VALUE})")
    int maxErrors;

    @Override
    public Integer call() throws InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        if (intervalMs < 10)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--interval must be at least 10 ms");
        }
        final Path dir = directory != null ? directory :
            Path.of(System.getProperty("rivulet.countersDir", NodeDirectory.defaultDirectory().toString()));
        final StatReport report = new StatReport(heartbeatTimeoutMs, maxErrors);
        final boolean clear = !once && System.console() != null;
        final int samples = once ? 1 : count;
        int found = 0;
        if (once)
        {
            sample(dir, report, new StringBuilder()); // the baseline the printed sample's rates are measured from
            TimeUnit.MILLISECONDS.sleep(intervalMs);
        }
        for (int sample = 0; samples == 0 || sample < samples; sample++)
        {
            if (sample > 0)
            {
                TimeUnit.MILLISECONDS.sleep(intervalMs);
            }
            final StringBuilder text = new StringBuilder();
            found = sample(dir, report, text);
            if (clear)
            {
                out.print("\033[H\033[2J"); // home and clear, like top
            }
            out.print(text);
            out.flush();
        }
        return found > 0 ? 0 : 1;
    }

    private int sample(final Path dir, final StatReport report, final StringBuilder text)
    {
        final List<Path> files;
        try
        {
            files = NodeDirectory.list(dir);
        }
        catch (final IOException ex)
        {
            text.append("rivulet stat: cannot read ").append(dir).append(": ").append(ex.getMessage()).append('\n');
            return 0;
        }
        int shown = 0;
        for (final Path file : files)
        {
            try (NodeFile nodeFile = NodeFile.open(file))
            {
                if (node != null && !nodeFile.nodeName().startsWith(node) &&
                    !file.getFileName().toString().startsWith(node))
                {
                    continue;
                }
                // Now, per node: a slow mapping on a loaded machine must not make a heartbeat look from the future.
                report.print(nodeFile, System.currentTimeMillis(), text);
                text.append('\n');
                shown++;
            }
            catch (final IOException ex)
            {
                text.append("rivulet stat: skipping ").append(ex.getMessage()).append('\n');
            }
        }
        if (shown == 0)
        {
            text.append("rivulet stat: no Rivulet node").append(node == null ? "" : " named " + node + "*")
                .append(" in ").append(dir).append(" (start one, e.g. ./rivulet demo or ./rivulet pong)\n");
        }
        return shown;
    }
}
