package io.rivulet.transport.rdma;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The serving process of {@link RdmaTwoProcessTest}: a node on the rdma transport (soft provider,
 * sockets) with fixed handlers. Prints {@code READY host:port}, then serves until its standard input
 * closes or a time limit passes.
 */
public final class RdmaServerMain
{
    private RdmaServerMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final long limitMs = Long.parseLong(args[0]);
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
        try (Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new RdmaTransport(RdmaTestSupport.socketProvider()))
            .threadingMode(ThreadingMode.SHARED)
            .maxMessageLength(32 * 1024 * 1024)
            .keepaliveInterval(100, TimeUnit.MILLISECONDS)
            .keepaliveTimeout(3000, TimeUnit.MILLISECONDS)))
        {
            final Server server = node.bind("127.0.0.1:0", responder).block(Duration.ofSeconds(30));
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
}
