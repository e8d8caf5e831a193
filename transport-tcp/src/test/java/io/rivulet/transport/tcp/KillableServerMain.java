package io.rivulet.transport.tcp;

import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.TestTime;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The server process {@link PeerKillTest} kills: binds {@code 127.0.0.1:<port>} (0 for any), prints
 * {@code READY <port> <pid>}, answers request-response with {@code pid:<pid>} and request-stream with a tick every
 * 20 ms for ever, and exits by itself after the given number of seconds if nobody kills it first.
 */
public final class KillableServerMain
{
    private KillableServerMain()
    {
    }

    /** @param args port, then the longest time to live in seconds, scaled like the test's own waits. */
    public static void main(final String[] args)
    {
        final int port = Integer.parseInt(args[0]);
        final long lifetimeNs = TestTime.nanos(Long.parseLong(args[1]), TimeUnit.SECONDS);
        final long pid = ProcessHandle.current().pid();
        try (Rivulet node = Rivulet.launch(new Rivulet.Context().transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)))
        {
            final Server server = node.bind("127.0.0.1:" + port, Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("pid:" + pid)))
                .requestStream(request -> Flux.interval(Duration.ofMillis(20)).onBackpressureDrop()
                    .map(tick -> Message.of("tick " + tick)))
                .build()).block(TestTime.seconds(30));
            final String address = server.localAddress();
            System.out.println("READY " + address.substring(address.lastIndexOf(':') + 1) + " " + pid);
            System.out.flush();
            final long deadlineNs = System.nanoTime() + lifetimeNs;
            while (System.nanoTime() - deadlineNs < 0)
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }
}
