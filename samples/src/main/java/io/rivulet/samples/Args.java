package io.rivulet.samples;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Hand-written {@code --name value} parsing for the samples: every option takes one value, except
 * {@code --help}. Unknown options and malformed numbers end the program with exit code 2 and a usage
 * text, so a typo never runs a benchmark with a silently ignored setting.
 *
 * <p>Not thread-safe; used by {@code main} only.
 */
final class Args
{
    /** Exit code for a bad command line. */
    static final int USAGE_EXIT_CODE = 2;

    private final String program;
    private final String usage;
    private final Map<String, String> values = new LinkedHashMap<>();
    private final boolean help;

    /**
     * @param program name shown in messages.
     * @param usage   the full usage text, printed for --help and on errors.
     * @param args    the command line.
     * @param allowed the option names (without dashes) that take a value.
     */
    Args(final String program, final String usage, final String[] args, final String... allowed)
    {
        this.program = program;
        this.usage = usage;
        boolean helpWanted = false;
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            if ("--help".equals(arg) || "-h".equals(arg))
            {
                helpWanted = true;
                continue;
            }
            if (!arg.startsWith("--"))
            {
                fail("unexpected argument '" + arg + "'");
            }
            final String name = arg.substring(2);
            if (!isAllowed(name, allowed))
            {
                fail("unknown option '" + arg + "'");
            }
            if (i + 1 >= args.length)
            {
                fail("option '" + arg + "' needs a value");
            }
            values.put(name, args[++i]);
        }
        this.help = helpWanted;
    }

    /** @return true when --help was given; the caller prints {@link #printUsage()} and exits 0. */
    boolean help()
    {
        return help;
    }

    void printUsage()
    {
        System.out.println(usage);
    }

    String string(final String name, final String defaultValue)
    {
        return values.getOrDefault(name, defaultValue);
    }

    int integer(final String name, final int defaultValue, final int min, final int max)
    {
        final String text = values.get(name);
        if (text == null)
        {
            return defaultValue;
        }
        final long value;
        try
        {
            value = Long.parseLong(text.replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            fail("--" + name + " expects a whole number, got '" + text + "'");
            return defaultValue;
        }
        if (value < min || value > max)
        {
            fail("--" + name + " must be within [" + min + ", " + max + "], got " + value);
        }
        return (int)value;
    }

    /**
     * Builds a node context from the common engine options (--transport, --threading, --idle); what is
     * not given falls back to the {@code rivulet.*} system properties and then the defaults.
     *
     * @return a context to launch with.
     */
    Rivulet.Context context()
    {
        final Rivulet.Context context;
        try
        {
            context = new Rivulet.Context();
        }
        catch (final RuntimeException ex)
        {
            // A rivulet.* system property that does not parse.
            fail("bad configuration: " + ex.getMessage());
            throw ex;
        }
        final String transport = values.get("transport");
        if (transport != null)
        {
            try
            {
                context.transport(Transports.byName(transport));
            }
            catch (final IllegalArgumentException ex)
            {
                fail(ex.getMessage());
            }
        }
        final String threading = values.get("threading");
        if (threading != null)
        {
            try
            {
                context.threadingMode(ThreadingMode.valueOf(threading.toUpperCase(Locale.ROOT)));
            }
            catch (final IllegalArgumentException ex)
            {
                fail("--threading must be DEDICATED or SHARED, got '" + threading + "'");
            }
        }
        if (context.threadingMode() == ThreadingMode.INVOKER)
        {
            // The samples block on the main thread, so nothing would drive an invoker-mode engine.
            fail("threading mode INVOKER needs an application-driven duty cycle; the samples support " +
                "DEDICATED and SHARED");
        }
        final String idle = values.get("idle");
        if (idle != null)
        {
            context.idleStrategy(idle);
        }
        return context;
    }

    void fail(final String message)
    {
        System.err.println(program + ": " + message);
        System.err.println();
        System.err.println(usage);
        System.exit(USAGE_EXIT_CODE);
    }

    private static boolean isAllowed(final String name, final String[] allowed)
    {
        for (final String option : allowed)
        {
            if (option.equals(name))
            {
                return true;
            }
        }
        return false;
    }
}
