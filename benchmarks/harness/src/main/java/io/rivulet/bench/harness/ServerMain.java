package io.rivulet.bench.harness;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.function.Function;

/**
 * Starts one system's server, prints a READY line with its ports, and serves until standard input
 * closes (the coordinator closes it, or dies), then stops. Exits 1 when the server cannot start.
 */
public final class ServerMain
{
    private ServerMain()
    {
    }

    public static void run(final String[] argv, final Function<Args, BenchServer> factory)
    {
        final Args args = new Args(argv);
        int exitCode = 0;
        try (BenchServer server = factory.apply(args))
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
        System.exit(exitCode);
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
