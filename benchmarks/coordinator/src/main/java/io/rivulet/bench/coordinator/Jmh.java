package io.rivulet.bench.coordinator;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the JMH microbenchmarks of benchmarks/jmh and reads their CSV results. */
final class Jmh
{
    private static final Pattern PROGRESS = Pattern.compile("# Run progress: ([0-9.]+)% complete");
    private static final Pattern BENCHMARK = Pattern.compile("# Benchmark: io\\.rivulet\\.bench\\.jmh\\.(\\S+)");

    /**
     * One JMH score.
     *
     * @param benchmark short name, e.g. CodecBenchmark.encode or HandoffBenchmark.handoff:offer.
     * @param mode      thrpt or avgt.
     * @param size      the size parameter.
     * @param score     the score.
     * @param error     its 99.9% error.
     * @param unit      its unit.
     */
    record Score(String benchmark, String mode, int size, double score, double error, String unit)
    {
    }

    private Jmh()
    {
    }

    static List<Score> run(final Jvm jvm, final Counts counts, final Path out, final ProgressDisplay display)
        throws Exception
    {
        final Path csv = out.resolve("jmh.csv");
        final List<String> args = new ArrayList<>(counts.jmhArgs());
        args.addAll(List.of("-foe", "true", "-rf", "csv", "-rff", csv.toString()));
        final Path log = out.resolve("logs/jmh.log");
        final Process process = jvm.start(jvm.command(jvm.classPath("jmh"), List.of(), "org.openjdk.jmh.Main", args), log);
        process.getOutputStream().close();
        String current = "";
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                Files.writeString(log, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                final Matcher benchmark = BENCHMARK.matcher(line);
                if (benchmark.find())
                {
                    current = benchmark.group(1);
                }
                final Matcher progress = PROGRESS.matcher(line);
                if (progress.find())
                {
                    display.progress(current, Math.round(Double.parseDouble(progress.group(1))), 100);
                }
            }
        }
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            throw new IOException("JMH failed; see logs/jmh.log");
        }
        return parse(Files.readAllLines(csv, StandardCharsets.UTF_8));
    }

    /**
     * Reads JMH's CSV: the {@code size} parameter is the row's size, any other parameter (such as
     * {@code responder}) goes into the benchmark's name, so that its variants stay rows of their own.
     */
    static List<Score> parse(final List<String> lines)
    {
        final List<Score> scores = new ArrayList<>();
        if (lines.isEmpty())
        {
            return scores;
        }
        final List<String> header = cells(lines.get(0));
        for (int i = 1; i < lines.size(); i++)
        {
            final List<String> cells = cells(lines.get(i));
            if (cells.size() < 7)
            {
                continue;
            }
            final StringBuilder name = new StringBuilder(cells.get(0).replace("io.rivulet.bench.jmh.", ""));
            int size = 0;
            String params = "";
            for (int column = 7; column < Math.min(cells.size(), header.size()); column++)
            {
                final String param = header.get(column).replace("Param: ", "");
                final String value = cells.get(column);
                if (value.isEmpty())
                {
                    continue;
                }
                if ("size".equals(param))
                {
                    size = (int)number(value);
                }
                else
                {
                    params += (params.isEmpty() ? "" : ", ") + param + "=" + value;
                }
            }
            if (!params.isEmpty())
            {
                name.append(" (").append(params).append(')');
            }
            scores.add(new Score(name.toString(), cells.get(1), size, number(cells.get(4)), number(cells.get(5)),
                cells.get(6)));
        }
        return scores;
    }

    private static double number(final String text)
    {
        try
        {
            return Double.parseDouble(text);
        }
        catch (final NumberFormatException ex)
        {
            return Double.NaN;
        }
    }

    private static List<String> cells(final String line)
    {
        final List<String> cells = new ArrayList<>();
        final StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++)
        {
            final char c = line.charAt(i);
            if (c == '"')
            {
                quoted = !quoted;
            }
            else if (c == ',' && !quoted)
            {
                cells.add(cell.toString());
                cell.setLength(0);
            }
            else
            {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
