package io.rivulet.protocol;

import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.codec.FrameType;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.subscriber.TestSubscriber;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.rivulet.protocol.ProtocolHarness.INTERVAL_NS;
import static io.rivulet.protocol.ProtocolHarness.TIMEOUT_NS;
import static org.assertj.core.api.Assertions.assertThat;

class ProtocolKeepaliveTest
{
    private final AtomicBoolean producerCancelled = new AtomicBoolean();

    private ProtocolHarness harness()
    {
        return ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.<Message>never().doOnCancel(() -> producerCancelled.set(true)))
                .build())
            .build();
    }

    @Test
    void shouldStayAliveAcrossManyIntervalsBySendingKeepalives()
    {
        final ProtocolHarness h = harness();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);
        h.settle();

        final int intervals = 100;
        for (int i = 0; i < intervals; i++)
        {
            h.advance(INTERVAL_NS);
            h.steps(2);
        }

        assertThat(h.client.connection.isOpen()).isTrue();
        assertThat(h.server.connection.isOpen()).isTrue();
        assertThat(subscriber.isTerminatedOrCancelled()).isFalse();
        assertThat(h.client.sent(FrameType.KEEPALIVE)).hasSizeGreaterThanOrEqualTo(intervals - 1)
            .allSatisfy(frame -> assertThat(frame.respond()).isFalse());
        assertThat(h.server.sent(FrameType.KEEPALIVE)).hasSizeGreaterThanOrEqualTo(intervals - 1);
        assertThat(h.client.counters.connectionsLost.get()).isZero();
    }

    @Test
    void shouldStayAliveWhenTheTimerFiresLateButFramesKeepArriving()
    {
        final ProtocolHarness h = harness();
        h.settle();
        // Intervals longer than the keepalive timeout on the timer, but the peer's frames arrive in between.
        for (int i = 0; i < 20; i++)
        {
            h.advance(TIMEOUT_NS - INTERVAL_NS);
            h.advance(INTERVAL_NS / 2);
        }
        assertThat(h.client.connection.isOpen()).isTrue();
        assertThat(h.server.connection.isOpen()).isTrue();
    }

    @Test
    void shouldLoseTheConnectionWhenThePeerIsSilentLongerThanTheTimeout()
    {
        final ProtocolHarness h = harness();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);
        h.settle();
        final long lastHeardNs = h.nowNs();

        // The server falls silent: nothing it sends reaches the client any more.
        h.server.link.blocked(true);
        while (h.nowNs() + INTERVAL_NS - lastHeardNs <= TIMEOUT_NS)
        {
            h.advance(INTERVAL_NS);
            h.steps(2);
            assertThat(h.client.connection.isOpen()).as("open at +%d ns", h.nowNs() - lastHeardNs).isTrue();
        }
        h.advance(INTERVAL_NS);
        h.stepUntil(() -> h.client.connection.isFinished());

        assertThat(h.client.connection.isOpen()).isFalse();
        assertThat(subscriber.expectTerminalError()).isInstanceOf(ConnectionLostException.class)
            .hasMessageContaining("keepalive");
        assertThat(h.client.counters.connectionsLost.get()).isEqualTo(1);
        final TestSubscriber<Void> closed = TestSubscriber.create();
        h.client.connection.onClose().subscribe(closed);
        assertThat(closed.expectTerminalError()).isInstanceOf(ConnectionLostException.class)
            .hasMessageContaining("keepalive");

        // The server sees the link close and ends its side too.
        h.stepUntil(() -> h.server.connection.isFinished());
        assertThat(producerCancelled).isTrue();
        final TestSubscriber<Void> serverClosed = TestSubscriber.create();
        h.server.connection.onClose().subscribe(serverClosed);
        assertThat(serverClosed.isTerminated()).isTrue();
    }

    @Test
    void shouldFailNewRequestsOnALostConnection()
    {
        final ProtocolHarness h = harness();
        h.settle();
        h.server.link.blocked(true);
        for (int i = 0; i < 10; i++)
        {
            h.advance(INTERVAL_NS);
        }
        h.stepUntil(() -> h.client.connection.isFinished());

        final TestSubscriber<Message> late = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("late")).subscribe(late);
        h.settle();
        assertThat(late.expectTerminalError()).isInstanceOfAny(ConnectionLostException.class,
            ConnectionClosedException.class);
    }

    @Test
    void shouldAnswerAKeepaliveThatAsksForAResponse()
    {
        final ProtocolHarness h = harness();
        h.settle();
        h.client.link.inject(ProtocolHarness.keepaliveFrame(true, 123_456_789L));
        h.settle();

        assertThat(h.client.sent(FrameType.KEEPALIVE)).singleElement().satisfies(frame ->
        {
            assertThat(frame.respond()).isFalse();
            assertThat(frame.data()).isEmpty();
        });
        assertThat(h.client.connection.isOpen()).isTrue();
    }

    @Test
    void shouldKeepAnIdleConnectionWhenTheClientsIntervalIsLongerThanTheServersTimeout()
    {
        assertIdleConnectionSurvives(
            keepalive(1000, 5000),
            keepalive(100, 350));
    }

    @Test
    void shouldKeepAnIdleConnectionWhenTheClientsTimeoutIsShorterThanTheServersInterval()
    {
        assertIdleConnectionSurvives(
            keepalive(100, 350),
            keepalive(1000, 5000));
    }

    @Test
    void shouldClampAClientAskingForDaysAndSayWhatItGrantedInTheSetupAnswer()
    {
        final long days = TimeUnit.MILLISECONDS.toNanos(Integer.MAX_VALUE);
        final ProtocolSettings greedy = new ProtocolSettings(512, 64 * 1024, 8, days - TimeUnit.SECONDS.toNanos(1),
            days, 64);
        final ProtocolSettings server = keepalive(100, 350).withKeepalivePolicy(TimeUnit.SECONDS.toNanos(2), 0);
        final ProtocolHarness h = ProtocolHarness.builder().clientSettings(greedy).serverSettings(server).build();
        h.settle();

        assertThat(h.server.sent(FrameType.SETUP)).as("the answer to SETUP").singleElement().satisfies(answer ->
        {
            assertThat(answer.keepaliveTimeoutMs()).isEqualTo(2_000);
            assertThat(answer.keepaliveIntervalMs()).isEqualTo(1_000);
        });
        assertThat(h.client.connection.keepaliveIntervalNs()).as("the client follows the grant")
            .isEqualTo(TimeUnit.SECONDS.toNanos(1));

        // The client goes silent: the server loses it after its own bound, not after 24.8 days.
        h.client.frozen = true;
        for (int i = 0; i < 30 && h.server.connection.isOpen(); i++)
        {
            h.advance(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(h.server.connection.isOpen()).as("lost within the granted 2 s").isFalse();
        assertThat(h.server.counters.connectionsLost.get()).isEqualTo(1);
    }

    @Test
    void shouldCloseAnAcceptedConnectionIdleForTheIdleTimeoutButNotOneWithAStreamOpen()
    {
        final ProtocolSettings server = keepalive(100, 350).withKeepalivePolicy(TimeUnit.SECONDS.toNanos(60),
            TimeUnit.SECONDS.toNanos(1));
        final ProtocolHarness busy = ProtocolHarness.builder().clientSettings(keepalive(100, 350))
            .serverSettings(server).serverResponder(Responder.builder()
                .requestStream(request -> Flux.<Message>never()).build()).build();
        final TestSubscriber<Message> stream = TestSubscriber.create();
        busy.client.connection.requestStream(Message.of("hold")).subscribe(stream);
        final ProtocolHarness idle = ProtocolHarness.builder().clientSettings(keepalive(100, 350))
            .serverSettings(server).build();
        busy.settle();
        idle.settle();

        // 3 s in 10 ms steps: KEEPALIVEs flow both ways all along, which is no activity.
        for (int i = 0; i < 300; i++)
        {
            busy.advance(TimeUnit.MILLISECONDS.toNanos(10));
            idle.advance(TimeUnit.MILLISECONDS.toNanos(10));
        }

        assertThat(idle.server.sent(FrameType.CLOSE)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains("idle for").contains("rivulet.idleTimeout"));
        idle.stepUntil(() -> !idle.client.connection.isOpen());
        assertThat(idle.server.counters.connectionsLost.get()).as("an orderly close").isZero();
        assertThat(busy.server.sent(FrameType.CLOSE)).as("a stream is open").isEmpty();
        assertThat(busy.server.connection.isOpen()).isTrue();
        assertThat(stream.isTerminatedOrCancelled()).isFalse();
    }

    private static ProtocolSettings keepalive(final long intervalMs, final long timeoutMs)
    {
        return new ProtocolSettings(512, 64 * 1024, 8, TimeUnit.MILLISECONDS.toNanos(intervalMs),
            TimeUnit.MILLISECONDS.toNanos(timeoutMs), 64);
    }

    private static void assertIdleConnectionSurvives(final ProtocolSettings client, final ProtocolSettings server)
    {
        final ProtocolHarness h = ProtocolHarness.builder().clientSettings(client).serverSettings(server).build();
        h.settle();
        // 20 s of idleness in 10 ms steps.
        for (int i = 0; i < 2000; i++)
        {
            h.advance(TimeUnit.MILLISECONDS.toNanos(10));
        }

        assertThat(h.client.connection.isOpen()).isTrue();
        assertThat(h.server.connection.isOpen()).isTrue();
        assertThat(h.client.counters.connectionsLost.get()).isZero();
        assertThat(h.server.counters.connectionsLost.get()).isZero();
        // Both sides keep the client's pace.
        final long clientIntervalMs = TimeUnit.NANOSECONDS.toMillis(client.keepaliveIntervalNs());
        assertThat(h.server.sent(FrameType.KEEPALIVE).size()).isBetween((int)(20_000 / clientIntervalMs) - 2,
            (int)(20_000 / clientIntervalMs) + 2);
    }
}
