package io.rivulet.protocol;

import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.subscriber.TestSubscriber;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class ProtocolCloseTest
{
    private final AtomicBoolean serverProducerCancelled = new AtomicBoolean();
    private final AtomicBoolean clientProducerCancelled = new AtomicBoolean();

    private ProtocolHarness harness()
    {
        return ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.<Message>never().doOnCancel(() -> serverProducerCancelled.set(true)))
                .build())
            .clientResponder(Responder.builder()
                .requestStream(request -> Flux.<Message>never().doOnCancel(() -> clientProducerCancelled.set(true)))
                .build())
            .build();
    }

    private static TestSubscriber<Void> onClose(final ProtocolHarness.Side side)
    {
        final TestSubscriber<Void> closed = TestSubscriber.create();
        side.connection.onClose().subscribe(closed);
        return closed;
    }

    @Test
    void shouldEndInFlightStreamsOnBothSidesAndCompleteOnClose()
    {
        final ProtocolHarness h = harness();
        final TestSubscriber<Message> fromClient = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("c")).subscribe(fromClient);
        final TestSubscriber<Message> fromServer = TestSubscriber.create();
        h.server.connection.requestStream(Message.of("s")).subscribe(fromServer);
        h.stepUntil(() -> h.client.streamCount() == 2 && h.server.streamCount() == 2);
        final TestSubscriber<Void> clientClosed = onClose(h.client);
        final TestSubscriber<Void> serverClosed = onClose(h.server);

        h.client.connection.close();
        h.client.connection.close(); // idempotent
        h.stepUntil(() -> h.client.connection.isFinished() && h.server.connection.isFinished());

        assertThat(fromClient.expectTerminalError()).isInstanceOf(ConnectionClosedException.class)
            .hasMessageContaining("closed locally");
        assertThat(fromServer.expectTerminalError()).isInstanceOf(ConnectionClosedException.class)
            .hasMessageContaining("closed by peer");
        assertThat(h.client.sent(FrameType.CLOSE)).singleElement()
            .satisfies(frame -> assertThat(frame.errorCode()).isEqualTo(ErrorCode.CONNECTION_CLOSE.value()));
        assertThat(h.server.sent(FrameType.CLOSE)).isEmpty();
        assertThat(serverProducerCancelled).isTrue();
        assertThat(clientProducerCancelled).isTrue();
        assertThat(clientClosed.isTerminatedComplete()).isTrue();
        assertThat(serverClosed.isTerminatedComplete()).isTrue();
        assertThat(h.client.connection.isOpen()).isFalse();
        assertThat(h.server.connection.isOpen()).isFalse();
        assertThat(h.client.link.isClosed()).isTrue();
        assertThat(h.server.link.isClosed()).isTrue();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
        assertThat(h.client.counters.connectionsClosed.get()).isEqualTo(1);
        assertThat(h.server.counters.connectionsClosed.get()).isEqualTo(1);
        assertThat(h.client.counters.connectionsLost.get()).isZero();
        assertThat(h.client.errors).isEmpty();
        assertThat(h.server.errors).isEmpty();
    }

    @Test
    void shouldFailEveryOperationAfterClose()
    {
        final ProtocolHarness h = harness();
        h.settle();
        h.client.connection.close();
        h.stepUntil(() -> h.client.connection.isFinished());

        final TestSubscriber<Message> stream = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("late")).subscribe(stream);
        final TestSubscriber<Message> response = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("late")).subscribe(response);
        final TestSubscriber<Message> channel = TestSubscriber.create();
        h.client.connection.requestChannel(Flux.just(Message.of("late"))).subscribe(channel);
        final TestSubscriber<Void> fnf = TestSubscriber.create();
        h.client.connection.fireAndForget(Message.of("late")).subscribe(fnf);
        h.settle();

        assertThat(stream.expectTerminalError()).isInstanceOf(ConnectionClosedException.class);
        assertThat(response.expectTerminalError()).isInstanceOf(ConnectionClosedException.class);
        assertThat(channel.expectTerminalError()).isInstanceOf(ConnectionClosedException.class);
        assertThat(fnf.expectTerminalError()).isInstanceOf(ConnectionClosedException.class);
        assertThat(h.client.connection.offer(new UnsafeBuffer(new byte[8]), 0, 8)).isEqualTo(Connection.CLOSED);
    }

    @Test
    void shouldFinishClosingWithinTheDeadlineWhenThePeerHangs()
    {
        final ProtocolHarness h = harness();
        final TestSubscriber<Message> fromClient = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("c")).subscribe(fromClient);
        h.settle();
        h.server.frozen = true;

        h.client.connection.close();
        h.steps(10);
        assertThat(fromClient.expectTerminalError()).isInstanceOf(ConnectionClosedException.class);
        assertThat(h.client.sent(FrameType.CLOSE)).hasSize(1);
        assertThat(h.client.connection.isFinished()).as("waits for the peer's end of stream").isFalse();

        for (int i = 0; i < 20 && !h.client.connection.isFinished(); i++)
        {
            h.advance(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(h.client.connection.isFinished()).isTrue();
        assertThat(h.client.link.isClosed()).isTrue();
        assertThat(onClose(h.client).isTerminatedComplete()).isTrue();
    }

    @Test
    void shouldFinishClosingWithinTheDeadlineWhenTheLinkCannotDrain()
    {
        final ProtocolHarness h = harness();
        h.settle();
        h.client.link.blocked(true);
        h.client.connection.close();
        for (int i = 0; i < 20 && !h.client.connection.isFinished(); i++)
        {
            h.advance(TimeUnit.MILLISECONDS.toNanos(100));
        }

        assertThat(h.client.connection.isFinished()).isTrue();
        assertThat(h.client.sent(FrameType.CLOSE)).isEmpty();
        // The server hears nothing for longer than its keepalive timeout (350 ms < the 1 s close deadline),
        // or sees the link close: either way its side ends too.
        h.stepUntil(() -> h.server.connection.isFinished());
        final TestSubscriber<Void> serverClosed = onClose(h.server);
        assertThat(serverClosed.isTerminated()).isTrue();
        if (serverClosed.isTerminatedError())
        {
            assertThat(serverClosed.expectTerminalError()).isInstanceOf(ConnectionLostException.class)
                .hasMessageContaining("keepalive");
        }
    }

    @Test
    void shouldCloseBothSidesWhenTheServerCloses()
    {
        final ProtocolHarness h = harness();
        final TestSubscriber<Message> fromClient = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("c")).subscribe(fromClient);
        h.stepUntil(() -> h.server.streamCount() == 1);

        h.server.connection.close();
        h.stepUntil(() -> h.client.connection.isFinished() && h.server.connection.isFinished());

        assertThat(fromClient.expectTerminalError()).isInstanceOf(ConnectionClosedException.class);
        assertThat(serverProducerCancelled).isTrue();
        assertThat(h.server.sent(FrameType.CLOSE)).hasSize(1);
        assertThat(onClose(h.client).isTerminatedComplete()).isTrue();
        assertThat(onClose(h.server).isTerminatedComplete()).isTrue();
    }
}
