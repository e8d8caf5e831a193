package io.rivulet.bench.rsocket;

import io.rivulet.bench.harness.ReplySlot;
import io.netty.buffer.ByteBuf;
import io.rivulet.bench.harness.BenchClient;
import io.rivulet.bench.harness.ClientMain;
import io.rivulet.bench.harness.Histograms;
import io.rivulet.bench.harness.Line;
import io.rivulet.bench.harness.Payloads;
import io.rivulet.bench.harness.Progress;
import io.rivulet.bench.harness.Waits;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.DefaultPayload;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;

/**
 * RSocket's measuring side, written like {@code RivuletClient}: requestResponse for ping-pong (waiting with the
 * harness's {@code ReplySlot}) and for request-response, measured as a {@code flatMap} chain, a {@code concatMap}
 * chain and a blocking caller; fireAndForget for one-way (bounded by a SYNC every 8192 messages, because its Mono
 * completes as soon as the frame is queued). Zero-copy payload decoding; replies released after use.
 */
public final class RSocketClientMain implements BenchClient
{
    private static final int FLUX_WINDOW = 8192;
    /** Request-response through a {@code flatMap} chain, {@code --window} in flight. */
    private static final String FLAT_MAP = "flatMap";
    /** Request-response through a {@code concatMap} chain: each request sent when the previous reply arrives. */
    private static final String CONCAT_MAP = "concatMap";
    /** Request-response from a caller that blocks for each reply. */
    private static final String BLOCK = "block()";
    /** Longest a blocking caller waits for one reply. */
    private static final Duration BLOCK_TIMEOUT = Duration.ofNanos(Waits.TIMEOUT_NS);

    private final String host;
    private final int port;
    private final String waitName;
    private final ReplySlot.Wait wait;
    private RSocket rsocket;
    private int size;
    private byte[] echo;
    private byte[] data;
    private byte[] sync;

    RSocketClientMain(final Options options)
    {
        this.host = options.host;
        this.port = options.port;
        this.waitName = options.waitName;
        this.wait = wait(waitName);
    }

    /** Runs the workloads against an {@link RSocketServerMain}; {@code --help} lists the options. */
    public static void main(final String[] argv)
    {
        ClientMain.run(argv, new Options(), RSocketClientMain::new);
    }

    @Override
    public Line info()
    {
        return Line.of(Line.INFO,
            "system", "RSocket TCP",
            "version", version(),
            "transport", "TCP (Reactor Netty " + packageVersion(reactor.netty.tcp.TcpClient.class) + ", Netty " +
                packageVersion(io.netty.buffer.ByteBuf.class) + ")",
            "topology", "2 processes",
            "settings", "Reactor " + packageVersion(Flux.class) + ", Netty event loops (native epoll " +
                (io.netty.channel.epoll.Epoll.isAvailable() ? "on" : "off") + "), ZERO_COPY payload decoder; " +
                "application thread waits for a reply: " + waitName);
    }

    @Override
    public void start()
    {
        rsocket = RSocketConnector.create()
            .payloadDecoder(PayloadDecoder.ZERO_COPY)
            .connect(TcpClientTransport.create(host, port))
            .block(Duration.ofSeconds(10));
    }

    @Override
    public void prepare(final int size)
    {
        this.size = size;
        echo = Payloads.newPayload(size, Payloads.ECHO);
        data = Payloads.newPayload(size, Payloads.DATA);
        sync = Payloads.newPayload(size, Payloads.SYNC);
    }

    @Override
    public String pingPongApi()
    {
        return "requestResponse";
    }

    @Override
    public void roundTrip() throws Exception
    {
        final ReplySlot<Payload> slot = new ReplySlot<>(wait);
        rsocket.requestResponse(DefaultPayload.create(echo)).subscribe(slot);
        final Payload reply = slot.await();
        if (reply == null)
        {
            throw new IllegalStateException("no echo");
        }
        final int length = reply.sliceData().readableBytes();
        reply.release();
        if (length != size)
        {
            throw new IllegalStateException("expected a " + size + "-byte echo, got " + length);
        }
    }

