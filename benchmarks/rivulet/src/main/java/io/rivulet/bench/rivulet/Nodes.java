package io.rivulet.bench.rivulet;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.bench.harness.Args;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Properties;

/**
 * How the benchmark configures a Rivulet node: {@code --transport tcp|rdma}, {@code --threading
 * SHARED|DEDICATED}, {@code --idle busy|backoff|yield...}; everything else at Rivulet's defaults.
 */
final class Nodes
{
    private Nodes()
    {
    }

    static Rivulet.Context context(final Args args)
    {
        return new Rivulet.Context()
            .transport(Transports.byName(args.string("transport", "tcp")))
            .threadingMode(ThreadingMode.valueOf(args.string("threading", "SHARED").toUpperCase(Locale.ROOT)))
            .idleStrategy(args.string("idle", "busy"));
    }

    static String describe(final Args args)
    {
        return args.string("threading", "SHARED").toUpperCase(Locale.ROOT) + " threading, " +
            args.string("idle", "busy") + " idle on both nodes";
    }

    /** The server node's configuration: {@code --server-threading} and {@code --server-idle}, else the client's. */
    static Args serverArgs(final Args args)
    {
        return new Args(new String[]{"--transport", args.string("transport", "tcp"),
            "--threading", args.string("server-threading",
                "INVOKER".equalsIgnoreCase(args.string("threading", "SHARED")) ? "SHARED" :
                    args.string("threading", "SHARED")),
            "--idle", args.string("server-idle", args.string("idle", "busy"))});
    }

    static String describeServer(final Args args)
    {
        final Args server = serverArgs(args);
        return server.string("threading", "SHARED").toUpperCase(Locale.ROOT) + " threading, " +
            server.string("idle", "busy") + " idle";
    }

    static String version()
    {
        final Properties properties = new Properties();
        try (InputStream in = Nodes.class.getResourceAsStream("/META-INF/rivulet-bench/rivulet.properties"))
        {
            if (in != null)
            {
                properties.load(in);
            }
        }
        catch (final IOException ignore)
        {
            // Reported as unknown.
        }
        return properties.getProperty("version", "unknown");
    }
}
