package io.rivulet.samples;

import io.rivulet.ConfigurationException;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Rivulet;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.Locale;

/**
 * The measuring half of the two-process ping-pong: connects to a {@link Pong}, sends request-response
 * round trips one at a time, and prints their latency percentiles (HdrHistogram) and throughput.
 * Exits 0 after the report, 1 when it cannot connect or a round trip fails.
 *
 * <p>Run it with {@code ./rivulet-demo ping --host 127.0.0.1 --port 7070 --count 100000 --size 64}.
 */
public final class Ping
{
    static final String USAGE = String.join("\n",
        "usage: rivulet-demo ping [--host HOST] [--port PORT] [--count N] [--size BYTES] [--warmup N]",
        "                         [--transport NAME] [--threading SHARED|DEDICATED] [--idle STRATEGY]",
        "",
        "Measures request-response round trips to a running `rivulet-demo pong`.",
        "",
        "  --host HOST           pong's address (default 127.0.0.1)",
        "  --port PORT           pong's port (default 7070)",
        "  --count N             round trips to measure (default 100000)",
        "  --size BYTES          bytes of data in each message (default 32); above one frame (16 KiB",
        "                        by default) messages are fragmented",
        "  --warmup N            round trips before measuring, to let the JIT compile (default 10000)",
        "  --transport NAME      transport to use (default: rivulet.transport or tcp)",
        "  --threading MODE      engine threads: SHARED (1, default) or DEDICATED (2)",
        "  --idle STRATEGY       engine idle strategy: backoff (default), busy, yield, sleep, noop",
        "  --help                show this text");

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Ping()
    {
    }

    public static void main(final String[] argv)
    {
        final Args args = new Args("rivulet-demo ping", USAGE, argv, "host", "port", "count", "size", "warmup",
            "transport", "threading", "idle");
        if (args.help())
        {
            args.printUsage();
            return;
        }
        final String host = args.string("host", "127.0.0.1");
        final int port = args.integer("port", 7070, 1, 65535);
        final int count = args.integer("count", 100_000, 1, Integer.MAX_VALUE);
        final int size = args.integer("size", 32, 0, 64 * 1024 * 1024);
        final int warmup = args.integer("warmup", 10_000, 0, Integer.MAX_VALUE);
        final Rivulet.Context context = args.context();

        final Rivulet node;
        try
        {
            node = Rivulet.launch(context);
        }
        catch (final ConfigurationException ex)
        {
            args.fail("bad configuration: " + ex.getMessage());
            return;
        }
        final String address = host + ":" + port;
        int exitCode = 0;
        try
        {
            exitCode = run(node, address, count, size, warmup);
        }
        finally
        {
            node.close();
        }
        System.exit(exitCode);
    }

    private static int run(final Rivulet node, final String address, final int count, final int size, final int warmup)
    {
        final Connection connection;
        try
        {
            connection = node.connect(address).block(TIMEOUT);
        }
        catch (final RuntimeException ex)
        {
            System.err.println("ping: " + ex.getMessage());
            System.err.println("ping: is pong running? Start it with `./rivulet-demo pong --port " +
                address.substring(address.lastIndexOf(':') + 1) + "`");
            return 1;
        }

        final byte[] data = new byte[size];
        for (int i = 0; i < size; i++)
        {
            data[i] = (byte)i;
        }
        final Message ping = Message.of(data);
        System.out.printf(Locale.ROOT, "ping: connected to %s (transport %s, threading %s); %,d-byte messages%n",
            connection.remoteAddress(), node.context().transport().name(), node.context().threadingMode(), size);

        try
        {
            for (int i = 0; i < warmup; i++)
            {
                roundTrip(connection, ping, size);
            }
            System.out.printf(Locale.ROOT, "ping: %,d warm-up round trips done; measuring %,d%n", warmup, count);

            final Histogram histogram = LatencyReport.newHistogram();
            final long startNs = System.nanoTime();
            long sentNs = startNs;
            for (int i = 0; i < count; i++)
            {
                roundTrip(connection, ping, size);
                final long nowNs = System.nanoTime();
                LatencyReport.record(histogram, nowNs - sentNs);
                sentNs = nowNs;
            }
            final long elapsedNs = sentNs - startNs;

            System.out.println();
            LatencyReport.print(System.out, "", histogram, elapsedNs);
            System.out.printf(Locale.ROOT, "payload       %.1f MiB/s each way%n",
                elapsedNs > 0 ? (double)size * count / (1 << 20) / (elapsedNs / 1e9) : 0.0);
        }
        catch (final RuntimeException ex)
        {
            System.err.println("ping: round trip failed: " + ex);
            return 1;
        }
        finally
        {
            connection.close();
        }
        return 0;
    }

    private static void roundTrip(final Connection connection, final Message ping, final int size)
    {
        final Message pong = connection.requestResponse(ping).block(TIMEOUT);
        if (pong == null || pong.dataLength() != size)
        {
            throw new IllegalStateException("expected a " + size + "-byte echo, got " + pong);
        }
    }
}
