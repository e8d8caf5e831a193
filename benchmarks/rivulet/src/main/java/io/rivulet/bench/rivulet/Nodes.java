package io.rivulet.bench.rivulet;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.bench.harness.ReplySlot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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

    static Rivulet.Context context(final NodeOptions options)
    {
        return new Rivulet.Context()
            .transport(Transports.byName(options.transport))
            .threadingMode(ThreadingMode.valueOf(options.threading.toUpperCase(Locale.ROOT)))
            .idleStrategy(options.idle);
    }

    static String describe(final NodeOptions options)
    {
        return options.threading.toUpperCase(Locale.ROOT) + " threading, " + options.idle + " idle on both nodes";
    }

    /** The server node's configuration: {@code --server-threading} and {@code --server-idle}, else the client's. */
    static NodeOptions serverOptions(final ClientOptions options)
    {
        final NodeOptions server = new NodeOptions();
        server.transport = options.transport;
        server.threading = options.serverThreading != null ? options.serverThreading :
            "INVOKER".equalsIgnoreCase(options.threading) ? "SHARED" : options.threading;
        server.idle = options.serverIdle != null ? options.serverIdle : options.idle;
        server.waitName = options.waitName;
        return server;
    }

    /** @return the {@code --wait} named {@code name}: spin, yield or park. */
    static ReplySlot.Wait waitOf(final String name)
    {
        switch (name)
        {
            case "spin":
                return ReplySlot.SPIN;
            case "yield":
                return ReplySlot.YIELD;
            case "park":
                return ReplySlot.PARK;
            default:
                throw new IllegalArgumentException("--wait spin|yield|park, not " + name);
        }
    }

    static String describeServer(final ClientOptions options)
    {
        final NodeOptions server = serverOptions(options);
        return server.threading.toUpperCase(Locale.ROOT) + " threading, " + server.idle + " idle";
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

    /** A Rivulet node's options: the server's, and the client's own node. */
    @Command(name = "RivuletServer", description = "Rivulet's benchmark server: one node serving the harness.")
    static class NodeOptions
    {
        @Option(names = "--transport", paramLabel = "NAME", defaultValue = "tcp",
            description = "tcp or rdma (default ${DEFAULT-VALUE})")
        String transport;

        @Option(names = "--threading", paramLabel = "MODE", defaultValue = "SHARED",
            description = "SHARED, DEDICATED, or INVOKER (the client: its measuring thread runs the engine) " +
                "(default ${DEFAULT-VALUE})")
        String threading;

        @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "busy",
            description = "engine idle strategy: busy, backoff, yield, sleep, noop (default ${DEFAULT-VALUE})")
        String idle;

        @Option(names = "--wait", paramLabel = "WAY", defaultValue = "spin",
            description = "how an application thread waits: the client's for replies and when its offer is " +
                "back-pressured, the server's fan-out publisher when the topic's log is full: spin, yield or park; " +
                "an INVOKER client always invokes (default ${DEFAULT-VALUE})")
        String waitName;
    }

    /** The client's options: its node's, where the server listens, and how the application waits. */
    @Command(name = "RivuletClient",
        description = "Rivulet's benchmark client: the harness's workloads against a RivuletServer, or against a " +
            "server node in this process (--in-process).")
    static final class ClientOptions extends NodeOptions
    {
        @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
            description = "the server's address (default ${DEFAULT-VALUE})")
        String host;

        @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "the server's port, from its READY line (default ${DEFAULT-VALUE})")
        int port;

        @Option(names = "--in-process", paramLabel = "BOOLEAN", arity = "0..1", defaultValue = "false",
            fallbackValue = "true", description = "run the server node in this process (default ${DEFAULT-VALUE})")
        boolean inProcess;

        @Option(names = "--server-threading", paramLabel = "MODE",
            description = "the server node's threading (default: --threading, SHARED when that is INVOKER)")
        String serverThreading;

        @Option(names = "--server-idle", paramLabel = "STRATEGY",
            description = "the server node's idle strategy (default: --idle)")
        String serverIdle;

        @Option(names = "--publisher-wait", paramLabel = "WAY",
            description = "how the server's fan-out publisher waits, from the server's READY line (reported only)")
        String publisherWait;

        @Option(names = "--idle-connections", paramLabel = "N", defaultValue = "0",
            description = "connections to the server opened beside the measured one and left idle, as an application " +
                "with several peers holds them (default ${DEFAULT-VALUE}; the benchmark's rows use none)")
        int idleConnections;
    }
}
