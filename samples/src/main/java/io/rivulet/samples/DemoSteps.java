package io.rivulet.samples;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The step runner the demos share: prints each step's title, counts the steps that pass, and on the
 * first failure prints what failed (and what the engines reported) and exits 1. A watchdog halts the
 * process, naming the step, if a demo runs past its time limit.
 *
 * <p>Steps run on the demo's main thread; the watchdog reads the current step from its own thread.
 */
public final class DemoSteps
{
    /** A demo step; any exception fails the demo. */
    public interface Step
    {
        void run() throws Exception;
    }

    private final String name;
    private final PrintStream out;
    private final List<String> reportedErrors;
    private final String reporters;
    private volatile String currentStep = "starting";
    private int passed;

    /**
     * @param name           how failures name the demo ("DEMO", "ACTORS DEMO").
     * @param out            where steps are printed.
     * @param reportedErrors errors the demo's error handlers collected, printed on failure.
     * @param reporters      who collected them ("the engines").
     */
    public DemoSteps(final String name, final PrintStream out, final List<String> reportedErrors, final String reporters)
    {
        this.name = name;
        this.out = out;
        this.reportedErrors = reportedErrors;
        this.reporters = reporters;
    }

    /** Runs a step under its title; a failure ends the process with exit code 1. */
    public void step(final String title, final Step body)
    {
        currentStep = title;
        out.println();
        out.println(title);
        try
        {
            body.run();
            passed++;
        }
        catch (final Throwable ex)
        {
            fail(title, ex);
        }
    }

    /** @return the steps that passed so far. */
    public int passed()
    {
        return passed;
    }

    /** Fails the current step with a message unless the condition holds. */
    public static void check(final boolean condition, final String failure)
    {
        if (!condition)
        {
            throw new IllegalStateException(failure);
        }
    }

    /** Prints why the demo failed and exits 1. */
    public void fail(final String step, final Throwable cause)
    {
        out.flush();
        System.err.println();
        System.err.println(name + " FAILED at step \"" + step + "\": " + cause);
        cause.printStackTrace(System.err);
        if (!reportedErrors.isEmpty())
        {
            System.err.println("errors reported by " + reporters + ": " + reportedErrors);
        }
        System.exit(1);
    }

    /** Halts the process, naming the current step, if it still runs after the limit. */
    public void startWatchdog(final long limitMs)
    {
        final Thread watchdog = new Thread(() ->
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMs);
            long leftNs;
            while ((leftNs = deadlineNs - System.nanoTime()) > 0)
            {
                LockSupport.parkNanos(leftNs);
            }
            System.out.flush();
            System.err.println();
            System.err.println(name + " FAILED: still running after " + TimeUnit.MILLISECONDS.toSeconds(limitMs) +
                " s, in step \"" + currentStep + "\"");
            // Halt, not exit: a stuck engine thread must not keep the process alive through shutdown hooks.
            Runtime.getRuntime().halt(1);
        }, name.toLowerCase().replace(' ', '-') + "-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }
}