    @Override
    public List<String> oneWayApis()
    {
        return List.of("fireAndForget");
    }

    @Override
    public void send(final String api, final long count, final Progress progress) throws Exception
    {
        final long base = sync();
        for (long i = 0; i < count; i++)
        {
            rsocket.fireAndForget(DefaultPayload.create(data)).subscribe();
            if ((i + 1) % FLUX_WINDOW == 0)
            {
                while (i + 1 - (sync() - base) > 2L * FLUX_WINDOW)
                {
                    Thread.onSpinWait();
                }
            }
            progress.update(i + 1);
        }
    }

    @Override
    public long sync() throws Exception
    {
        final ReplySlot<Payload> slot = new ReplySlot<>(wait);
        rsocket.requestResponse(DefaultPayload.create(sync)).subscribe(slot);
        final Payload reply = slot.await();
        final ByteBuf bytes = reply.sliceData();
        final long value = bytes.getLongLE(bytes.readerIndex() + Payloads.VALUE_OFFSET);
        reply.release();
        return value;
    }

    /** The same three ways as Rivulet's client: a {@code flatMap} chain, a {@code concatMap} chain, {@code block()}. */
    @Override
    public List<String> pipelinedApis()
    {
        return List.of(FLAT_MAP, CONCAT_MAP, BLOCK);
    }

    @Override
    public int inFlight(final String api, final int window)
    {
        return FLAT_MAP.equals(api) ? window : 1;
    }

    @Override
    public void pipelined(
        final String api, final long count, final int window, final Histogram latencyNs, final Progress progress)
    {
        if (BLOCK.equals(api))
        {
            for (long i = 0; i < count; i++)
            {
                final long sentNs = System.nanoTime();
                final Payload reply = rsocket.requestResponse(DefaultPayload.create(echo)).block(BLOCK_TIMEOUT);
                Histograms.record(latencyNs, System.nanoTime() - sentNs);
                if (reply == null)
                {
                    throw new IllegalStateException("no echo");
                }
                final int length = reply.sliceData().readableBytes();
                reply.release();
                if (length != size)
                {
                    throw new IllegalStateException("expected a " + size + "-byte echo, got " + length);
                }
                progress.update(i + 1);
            }
            return;
        }
        final long[] received = new long[1];
        final Flux<Integer> requests = Flux.range(0, Math.toIntExact(count));
        final Function<Integer, Mono<Payload>> exchange = i -> Mono.defer(() ->
        {
            final long sentNs = System.nanoTime();
            return rsocket.requestResponse(DefaultPayload.create(echo)).doOnNext(reply ->
            {
                reply.release();
                Histograms.record(latencyNs, System.nanoTime() - sentNs);
                progress.update(++received[0]);
            });
        });
        (FLAT_MAP.equals(api) ? requests.flatMap(exchange, window, 1) : requests.concatMap(exchange))
            .blockLast(Duration.ofNanos(Waits.TIMEOUT_NS + count * 1_000_000L));
    }

    @Override
    public void close()
    {
        if (rsocket != null)
        {
            rsocket.dispose();
        }
    }

    static ReplySlot.Wait wait(final String name)
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

    private static String version()
    {
        final Properties properties = new Properties();
        try (InputStream in = RSocketClientMain.class.getResourceAsStream("/META-INF/rivulet-bench/rsocket.properties"))
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

    private static String packageVersion(final Class<?> type)
    {
        final String version = type.getPackage().getImplementationVersion();
        return version == null ? "?" : version;
    }

    /** The client's options: where the server listens, and how the application waits for replies. */
    @Command(name = "RSocketClientMain", description = "RSocket's benchmark client: the harness's workloads over TCP.")
    static final class Options
    {
        @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
            description = "the server's address (default ${DEFAULT-VALUE})")
        String host;

        @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "the server's port, from its READY line (default ${DEFAULT-VALUE})")
        int port;

        @Option(names = "--wait", paramLabel = "WAY", defaultValue = "spin",
            description = "how the application thread waits for replies: spin, yield or park " +
                "(default ${DEFAULT-VALUE})")
        String waitName;
    }
}
