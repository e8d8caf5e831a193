package io.rivulet.samples;

import io.rivulet.ApplicationErrorException;
import io.rivulet.ConfigurationException;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.counters.NodeCounters;
import org.HdrHistogram.Histogram;
import org.reactivestreams.Subscription;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A guided tour of Rivulet in one JVM: a server node and a client node talk over the default
 * transport (TCP on 127.0.0.1, a free port) through every interaction model, then a short latency
 * measurement. Prints a report of what happened; exits 0 when every step passed, 1 with the failing
 * step and its cause otherwise.
 *
 * <p>Run it with {@code ./rivulet-demo} from the repository root.
 */
@Command(name = "rivulet-demo", mixinStandardHelpOptions = true, versionProvider = SampleCli.Version.class,
    description = {"Starts a server node and a client node in one JVM and runs fire-and-forget, request-response, " +
        "request-stream with back-pressure, request-channel, a remote error, a 4 MiB fragmented message and a " +
        "latency measurement between them. Also runs as `rivulet-demo demo`."},
    footer = {"", "Engine settings can also be given as rivulet.* system properties (README.md)."})
public final class Demo implements Callable<Integer>
{
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);
    /** The whole demo must finish well within a minute even on a small machine. */
    private static final long WATCHDOG_MS = TimeUnit.SECONDS.toMillis(50);
    /** The latency loop stops early after this long, whatever the count, so a slow box still finishes. */
    private static final long LATENCY_BUDGET_NS = TimeUnit.SECONDS.toNanos(15);
    private static final int WARMUP_ROUND_TRIPS = 5_000;
    private static final int PIPELINED_REQUESTS = 20_000;
    private static final int PIPELINE_DEPTH = 32;
    private static final int LARGE_MESSAGE_LENGTH = 4 * 1024 * 1024;
    private static final int STREAM_LENGTH = 20;
    private static final int STREAM_BATCH = 5;

    private final PrintStream out = System.out;
    private final List<String> engineErrors = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Message> fireAndForgetReceived = new ArrayBlockingQueue<>(16);
    private final List<Long> streamDemandSeenByServer = new CopyOnWriteArrayList<>();
    private final DemoSteps steps = new DemoSteps("DEMO", out, engineErrors, "the engines");

    @Spec
    CommandSpec spec;

    @Mixin
    EngineOptions engine;

    @Option(names = "--round-trips", paramLabel = "N", defaultValue = "20000",
        description = "request-response round trips to measure (default ${DEFAULT-VALUE})")
    int roundTrips;

    private Rivulet server;
    private Rivulet client;
    private Connection connection;

    /** Runs the demo with the command line's options and exits with its code. */
    public static void main(final String[] argv)
    {
        System.exit(SampleCli.execute(new Demo(), argv));
    }

    /** @return 0 when every step passed; a failed step exits 1 from the step itself. */
    @Override
    public Integer call()
    {
        SampleCli.checkRange(spec, "--round-trips", roundTrips, 1, 10_000_000);
        engine.context(); // reports a bad option or rivulet.* property before anything starts
        run();
        return 0;
    }

    private void run()
    {
        steps.startWatchdog(WATCHDOG_MS);
        final long startNs = System.nanoTime();
        out.println("Rivulet demo: a server node and a client node in one JVM, talking over the network stack");

        step("Starting two nodes", this::start);
        step("1. Fire-and-forget with metadata", this::fireAndForget);
        step("2. Request-response", this::requestResponse);
        step("3. Request-stream with back-pressure", this::requestStream);
        step("4. Request-channel", this::requestChannel);
        step("5. A remote error", this::remoteError);
        step("6. A large message, fragmented", this::largeMessage);
        step("7. Latency", this::latency);
        step("Engine counters", this::counters);
        step("Closing", this::close);

        if (!engineErrors.isEmpty())
        {
            fail("engine error handler", new IllegalStateException("the engines reported " + engineErrors.size() +
                " unexpected error(s): " + engineErrors));
        }
        out.printf(Locale.ROOT, "%nDemo passed: %d steps in %.1f s.%n", steps.passed(),
            (System.nanoTime() - startNs) / 1e9);
        System.exit(0);
    }

    // ------------------------------------------------------------------------------------------ steps

    private void start()
    {
        final Responder responder = Responder.builder()
            .fireAndForget(this::onFireAndForget)
            .requestResponse(Demo::onRequestResponse)
            .requestStream(this::onRequestStream)
            .requestChannel(Demo::onRequestChannel)
            .build();

        server = launch("server");
        client = launch("client");
        final Server bound = server.bind("127.0.0.1:0", responder).block(STEP_TIMEOUT);
        connection = client.connect(bound.localAddress()).block(STEP_TIMEOUT);

        final Rivulet.Context context = client.context();
        out.printf("   transport %s, threading %s, idle strategy %s; each node runs its own engine%n",
            context.transport().name(), context.threadingMode(), context.idleStrategy().getClass().getSimpleName());
        out.printf("   server listening on %s; client connected to %s%n", bound.localAddress(),
            connection.remoteAddress());
        out.printf("   max frame %,d bytes, max message %,d bytes, stream window %d credits%n",
            context.maxFrameLength(), context.maxMessageLength(), context.streamWindow());
    }

    private void fireAndForget() throws InterruptedException
    {
        final Message event = Message.of("order #1001 placed").metadata("event=order.placed");
        connection.fireAndForget(event).block(STEP_TIMEOUT);
        out.printf("   client sent    \"%s\" with metadata \"%s\" (no reply expected)%n", event.dataUtf8(),
            event.metadataUtf8());

        final Message received = fireAndForgetReceived.poll(STEP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        check(received != null, "the server did not receive the fire-and-forget message");
        out.printf("   server got     \"%s\" with metadata \"%s\"%n", received.dataUtf8(), received.metadataUtf8());
        check(received.equals(event), "the server received different bytes than were sent");
    }

    private void requestResponse()
    {
        final Message request = Message.of("Ada").metadata("route=greet");
        final Message reply = connection.requestResponse(request).block(STEP_TIMEOUT);
        check(reply != null, "no reply");
        out.printf("   client asked   \"%s\" (metadata \"%s\")%n", request.dataUtf8(), request.metadataUtf8());
        out.printf("   server replied \"%s\" (metadata \"%s\")%n", reply.dataUtf8(), reply.metadataUtf8());
        check("Hello, Ada!".equals(reply.dataUtf8()), "unexpected reply data");
        check("route=greet; served-by=server".equals(reply.metadataUtf8()), "unexpected reply metadata");
    }

    private void requestStream()
    {
        final List<Long> requestedByClient = new ArrayList<>();
        final List<String> received = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();

        // Asks for a batch, and for the next batch only when the last one has been consumed.
        connection.requestStream(Message.of(Integer.toString(STREAM_LENGTH)).metadata("route=ticks"))
            .subscribe(new BaseSubscriber<Message>()
            {
                @Override
                protected void hookOnSubscribe(final Subscription subscription)
                {
                    requestBatch();
                }

                @Override
                protected void hookOnNext(final Message message)
                {
                    received.add(message.dataUtf8());
                    if (received.size() % STREAM_BATCH == 0 && received.size() < STREAM_LENGTH)
                    {
                        requestBatch();
                    }
                }

                @Override
                protected void hookOnComplete()
                {
                    done.complete(null);
                }

                @Override
                protected void hookOnError(final Throwable error)
                {
                    done.completeExceptionally(error);
                }

                private void requestBatch()
                {
                    requestedByClient.add((long)STREAM_BATCH);
                    request(STREAM_BATCH);
                }
            });

        Mono.fromFuture(done).block(STEP_TIMEOUT);
        out.printf("   client received %d messages: %s ... %s%n", received.size(), received.get(0),
            received.get(received.size() - 1));
        out.printf("   client requested       %s%n", requestedByClient);
        out.printf("   server producer asked  %s  <- the client's demand, carried as credits%n",
            streamDemandSeenByServer);
        check(received.size() == STREAM_LENGTH, "expected " + STREAM_LENGTH + " messages");
        final long askedOfServer = streamDemandSeenByServer.stream().mapToLong(Long::longValue).sum();
        check(askedOfServer <= STREAM_LENGTH + 1L, "the server's producer was asked for more than the client's " +
            "demand: " + askedOfServer);
        for (final long n : streamDemandSeenByServer)
        {
            check(n <= STREAM_BATCH, "the server's producer was asked for " + n + " at once, more than the " +
                "client's batch of " + STREAM_BATCH);
        }
    }

    private void requestChannel()
    {
        final List<String> words = List.of("alpha", "beta", "gamma", "delta");
        final List<String> replies = connection
            .requestChannel(Flux.fromIterable(words).map(word -> Message.of(word).metadata("route=upper")))
            .map(Message::dataUtf8)
            .collectList()
            .block(STEP_TIMEOUT);
        out.printf("   client streamed %s%n", words);
        out.printf("   server streamed %s back as they arrived%n", replies);
        check(List.of("ALPHA", "BETA", "GAMMA", "DELTA").equals(replies), "unexpected channel replies");
    }

    private void remoteError()
    {
        try
        {
            connection.requestResponse(Message.of("withdraw 100").metadata("route=fail")).block(STEP_TIMEOUT);
            check(false, "the request succeeded but the server's handler fails");
        }
        catch (final ApplicationErrorException ex)
        {
            out.printf("   server handler failed with IllegalStateException(\"account 42 is frozen\")%n");
            out.printf("   client got     %s: \"%s\"%n", ex.getClass().getSimpleName(), ex.getMessage());
            check("account 42 is frozen".equals(ex.getMessage()), "unexpected error text");
        }
        check(connection.isOpen(), "the connection closed after a stream error");
        out.printf("   the connection stays open: only that stream failed%n");
    }

    private void largeMessage()
    {
        final byte[] payload = new byte[LARGE_MESSAGE_LENGTH];
        new Random(42).nextBytes(payload);
        final long clientFramesBefore = client.counters().framesSent.get();
        final long serverFramesBefore = server.counters().framesSent.get();

        final long startNs = System.nanoTime();
        final Message reply = connection.requestResponse(Message.of(payload).metadata("route=echo"))
            .block(STEP_TIMEOUT);
        final long elapsedNs = System.nanoTime() - startNs;

        check(reply != null, "no reply");
        final long clientFrames = client.counters().framesSent.get() - clientFramesBefore;
        final long serverFrames = server.counters().framesSent.get() - serverFramesBefore;
        out.printf(Locale.ROOT, "   sent %,d random bytes and got them echoed back in %.1f ms (%.0f MiB/s each way)%n",
            payload.length, elapsedNs / 1e6, payload.length / (double)(1 << 20) / (elapsedNs / 1e9));
        out.printf("   on the wire: %,d frames out and %,d frames back (max frame %,d bytes)%n", clientFrames,
            serverFrames, client.context().maxFrameLength());
        check(Arrays.equals(payload, reply.dataBytes()), "the echoed bytes differ from the bytes sent");
        out.printf("   reassembled reply is byte-for-byte identical: yes%n");
    }

    private void latency()
    {
        final Message ping = Message.of(new byte[32]).metadata("route=echo");
        for (int i = 0; i < WARMUP_ROUND_TRIPS; i++)
        {
            connection.requestResponse(ping).block(STEP_TIMEOUT);
        }

        final Histogram histogram = LatencyReport.newHistogram();
        final long startNs = System.nanoTime();
        long nowNs = startNs;
        int done = 0;
        while (done < roundTrips && nowNs - startNs < LATENCY_BUDGET_NS)
        {
            final long sentNs = nowNs;
            connection.requestResponse(ping).block(STEP_TIMEOUT);
            nowNs = System.nanoTime();
            LatencyReport.record(histogram, nowNs - sentNs);
            done++;
        }
        out.printf("   %,d warm-up round trips, then %,d measured; 32-byte messages, one in flight%n",
            WARMUP_ROUND_TRIPS, done);
        if (done < roundTrips)
        {
            out.printf("   (stopped after %d s: the time budget ran out before %,d round trips)%n",
                TimeUnit.NANOSECONDS.toSeconds(LATENCY_BUDGET_NS), roundTrips);
        }
        LatencyReport.print(out, "   ", histogram, nowNs - startNs);

        final long pipelinedStartNs = System.nanoTime();
        final Long replies = Flux.range(0, PIPELINED_REQUESTS)
            .flatMap(i -> connection.requestResponse(ping), PIPELINE_DEPTH)
            .count()
            .block(Duration.ofSeconds(20));
        final long pipelinedNs = System.nanoTime() - pipelinedStartNs;
        check(replies != null && replies == PIPELINED_REQUESTS, "pipelined requests got " + replies + " replies");
        out.printf(Locale.ROOT, "   pipelined     %,.0f round trips/s (%,d requests, %d in flight)%n",
            PIPELINED_REQUESTS * 1e9 / pipelinedNs, PIPELINED_REQUESTS, PIPELINE_DEPTH);
    }

    private void counters()
    {
        final NodeCounters c = client.counters();
        final NodeCounters s = server.counters();
        out.printf("   %-22s %14s %14s%n", "", "client", "server");
        row("frames sent", c.framesSent.get(), s.framesSent.get());
        row("frames received", c.framesReceived.get(), s.framesReceived.get());
        row("bytes sent", c.bytesSent.get(), s.bytesSent.get());
        row("credit stalls", c.creditStalls.get(), s.creditStalls.get());
        row("back-pressure events", c.backPressureEvents.get(), s.backPressureEvents.get());
        row("protocol errors", c.protocolErrors.get(), s.protocolErrors.get());
        row("connections lost", c.connectionsLost.get(), s.connectionsLost.get());
        check(c.protocolErrors.get() == 0 && s.protocolErrors.get() == 0, "protocol errors were counted");
    }

    private void close()
    {
        final long startNs = System.nanoTime();
        connection.close();
        connection.onClose().block(STEP_TIMEOUT);
        client.close();
        server.close();
        out.printf(Locale.ROOT, "   connection and both nodes closed in %.0f ms%n",
            (System.nanoTime() - startNs) / 1e6);
    }

    // ------------------------------------------------------------------------------- server handlers

    private Mono<Void> onFireAndForget(final Message message)
    {
        fireAndForgetReceived.offer(message);
        return Mono.empty();
    }

    /** Routes on the request's metadata, as a service would on a method name. */
    private static Mono<Message> onRequestResponse(final Message request)
    {
        final String route = request.metadataUtf8();
        switch (route)
        {
            case "route=greet":
                return Mono.just(Message.of("Hello, " + request.dataUtf8() + "!").metadata(route + "; served-by=server"));
            case "route=echo":
                return Mono.just(request);
            case "route=fail":
                return Mono.error(new IllegalStateException("account 42 is frozen"));
            default:
                return Mono.error(new IllegalArgumentException("no route '" + route + "'"));
        }
    }

    private Flux<Message> onRequestStream(final Message request)
    {
        final int count = Integer.parseInt(request.dataUtf8());
        final AtomicInteger sequence = new AtomicInteger();
        return Flux.range(1, count)
            .doOnRequest(streamDemandSeenByServer::add)
            .map(i -> Message.of("tick-" + i).metadata("seq=" + sequence.incrementAndGet()));
    }

    private static Flux<Message> onRequestChannel(final Flux<Message> inbound)
    {
        return inbound.map(message -> Message.of(message.dataUtf8().toUpperCase(Locale.ROOT))
            .metadata("route=upper"));
    }

    // ------------------------------------------------------------------------------------- plumbing

    private Rivulet launch(final String role)
    {
        final Rivulet.Context context;
        try
        {
            context = engine.context().errorHandler(error -> engineErrors.add(role + ": " + error));
            return Rivulet.launch(context);
        }
        catch (final ParameterException ex)
        {
            SampleCli.exitWithUsageError(spec, ex.getMessage());
            throw ex;
        }
        catch (final ConfigurationException ex)
        {
            SampleCli.exitWithUsageError(spec, "bad configuration: " + ex.getMessage());
            throw ex;
        }
    }

    private void row(final String label, final long clientValue, final long serverValue)
    {
        out.printf(Locale.ROOT, "   %-22s %,14d %,14d%n", label, clientValue, serverValue);
    }

    private void step(final String title, final DemoSteps.Step body)
    {
        steps.step(title, body);
    }

    private static void check(final boolean condition, final String failure)
    {
        DemoSteps.check(condition, failure);
    }

    private void fail(final String step, final Throwable cause)
    {
        steps.fail(step, cause);
    }
}
