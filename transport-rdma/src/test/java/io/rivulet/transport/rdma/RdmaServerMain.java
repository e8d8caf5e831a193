package io.rivulet.transport.rdma;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The serving process of {@link RdmaTwoProcessTest}: a node on the rdma transport with fixed handlers. Prints
 * {@code READY host:port}, then serves until its standard input closes or a time limit passes.
 *
 * <p>Arguments: the time limit in ms, then optionally the provider ({@value #SOFT_SOCKETS}, the default, or a
 * {@link VerbsProviders} name) and the host to bind (127.0.0.1 by default).
 */
public final class RdmaServerMain
{
    /** The soft provider over sockets (RC over TCP on loopback), as between processes without a device. */
    static final String SOFT_SOCKETS = "soft-sockets";

    private RdmaServerMain()
    {
    }

    /** @return the provider a name stands for. */
    static VerbsProvider provider(final String name)
    {
        return SOFT_SOCKETS.equals(name) ? RdmaTestSupport.socketProvider() : VerbsProviders.byName(name);
    }

    /** @return the context both processes use: the provider on the host, and the keepalive the test relies on. */
    static Rivulet.Context context(final String providerName, final String host) throws IOException
    {
        final RdmaTransport transport = new RdmaTransport(provider(providerName));
        if (!SOFT_SOCKETS.equals(providerName))
        {
            transport.localAddress(InetAddress.getByName(host));
        }
        return new Rivulet.Context()
            .transport(transport)
            .threadingMode(ThreadingMode.SHARED)
            .maxMessageLength(32 * 1024 * 1024)
            .keepaliveInterval(100, TimeUnit.MILLISECONDS)
            .keepaliveTimeout(TestTime.millis(3000, TimeUnit.MILLISECONDS), TimeUnit.MILLISECONDS);
    }

    public static void main(final String[] args) throws Exception
    {
        final long limitMs = Long.parseLong(args[0]);
        final String providerName = args.length > 1 ? args[1] : SOFT_SOCKETS;
        final String host = args.length > 2 ? args[2] : "127.0.0.1";
        final AtomicLong fireAndForgets = new AtomicLong();
        final Responder responder = Responder.builder()
            .fireAndForget(message -> Mono.fromRunnable(fireAndForgets::incrementAndGet))
            .requestResponse(request -> "count".equals(request.dataUtf8()) ?
                Mono.just(Message.of(Long.toString(fireAndForgets.get()))) :
                "fail".equals(request.dataUtf8()) ?
                Mono.error(new IllegalStateException("failed in process " + ProcessHandle.current().pid())) :
                Mono.just(Message.of(request.dataBytes()).metadata(request.metadataBytes())))
            .requestStream(request -> Flux.range(0, Integer.parseInt(request.dataUtf8()))
                .map(i -> Message.of(Integer.toString(i))))
            .requestChannel(inbound -> inbound.map(m -> Message.of(m.dataUtf8().toUpperCase())))
            .build();
        try (Rivulet node = Rivulet.launch(context(providerName, host)))
        {
            final Server server = node.bind(hostPort(host), responder).block(TestTime.seconds(30));
            System.out.println("READY " + server.localAddress());
            System.out.flush();
            final Thread stdin = new Thread(() ->
            {
                try
                {
                    while (System.in.read() >= 0)
                    {
                        // serve until the parent closes our input
                    }
                }
                catch (final java.io.IOException ignore)
                {
                    // parent gone
                }
            });
            stdin.setDaemon(true);
            stdin.start();
            stdin.join(limitMs);
        }
    }

    /** @return {@code host:0}, with brackets around an IPv6 literal. */
    static String hostPort(final String host)
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":0";
    }
}
