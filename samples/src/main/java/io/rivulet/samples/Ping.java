package io.rivulet.samples;

import io.rivulet.ConfigurationException;
import io.rivulet.Connection;
import io.rivulet.ConnectionLostException;
import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

/**
 * The measuring half of the two-process ping-pong: connects to a {@link Pong}, sends request-response
 * round trips one at a time, and prints their latency percentiles (HdrHistogram) and throughput.
 * Exits 0 after the report, 1 when it cannot connect or a round trip fails; when nothing answered at the address
 * it also asks whether pong is running.
 *
 * <p>Run it with {@code ./rivulet-demo ping --host 127.0.0.1 --port 7070 --count 100000 --size 64}.
 */
@Command(name = "rivulet-demo ping", mixinStandardHelpOptions = true, versionProvider = SampleCli.Version.class,
    description = "Measures request-response round trips to a running `rivulet-demo pong`.")
public final class Ping implements Callable<Integer>
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Spec
    CommandSpec spec;

    @Mixin
    EngineOptions engine;

    @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
        description = "pong's address (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "7070",
        description = "pong's port (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--count", paramLabel = "N", defaultValue = "100000",
        description = "round trips to measure (default ${DEFAULT-VALUE})")
    int count;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "32",
        description = "bytes of data in each message (default ${DEFAULT-VALUE}); above one frame (16 KiB by " +
            "default) messages are fragmented")
    int size;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "10000",
        description = "round trips before measuring, to let the JIT compile (default ${DEFAULT-VALUE})")
    int warmup;

    /** Runs ping with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(SampleCli.execute(new Ping(), argv));
    }

    /** @return 0 after the report, 1 when it cannot connect or a round trip fails. */
    @Override
    public Integer call()
    {
        SampleCli.checkRange(spec, "--port", port, 1, 65535);
        SampleCli.checkRange(spec, "--count", count, 1, Integer.MAX_VALUE);
        SampleCli.checkRange(spec, "--size", size, 0, 64 * 1024 * 1024);
        SampleCli.checkRange(spec, "--warmup", warmup, 0, Integer.MAX_VALUE);
        final Rivulet.Context context = engine.context();

        final Rivulet node;
        try
        {
            node = Rivulet.launch(context);
        }
        catch (final ConfigurationException ex)
        {
            throw engine.usageError("bad configuration: " + ex.getMessage());
        }
        final String address = host + ":" + port;
        try
        {
            return run(node, address, count, size, warmup, spec.commandLine().getErr());
        }
        finally
        {
            node.close();
        }
    }

    private static int run(
        final Rivulet node, final String address, final int count, final int size, final int warmup,
        final PrintWriter err)
    {
        final Connection connection;
        try
        {
            connection = node.connect(address).block(TIMEOUT);
        }
        catch (final RuntimeException ex)
        {
            err.println("ping: " + ex.getMessage());
            if (nothingAnswered(ex))
            {
                // Only then: a refusal (token, TLS) comes from a pong that is running, and the hint would mislead.
                err.println("ping: is pong running? Start it with `./rivulet-demo pong --port " +
                    address.substring(address.lastIndexOf(':') + 1) + "`");
            }
            err.flush();
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
            err.println("ping: round trip failed: " + ex);
            err.flush();
            return 1;
        }
        finally
        {
            connection.close();
        }
        return 0;
    }

    /**
     * Whether a failed connect means nothing answered at the address (refused, unreachable, timed out), rather than
     * that a server answered and refused (authentication, TLS, a SETUP it did not accept).
     *
     * @param failure what {@code connect} failed with.
     * @return true when nothing answered.
     */
    static boolean nothingAnswered(final Throwable failure)
    {
        boolean silent = false;
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 16; depth++)
        {
            if (cause instanceof RejectedException || cause instanceof ConnectionLostException ||
                cause instanceof SSLException || isTlsFailure(cause))
            {
                return false; // a server answered: it refused SETUP, failed TLS, or accepted and went quiet
            }
            silent |= cause instanceof ConnectException || cause instanceof NoRouteToHostException ||
                cause instanceof SocketTimeoutException || cause instanceof TimeoutException ||
                (cause instanceof RivuletException && cause.getCause() == null && String.valueOf(cause.getMessage())
                    .contains("timed out")); // the engine's connect timeout carries no cause
            cause = cause.getCause() == cause ? null : cause.getCause();
        }
        return silent;
    }

    private static boolean isTlsFailure(final Throwable cause)
    {
        return cause instanceof IOException && String.valueOf(cause.getMessage()).startsWith("TLS ");
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
