package io.rivulet.bench.harness;

import picocli.CommandLine;

/**
 * The command line of every benchmark JVM and of the coordinator, on picocli like the {@code rivulet} tools:
 * {@code --help}, whole numbers that may be written with underscores ({@code 100_000}), and the same error
 * behaviour: an unknown option or a bad value prints a message naming the option and the usage to standard
 * error, and the command exits with {@link #USAGE_EXIT_CODE}.
 */
public final class BenchCli
{
    /** Exit code for a bad command line (picocli's, as the tools use). */
    public static final int USAGE_EXIT_CODE = CommandLine.ExitCode.USAGE;

    private BenchCli()
    {
    }

    /**
     * Registers the number converters on a command line; call it after adding every mixin.
     *
     * @param commandLine the command line.
     * @return the same command line.
     */
    public static CommandLine withConverters(final CommandLine commandLine)
    {
        commandLine.registerConverter(Integer.class, BenchCli::parseInt);
        commandLine.registerConverter(Integer.TYPE, BenchCli::parseInt);
        commandLine.registerConverter(Long.class, BenchCli::parseLong);
        commandLine.registerConverter(Long.TYPE, BenchCli::parseLong);
        return commandLine;
    }

    /**
     * Adds a system's options to a harness command line, and names the command after the system's
     * {@code @Command}, when it has one.
     *
     * @param commandLine the harness's command line.
     * @param options     an object with picocli {@code @Option} fields, or null when the system has none.
     */
    static void addSystemOptions(final CommandLine commandLine, final Object options)
    {
        if (options == null)
        {
            return;
        }
        commandLine.addMixin("system", options);
        final CommandLine.Command command = options.getClass().getAnnotation(CommandLine.Command.class);
        if (command != null && !command.name().isEmpty() && !"<main class>".equals(command.name()))
        {
            commandLine.setCommandName(command.name());
        }
    }

    /**
     * @param command a {@code @Command} object.
     * @return its command line, ready to {@link CommandLine#execute execute}.
     */
    public static CommandLine commandLine(final Object command)
    {
        return withConverters(new CommandLine(command));
    }

    private static int parseInt(final String text)
    {
        try
        {
            return Integer.parseInt(text.trim().replace("_", ""));
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
            return Long.parseLong(text.trim().replace("_", ""));
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
            final String version = BenchCli.class.getPackage().getImplementationVersion();
            return new String[]{"rivulet benchmarks " + (version == null ? "development" : version)};
        }
    }
}
