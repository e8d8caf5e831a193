package io.rivulet.transport.tcp;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SETUP carries the client's keepalive interval and timeout (section 6). Two nodes configured with
 * different keepalive timings must either agree on the advertised ones or refuse the connection at
 * set-up; a healthy idle connection must never be dropped because one side's timeout is shorter than
 * the other side's interval.
 */
class KeepaliveNegotiationTest
{
    private static final Duration TIMEOUT = TestTime.seconds(10);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Rivulet> nodes = new ArrayList<>();

    @AfterEach
    void closeNodes()
    {
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            nodes.get(i).close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldKeepIdleConnectionWhenServerTimeoutIsShorterThanClientInterval()
    {
        final Rivulet serverNode = launch(200, 900);
        final Rivulet clientNode = launch(1000, 5000);
        assertIdleConnectionSurvives(serverNode, clientNode, TestTime.nanos(2500, TimeUnit.MILLISECONDS));
    }

    @Test
    @ScaledTimeout(60)
    void shouldKeepIdleConnectionWhenClientTimeoutIsShorterThanServerInterval()
    {
        final Rivulet serverNode = launch(1000, 5000);
        final Rivulet clientNode = launch(200, 900);
        assertIdleConnectionSurvives(serverNode, clientNode, TestTime.nanos(2500, TimeUnit.MILLISECONDS));
    }

    private void assertIdleConnectionSurvives(final Rivulet serverNode, final Rivulet clientNode, final long idleNs)
    {
        final Server server = serverNode.bind("127.0.0.1:0", Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("echo:" + request.dataUtf8())))
            .build()).block(TIMEOUT);
        final Connection connection = clientNode.connect(server.localAddress()).block(TIMEOUT);
        assertThat(connection.requestResponse(Message.of("before")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:before");

        final long endNs = System.nanoTime() + idleNs;
        for (int i = 0; i < 100_000 && System.nanoTime() - endNs < 0 && connection.isOpen(); i++)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }

        assertThat(connection.isOpen()).as("idle connection still open; errors: %s", errors).isTrue();
        assertThat(serverNode.counters().connectionsLost.get()).as("server connections lost").isZero();
        assertThat(clientNode.counters().connectionsLost.get()).as("client connections lost").isZero();
        assertThat(connection.requestResponse(Message.of("after")).map(Message::dataUtf8).block(TIMEOUT))
            .isEqualTo("echo:after");
    }

    /** Keepalive timings are scaled, like the idle period they are checked against. */
    private Rivulet launch(final long keepaliveIntervalMs, final long keepaliveTimeoutMs)
    {
        final Rivulet node = Rivulet.launch(new Rivulet.Context()
            .transport(new TcpTransport())
            .threadingMode(ThreadingMode.SHARED)
            .keepaliveInterval(TestTime.millis(keepaliveIntervalMs), TimeUnit.MILLISECONDS)
            .keepaliveTimeout(TestTime.millis(keepaliveTimeoutMs), TimeUnit.MILLISECONDS)
            .errorHandler(errors::add));
        nodes.add(node);
        return node;
    }
}
