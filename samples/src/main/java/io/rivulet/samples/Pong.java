package io.rivulet.samples;

import io.rivulet.ConfigurationException;
import io.rivulet.MessageHandler;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The serving half of the two-process ping-pong: echoes every request-response back unchanged and
 * counts fire-and-forget messages on the zero-copy path. Runs until stopped (Ctrl-C) or for
 * {@code --duration} seconds, printing what it served every few seconds while there is traffic.
 *
 * <p>Run it with {@code ./rivulet-demo pong --port 7070}, then {@code ./rivulet-demo ping --port 7070}.
 */
@Command(name = "rivulet-demo pong", mixinStandardHelpOptions = true, versionProvider = SampleCli.Version.class,
    description = "Serves request-response echo for `rivulet-demo ping`, and counts fire-and-forget messages.")
public final class Pong implements Callable<Integer>
{
    private static final long REPORT_INTERVAL_MS = TimeUnit.SECONDS.toMillis(5);

    @Spec
    CommandSpec spec;

    @Mixin
    EngineOptions engine;

    @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
        description = "address to listen on (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "7070",
        description = "port to listen on, 0 for any free port (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--duration", paramLabel = "SECONDS", defaultValue = "0",
        description = "stop after this long; 0 runs until Ctrl-C (default ${DEFAULT-VALUE})")
    int durationSeconds;

    /** Runs pong with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(SampleCli.execute(new Pong(), argv));
    }

    /** @return 0 after --duration seconds, 1 when it cannot bind. */
    @Override
    public Integer call() throws InterruptedException
    {
        SampleCli.checkRange(spec, "--port", port, 0, 65535);
        SampleCli.checkRange(spec, "--duration", durationSeconds, 0, Integer.MAX_VALUE);
        final Rivulet.Context context = engine.context();

        final AtomicLong requests = new AtomicLong();
        final AtomicLong fireAndForgets = new AtomicLong();
        // Zero-copy: the view points into the receive buffer and is only read, never kept.
        final MessageHandler countingHandler = message -> fireAndForgets.incrementAndGet();
        final Responder responder = Responder.builder()
            .requestResponse(request ->
            {
                requests.incrementAndGet();
                return Mono.just(request);
            })
            .fireAndForgetHandler(countingHandler)
            .build();

        final Rivulet node;
        try
        {
            node = Rivulet.launch(context);
        }
        catch (final ConfigurationException ex)
        {
            throw engine.usageError("bad configuration: " + ex.getMessage());
        }
        final Server server;
        try
        {
            server = node.bind(host + ":" + port, responder).block(Duration.ofSeconds(10));
        }
        catch (final RivuletException ex)
        {
            System.err.println("pong: " + ex.getMessage());
            node.close();
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(node::close, "pong-shutdown"));

        System.out.printf("pong: serving request-response echo on %s (transport %s, threading %s)%n",
            server.localAddress(), node.context().transport().name(), node.context().threadingMode());
        System.out.printf("pong: run `./rivulet-demo ping --host %s --port %s` in another terminal; Ctrl-C to stop%n",
            host, server.localAddress().substring(server.localAddress().lastIndexOf(':') + 1));

        final long deadlineMs = durationSeconds > 0 ?
            System.currentTimeMillis() + TimeUnit.SECONDS.toMillis(durationSeconds) : Long.MAX_VALUE;
        long reportedRequests = 0;
        long reportedFireAndForgets = 0;
        while (System.currentTimeMillis() < deadlineMs)
        {
            Thread.sleep(Math.min(REPORT_INTERVAL_MS, Math.max(1, deadlineMs - System.currentTimeMillis())));
            final long r = requests.get();
            final long f = fireAndForgets.get();
            if (r != reportedRequests || f != reportedFireAndForgets)
            {
                System.out.printf(Locale.ROOT, "pong: served %,d request-responses and %,d fire-and-forgets so far%n",
                    r, f);
                reportedRequests = r;
                reportedFireAndForgets = f;
            }
        }
        System.out.printf(Locale.ROOT, "pong: stopping after %d s; served %,d request-responses, %,d fire-and-forgets%n",
            durationSeconds, requests.get(), fireAndForgets.get());
        node.close();
        return 0;
    }
}
