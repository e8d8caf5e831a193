package io.rivulet.protocol;

import io.rivulet.ConnectionClosedException;
import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.subscriber.TestSubscriber;

import static org.assertj.core.api.Assertions.assertThat;

class ProtocolSetupTest
{
    private static final Responder ECHO = Responder.builder()
        .requestResponse(Mono::just)
        .requestStream(request -> Flux.<Message>never())
        .build();

    private static ProtocolHarness withoutSetup()
    {
        return ProtocolHarness.builder().serverResponder(ECHO).sendSetup(false).build();
    }

    private static Throwable closeError(final ProtocolHarness.Side side)
    {
        final TestSubscriber<Void> closed = TestSubscriber.create();
        side.connection.onClose().subscribe(closed);
        return closed.expectTerminalError();
    }

    private static void assertRejected(final ProtocolHarness h, final ErrorCode code, final String reason)
    {
        h.stepUntil(() -> h.server.connection.isFinished());
        assertThat(h.server.sent()).as("the server's only frame").singleElement().satisfies(frame ->
        {
            assertThat(frame.type()).isEqualTo(FrameType.ERROR);
            assertThat(frame.streamId()).isZero();
            assertThat(frame.errorCode()).isEqualTo(code.value());
            assertThat(frame.text()).contains(reason);
        });
        assertThat(h.server.connection.isOpen()).isFalse();
        assertThat(h.server.link.isClosed()).isTrue();
        assertThat(h.server.counters.protocolErrors.get()).isEqualTo(1);
        assertThat(closeError(h.server)).isInstanceOf(RejectedException.class).hasMessageContaining(reason);
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldAcceptAValidSetupAndServe()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        final TestSubscriber<Message> reply = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("ping")).subscribe(reply);
        h.stepUntil(reply::isTerminated);

        assertThat(h.client.sent().get(0).type()).isEqualTo(FrameType.SETUP);
        assertThat(h.client.sent().get(0).protocolVersion()).isEqualTo(ProtocolConnection.PROTOCOL_VERSION);
        assertThat(h.client.sent().get(0).maxFrameLength()).isEqualTo(512);
        assertThat(reply.getReceivedOnNext()).containsExactly(Message.of("ping"));
    }

    @Test
    void shouldRejectAFirstFrameThatIsNotSetup()
    {
        final ProtocolHarness h = withoutSetup();
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_STREAM, 1, 8, FrameFlags.NEXT,
            new byte[0], "hi".getBytes()));

        assertRejected(h, ErrorCode.INVALID_SETUP, "expected SETUP");
        // The client hears why: its connection ends rejected.
        h.stepUntil(() -> h.client.connection.isFinished());
        assertThat(closeError(h.client)).isInstanceOf(RejectedException.class).hasMessageContaining("expected SETUP");
    }

    @Test
    void shouldRejectAnUnsupportedVersion()
    {
        final ProtocolHarness h = withoutSetup();
        h.server.link.inject(ProtocolHarness.setupFrame(ProtocolConnection.PROTOCOL_VERSION + 1, 100, 350, 512));

        assertRejected(h, ErrorCode.UNSUPPORTED_SETUP, "unsupported protocol version");
    }

    @Test
    void shouldRejectInvalidKeepaliveTimings()
    {
        final ProtocolHarness h = withoutSetup();
        h.server.link.inject(ProtocolHarness.setupFrame(ProtocolConnection.PROTOCOL_VERSION, 100, 100, 512));

        assertRejected(h, ErrorCode.INVALID_SETUP, "keepalive");
    }

    @Test
    void shouldRejectAFrameLengthBelowTheMinimum()
    {
        final ProtocolHarness h = withoutSetup();
        h.server.link.inject(ProtocolHarness.setupFrame(ProtocolConnection.PROTOCOL_VERSION, 100, 350, 64));

        assertRejected(h, ErrorCode.INVALID_SETUP, "below 256");
    }

    @Test
    void shouldRejectAClientMaxFrameLengthLargerThanTheServers()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .clientSettings(ProtocolHarness.settings(1024, 64 * 1024, 8))
            .serverSettings(ProtocolHarness.settings(512, 64 * 1024, 8))
            .serverResponder(ECHO)
            .build();
        final TestSubscriber<Message> inFlight = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("go")).subscribe(inFlight);

        h.stepUntil(() -> h.server.connection.isFinished() && h.client.connection.isFinished());

        assertThat(h.server.connectionErrors(ErrorCode.REJECTED_SETUP)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains("1024").contains("512"));
        assertThat(closeError(h.server)).isInstanceOf(RejectedException.class);
        assertThat(closeError(h.client)).isInstanceOf(RejectedException.class).hasMessageContaining("rejected");
        assertThat(inFlight.expectTerminalError()).isInstanceOf(RejectedException.class);
        assertThat(h.server.sent(FrameType.PAYLOAD)).isEmpty();
    }

    @Test
    void shouldRejectASecondSetup()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        h.server.link.inject(ProtocolHarness.validSetupFrame(ProtocolHarness.settings()));

        h.stepUntil(() -> h.server.connection.isFinished());
        assertThat(h.server.connectionErrors(ErrorCode.CONNECTION_ERROR)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains("SETUP"));
    }

    @Test
    void shouldCloseOnARequestWithTheWrongStreamIdParity()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_STREAM, 2, 8, FrameFlags.NEXT,
            new byte[0], "even".getBytes()));

        assertProtocolError(h, "stream id 2");
    }

    @Test
    void shouldCloseOnARequestOnStreamZero()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_RESPONSE, 0, 0, FrameFlags.NEXT,
            new byte[0], "zero".getBytes()));

        assertProtocolError(h, "stream id 0");
    }

    @Test
    void shouldCloseOnARequestReusingALiveStreamId()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        final TestSubscriber<Message> inFlight = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("go")).subscribe(inFlight);
        h.stepUntil(() -> h.server.streamCount() == 1);
        h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_STREAM, 1, 8, FrameFlags.NEXT,
            new byte[0], "again".getBytes()));

        assertProtocolError(h, "already in use");
        h.stepUntil(() -> h.client.connection.isFinished());
        assertThat(inFlight.expectTerminalError()).isInstanceOf(ConnectionClosedException.class)
            .hasMessageContaining("already in use");
    }

    @Test
    void shouldCloseOnAMalformedFrame()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        final byte[] frame = ProtocolHarness.payloadFrame(1, FrameFlags.NEXT, "x".getBytes());
        h.server.link.inject(java.util.Arrays.copyOf(frame, frame.length - 1));

        assertProtocolError(h, "malformed PAYLOAD");
    }

    private static void assertProtocolError(final ProtocolHarness h, final String reason)
    {
        h.stepUntil(() -> h.server.connection.isFinished());
        assertThat(h.server.connectionErrors(ErrorCode.CONNECTION_ERROR)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains(reason));
        assertThat(h.server.errors).singleElement().isInstanceOf(ProtocolViolationException.class);
        assertThat(h.server.counters.protocolErrors.get()).isEqualTo(1);
        assertThat(closeError(h.server)).isInstanceOf(ProtocolViolationException.class)
            .hasMessageContaining(reason);
        assertThat(h.server.link.isClosed()).isTrue();
    }
}
