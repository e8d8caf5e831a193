package io.rivulet.samples;

import io.rivulet.ConfigurationException;
import io.rivulet.MessageHandler;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The serving half of the two-process ping-pong: echoes every request-response back unchanged and
 * counts fire-and-forget messages on the zero-copy path. Runs until stopped (Ctrl-C) or for
 * {@code --duration} seconds, printing what it served every few seconds while there is traffic.
 *
 * <p>Run it with {@code ./rivulet-demo pong --port 7070}, then {@code ./rivulet-demo ping --port 7070}.
 */
public final class Pong
{
    static final String USAGE = String.join("\n",
        "usage: rivulet-demo pong [--host HOST] [--port PORT] [--duration SECONDS]",
        "                         [--transport NAME] [--threading SHARED|DEDICATED] [--idle STRATEGY]",
        "",
        "Serves request-response echo for `rivulet-demo ping`, and counts fire-and-forget messages.",
        "",
        "  --host HOST           address to listen on (default 127.0.0.1)",
        "  --port PORT           port to listen on, 0 for any free port (default 7070)",
        "  --duration SECONDS    stop after this long (default 0: run until Ctrl-C)",
        "  --transport NAME      transport to use (default: rivulet.transport or tcp)",
        "  --threading MODE      engine threads: SHARED (1, default) or DEDICATED (2)",
        "  --idle STRATEGY       engine idle strategy: backoff (default), busy, yield, sleep, noop;",
        "                        busy gives the lowest latency at the cost of a spinning core",
        "  --help                show this text");

    private static final long REPORT_INTERVAL_MS = TimeUnit.SECONDS.toMillis(5);

    private Pong()
    {
    }

    public static void main(final String[] argv) throws InterruptedException
    {
        final Args args = new Args("rivulet-demo pong", USAGE, argv, "host", "port", "duration", "transport",
            "threading", "idle");
        if (args.help())
        {
            args.printUsage();
            return;
        }
        final String host = args.string("host", "127.0.0.1");
        final int port = args.integer("port", 7070, 0, 65535);
        final int durationSeconds = args.integer("duration", 0, 0, Integer.MAX_VALUE);
        final Rivulet.Context context = args.context();

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
            args.fail("bad configuration: " + ex.getMessage());
            return;
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
            System.exit(1);
            return;
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
    }
}
