package io.rivulet.samples;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The command line of every sample, on picocli like the {@code rivulet} tools: {@code --help} and
 * {@code --version}, whole numbers that may be written with underscores ({@code 100_000}), and the same error
 * behaviour: an unknown option or a bad value prints a message naming the option and the usage to standard
 * error, and the command exits with {@link #USAGE_EXIT_CODE}.
 */
public final class SampleCli
{
    /** Exit code for a bad command line (picocli's, as the tools use). */
    public static final int USAGE_EXIT_CODE = CommandLine.ExitCode.USAGE;

    private SampleCli()
    {
    }

    /**
     * @param command a {@code @Command} object.
     * @return its command line, ready to {@link CommandLine#execute execute}.
     */
    public static CommandLine commandLine(final Object command)
    {
        final CommandLine commandLine = new CommandLine(command);
        commandLine.registerConverter(Integer.class, SampleCli::parseInt);
        commandLine.registerConverter(Integer.TYPE, SampleCli::parseInt);
        commandLine.registerConverter(Long.class, SampleCli::parseLong);
        commandLine.registerConverter(Long.TYPE, SampleCli::parseLong);
        return commandLine;
    }

    /**
     * Parses the arguments into the command and runs it.
     *
     * @param command a {@code @Command} object that is a {@link Runnable} or a {@link java.util.concurrent.Callable}.
     * @param args    the command line.
     * @return the exit code: the command's, 0 after --help, {@link #USAGE_EXIT_CODE} for a bad command line.
     */
    public static int execute(final Object command, final String... args)
    {
        return commandLine(command).execute(args);
    }

    /**
     * Rejects a value outside {@code [min, max]}.
     *
     * @param spec   the command's spec, for the usage message.
     * @param option the option's name, as the message shows it.
     * @param value  the value given.
     * @param min    the smallest allowed value.
     * @param max    the largest allowed value.
     * @throws ParameterException naming the option, when the value is out of range.
     */
    public static void checkRange(
        final CommandSpec spec, final String option, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new ParameterException(spec.commandLine(),
                option + " must be within [" + min + ", " + max + "], got " + value);
        }
    }

    /**
     * Reports a bad command line found after the command started (a configuration a node rejects, say) as
     * picocli reports a parse error, then exits the JVM with {@link #USAGE_EXIT_CODE}.
     *
     * @param spec    the command's spec.
     * @param message what is wrong.
     */
    public static void exitWithUsageError(final CommandSpec spec, final String message)
    {
        final CommandLine commandLine = spec.commandLine();
        int exitCode = USAGE_EXIT_CODE;
        try
        {
            exitCode = commandLine.getParameterExceptionHandler()
                .handleParseException(new ParameterException(commandLine, message), new String[0]);
        }
        catch (final Exception ex)
        {
            System.err.println(spec.qualifiedName() + ": " + message);
        }
        System.exit(exitCode);
    }

    private static int parseInt(final String text)
    {
        try
        {
            return Integer.parseInt(text.replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a whole number");
        }
    }

    private static long parseLong(final String text)
    {
        try
        {
            return Long.parseLong(text.replace("_", ""));
        }
        catch (final NumberFormatException ex)
        {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a whole number");
        }
    }

    /** The version from the jar's manifest, or "development" when run from classes. */
    public static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            final String version = SampleCli.class.getPackage().getImplementationVersion();
            return new String[]{"rivulet samples " + (version == null ? "development" : version)};
        }
    }
}
