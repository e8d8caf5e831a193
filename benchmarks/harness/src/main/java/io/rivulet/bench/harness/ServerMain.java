package io.rivulet.bench.harness;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Starts one system's server, prints a READY line with its ports, and serves until standard input
 * closes (the coordinator closes it, or dies), then stops. Exits 1 when the server cannot start.
 */
public final class ServerMain
{
    private ServerMain()
    {
    }

    /**
     * Parses the command line into the system's options, serves until standard input closes and exits: 0 then,
     * 1 when the server cannot start, {@link BenchCli#USAGE_EXIT_CODE} for a bad command line.
     *
     * @param argv    the command line.
     * @param options the system's options, an object with picocli {@code @Option} fields (and a {@code @Command}
     *                naming the command).
     * @param factory makes the system's server from its options, once they are parsed.
     * @param <T>     the type of the system's options.
     */
    public static <T> void run(final String[] argv, final T options, final Function<T, BenchServer> factory)
    {
        System.exit(commandLine(options, factory).execute(argv));
    }

    /**
     * {@link #run(String[], Object, Function)} for a server without options of its own.
     *
     * @param argv    the command line: --help only.
     * @param name    the command's name in its usage.
     * @param factory makes the system's server.
     */
    public static void run(final String[] argv, final String name, final Supplier<BenchServer> factory)
    {
        final CommandLine commandLine = commandLine(null, ignored -> factory.get());
        commandLine.setCommandName(name);
        System.exit(commandLine.execute(argv));
    }

    /**
     * @param options the system's options, or null.
     * @param factory makes the system's server from its options.
     * @param <T>     the type of the system's options.
     * @return the command line of a server JVM.
     */
    public static <T> CommandLine commandLine(final T options, final Function<T, BenchServer> factory)
    {
        final CommandLine commandLine = new CommandLine(new Serve(() -> factory.apply(options)));
        BenchCli.addSystemOptions(commandLine, options);
        return BenchCli.withConverters(commandLine);
    }

    /** A server JVM's command: the harness has no options of its own here, only --help. */
    @Command(mixinStandardHelpOptions = true, versionProvider = BenchCli.Version.class,
        footer = {"", "Prints READY with the ports to connect to, then serves until standard input closes."})
    static final class Serve implements Callable<Integer>
    {
        private final Supplier<BenchServer> server;

        Serve(final Supplier<BenchServer> server)
        {
            this.server = server;
        }

        /** @return 0 after standard input closed, 1 when the server could not start. */
        @Override
        public Integer call()
        {
            return serve(server);
        }
    }

    private static int serve(final Supplier<BenchServer> factory)
    {
        int exitCode = 0;
        try (BenchServer server = factory.get())
        {
            final Map<String, Object> ready = server.start();
            final Object[] fields = new Object[ready.size() * 2];
            int i = 0;
            for (final Map.Entry<String, Object> entry : ready.entrySet())
            {
                fields[i++] = entry.getKey();
                fields[i++] = entry.getValue();
            }
            Line.of(Line.READY, fields).print(System.out);
            awaitEndOfInput(System.in);
        }
        catch (final Exception ex)
        {
            exitCode = 1;
            Line.of(Line.ERROR, "workload", "server", "message", String.valueOf(ex)).print(System.out);
            ex.printStackTrace();
        }
        return exitCode;
    }

    private static void awaitEndOfInput(final InputStream in)
    {
        final byte[] bytes = new byte[256];
        try
        {
            while (in.read(bytes) >= 0)
            {
                // Nothing to read; the end of input is the stop signal.
            }
        }
        catch (final IOException ignore)
        {
            // The coordinator is gone: stop as well.
        }
    }
}
