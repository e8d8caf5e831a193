package io.rivulet.protocol;

import io.rivulet.Connection;
import io.rivulet.ConnectionLostException;
import io.rivulet.LimitExceededException;
import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.security.Authenticator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.subscriber.TestSubscriber;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Authentication on SETUP, the SETUP timeout, the client waiting for the server to accept its SETUP, and the
 * per-connection limits (streams the peer may open, requests this side may have pending, fire-and-forget
 * bytes parked behind a full ring), driven deterministically by {@link ProtocolHarness} with an injected clock.
 */
class ProtocolSecurityTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Responder SERVER = Responder.builder()
        .requestResponse(Mono::just)
        .requestStream(request -> Flux.<Message>never())
        .build();

    /** A harness whose client sends the given token in SETUP and waits for the server's acceptance. */
    private static final class Handshake
    {
        final ProtocolHarness h;
        final TestSubscriber<Connection> accepted = TestSubscriber.create();

        Handshake(final Authenticator authenticator, final String token)
        {
            h = ProtocolHarness.builder().serverResponder(SERVER).sendSetup(false).build();
            h.server.connection.authenticator(authenticator);
            h.client.connection.sendSetup(token.getBytes(StandardCharsets.UTF_8), new byte[0]);
            final Sinks.One<Connection> sink = Sinks.one();
            sink.asMono().subscribe(accepted);
            h.client.connection.awaitAcceptance(sink);
        }
    }

    @Test
    void shouldAcceptAValidTokenAndCompleteTheConnectWhenTheServerAnswers()
    {
        final Handshake handshake = new Handshake(Authenticator.tokens("other", "s3cret"), "s3cret");
        final ProtocolHarness h = handshake.h;
        assertThat(handshake.accepted.isTerminated()).as("no answer from the server yet").isFalse();

        h.stepUntil(handshake.accepted::isTerminated);

        assertThat(handshake.accepted.getReceivedOnNext()).containsExactly(h.client.connection);
        final TestSubscriber<Message> reply = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("hello")).subscribe(reply);
        h.stepUntil(reply::isTerminated);
        assertThat(reply.getReceivedOnNext()).containsExactly(Message.of("hello"));
        assertThat(h.server.counters.setupsRejected.get()).isZero();
    }

    @Test
    void shouldRejectAWrongTokenWithRejectedSetupCountItAndFailTheConnect()
    {
        assertRefused(new Handshake(Authenticator.tokens("s3cret"), "guess"), "token not accepted");
    }

    @Test
    void shouldRejectAMissingToken()
    {
        assertRefused(new Handshake(Authenticator.tokens("s3cret"), ""), "no token in SETUP");
    }

    @Test
    void shouldRejectWhenTheAuthenticatorItselfFails()
    {
        final Handshake handshake = new Handshake(credentials ->
        {
            throw new IllegalStateException("user directory unavailable");
        }, "s3cret");

        assertRefused(handshake, "authentication failed");
        assertThat(handshake.h.server.errors).anySatisfy(error ->
            assertThat(error).hasMessageContaining("user directory unavailable"));
    }

    @Test
    void shouldRejectAClientWithoutVerifiedCertificateWhenPrincipalsAreRequired()
    {
        assertRefused(new Handshake(Authenticator.principals("CN=client"), "s3cret"), "no verified TLS client certificate");
    }

    private static void assertRefused(final Handshake handshake, final String reason)
    {
        final ProtocolHarness h = handshake.h;
        h.stepUntil(() -> handshake.accepted.isTerminated() && h.server.connection.isFinished());

        assertThat(handshake.accepted.expectTerminalError()).isInstanceOf(RejectedException.class)
            .hasMessageContaining(reason);
        assertThat(h.server.connectionErrors(ErrorCode.REJECTED_SETUP)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains(reason));
        assertThat(h.server.sent(FrameType.KEEPALIVE)).as("a refused client is never answered").isEmpty();
        assertThat(h.server.counters.setupsRejected.get()).isEqualTo(1);
        assertThat(h.server.link.isClosed()).isTrue();
        assertThat(h.client.connection.isOpen()).isFalse();
    }

    @Test
    void shouldCloseAnAcceptedConnectionThatSendsNoSetupInTime()
    {
        final ProtocolSettings settings = ProtocolHarness.settings().withLimits(200 * MS, 16, 16, 1 << 20, 16);
        final ProtocolHarness h = ProtocolHarness.builder().serverSettings(settings).sendSetup(false).build();

        h.advance(150 * MS);
        assertThat(h.server.connection.isOpen()).as("within the set-up timeout").isTrue();
        h.advance(60 * MS);
        h.stepUntil(() -> h.server.connection.isFinished());

        assertThat(h.server.connectionErrors(ErrorCode.INVALID_SETUP)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains("no SETUP within 200 ms"));
        assertThat(h.server.counters.setupTimeouts.get()).isEqualTo(1);
        assertThat(h.server.counters.protocolErrors.get()).isZero();
    }

    @Test
    void shouldFailTheConnectWhenTheServerNeverAnswersSetup()
    {
        final ProtocolSettings settings = ProtocolHarness.settings().withLimits(200 * MS, 16, 16, 1 << 20, 16);
        final ProtocolHarness h = ProtocolHarness.builder().clientSettings(settings).build();
        final TestSubscriber<Connection> accepted = TestSubscriber.create();
        final Sinks.One<Connection> sink = Sinks.one();
        sink.asMono().subscribe(accepted);
        h.client.connection.awaitAcceptance(sink);
        h.server.frozen = true; // a hung server: the TCP connect succeeded, nothing answers

        for (int i = 0; i < 6 && !accepted.isTerminated(); i++)
        {
            h.advance(50 * MS);
        }

        assertThat(accepted.expectTerminalError()).isInstanceOf(ConnectionLostException.class)
            .hasMessageContaining("did not answer SETUP within 200 ms");
    }

    @Test
    void shouldRefuseStreamsBeyondTheLimitOnTheirStreamAndKeepTheConnection()
    {
        final ProtocolSettings server = ProtocolHarness.settings().withLimits(200 * MS, 2, 16, 1 << 20, 16);
        final ProtocolHarness h = ProtocolHarness.builder().serverSettings(server).serverResponder(SERVER).build();
        final List<TestSubscriber<Message>> streams = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            final TestSubscriber<Message> stream = TestSubscriber.create();
            h.client.connection.requestStream(Message.of("s" + i)).subscribe(stream);
            streams.add(stream);
            h.settle();
        }

        assertThat(streams.get(0).isTerminated()).isFalse();
        assertThat(streams.get(1).isTerminated()).isFalse();
        assertThat(streams.get(2).expectTerminalError()).isInstanceOf(RejectedException.class)
            .hasMessageContaining("rivulet.maxStreams");
        assertThat(h.server.counters.limitRejections.get()).isEqualTo(1);
        assertThat(h.server.connection.isOpen()).isTrue();
        assertThat(h.server.streamCount()).isEqualTo(2);

        // Ending a stream frees its place.
        streams.get(0).cancel();
        h.settle();
        final TestSubscriber<Message> reply = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("after")).subscribe(reply);
        h.stepUntil(reply::isTerminated);
        assertThat(reply.getReceivedOnNext()).containsExactly(Message.of("after"));
    }

    @Test
    void shouldCloseAConnectionFloodingRequestsFasterThanRefusalsCanBeSent()
    {
        final ProtocolSettings server = ProtocolHarness.settings().withLimits(200 * MS, 1, 16, 1 << 20, 16);
        final ProtocolHarness h = ProtocolHarness.builder().serverSettings(server).serverResponder(SERVER)
            .ringLength(4096).build();
        h.settle();

        // 64 requests arrive in one read while the server's sender does not drain: refusals fill the ring.
        for (int i = 0; i < 64; i++)
        {
            h.server.link.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_STREAM, 2 * i + 1, 1,
                io.rivulet.codec.FrameFlags.NEXT, new byte[0], "x".getBytes(StandardCharsets.UTF_8)));
        }
        h.server.connection.doWork(h.nowNs());

        assertThat(h.server.connection.isOpen()).as("closed rather than queueing refusals").isFalse();
        assertThat(h.server.counters.protocolErrors.get()).isEqualTo(1);
        assertThat(h.server.counters.limitRejections.get()).isGreaterThan(1);
        assertThat(h.server.errors).anySatisfy(error ->
            assertThat(error).hasMessageContaining("faster than refusals can be sent"));
    }

    @Test
    void shouldFailRequestsBeyondThePendingLimitLocally()
    {
        final ProtocolSettings client = ProtocolHarness.settings().withLimits(200 * MS, 16, 2, 1 << 20, 16);
        final ProtocolHarness h = ProtocolHarness.builder().clientSettings(client)
            .serverResponder(Responder.builder().requestResponse(request -> Mono.never()).build()).build();
        final List<TestSubscriber<Message>> replies = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            final TestSubscriber<Message> reply = TestSubscriber.create();
            h.client.connection.requestResponse(Message.of("r" + i)).subscribe(reply);
            replies.add(reply);
        }
        h.settle();

        assertThat(replies.get(2).expectTerminalError()).isInstanceOf(LimitExceededException.class)
            .hasMessageContaining("rivulet.maxPendingRequests");
        assertThat(replies.get(0).isTerminated()).isFalse();
        assertThat(replies.get(1).isTerminated()).isFalse();
        assertThat(h.client.sent(FrameType.REQUEST_RESPONSE)).as("the refused request never left").hasSize(2);
        assertThat(h.client.counters.limitRejections.get()).isEqualTo(1);
        assertThat(h.client.connection.isOpen()).isTrue();
    }

    @Test
    void shouldFailFireAndForgetPastTheParkedBytesBoundAndDeliverEverythingAccepted()
    {
        final long maxParked = 4096;
        final ProtocolSettings client = ProtocolHarness.settings().withLimits(200 * MS, 16, 16, maxParked, 16);
        final AtomicInteger received = new AtomicInteger();
        final ProtocolHarness h = ProtocolHarness.builder().clientSettings(client).ringLength(4096)
            .serverResponder(Responder.builder().fireAndForget(message ->
            {
                received.incrementAndGet();
                return Mono.empty();
            }).build()).build();
        h.settle();

        // No engine cycles while sending: the ring fills, then messages park, then the bound refuses.
        int accepted = 0;
        LimitExceededException refusal = null;
        for (int i = 0; i < 100 && refusal == null; i++)
        {
            final TestSubscriber<Void> sent = TestSubscriber.create();
            h.client.connection.fireAndForget(Message.of(new byte[400])).subscribe(sent);
            if (sent.isTerminated() && sent.getTerminalSignal() != null && sent.getTerminalSignal().isOnError())
            {
                refusal = (LimitExceededException)sent.expectTerminalError();
            }
            else
            {
                accepted++;
            }
        }

        assertThat(refusal).as("a refusal within 100 sends").isNotNull();
        assertThat(refusal).hasMessageContaining("rivulet.maxParkedBytes");
        assertThat(h.client.connection.outboundRing().parkedBytes()).isLessThanOrEqualTo(maxParked);
        assertThat(h.client.counters.limitRejections.get()).isEqualTo(1);

        h.settle();
        assertThat(received.get()).as("every accepted message arrives").isEqualTo(accepted);
        assertThat(h.client.connection.outboundRing().parkedBytes()).isZero();
    }
}
