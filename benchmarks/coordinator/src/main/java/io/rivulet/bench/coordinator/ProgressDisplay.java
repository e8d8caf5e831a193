package io.rivulet.bench.coordinator;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The progress line during a run: which system, which workload, how far, how long so far and roughly how
 * long to go. On a terminal it rewrites one line; otherwise (a log, CI) it prints a line every few seconds.
 *
 * <p>Used by the coordinator's thread only.
 */
final class ProgressDisplay
{
    private static final long QUIET_INTERVAL_NS = TimeUnit.SECONDS.toNanos(5);

    private final PrintStream out = System.out;
    private final boolean terminal = System.console() != null;
    private final long startNs = System.nanoTime();
    private final int totalSteps;
    private int doneSteps;
    private int systemIndex;
    private int systemCount;
    private String system = "";
    private long lastPrintNs;
    private int lastLength;

    ProgressDisplay(final int totalSteps)
    {
        this.totalSteps = Math.max(1, totalSteps);
    }

    void system(final int index, final int count, final String name)
    {
        systemIndex = index;
        systemCount = count;
        system = name;
        message("starting");
    }

    void stepDone(final String what)
    {
        doneSteps = Math.min(totalSteps, doneSteps + 1);
        if (!terminal)
        {
            line(String.format(Locale.ROOT, "[%d/%d] %s: %s done (%s elapsed)", doneSteps, totalSteps, system, what,
                clock(System.nanoTime() - startNs)));
            lastPrintNs = System.nanoTime();
        }
    }

    void stepsSkipped(final int steps)
    {
        doneSteps = Math.min(totalSteps, doneSteps + steps);
    }

    void progress(final String label, final long done, final long total)
    {
        final double fraction = total > 0 ? (double)done / total : 0;
        message(String.format(Locale.ROOT, "%s %3.0f%% (%,d/%,d)", label, fraction * 100, done, total));
    }

    void message(final String text)
    {
        final long nowNs = System.nanoTime();
        final long elapsedNs = nowNs - startNs;
        final String eta = doneSteps == 0 ? "" : ", ~" + clock(elapsedNs * (totalSteps - doneSteps) / doneSteps) + " left";
        final String status = String.format(Locale.ROOT, "[system %d/%d, step %d/%d] %s: %s | %s elapsed%s",
            systemIndex, systemCount, doneSteps, totalSteps, system, text, clock(elapsedNs), eta);
        if (terminal)
        {
            final String padded = status.length() < lastLength ? status + " ".repeat(lastLength - status.length()) :
                status;
            out.print("\r" + padded);
            out.flush();
            lastLength = status.length();
        }
        else if (nowNs - lastPrintNs > QUIET_INTERVAL_NS)
        {
            out.println(status);
            lastPrintNs = nowNs;
        }
    }

    /** A line that stays (a finished system, a warning). */
    void line(final String text)
    {
        if (terminal && lastLength > 0)
        {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            lastLength = 0;
        }
        out.println(text);
    }

    static String clock(final long nanos)
    {
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(nanos);
        return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }
}
