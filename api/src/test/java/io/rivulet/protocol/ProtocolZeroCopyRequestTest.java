package io.rivulet.protocol;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.Message;
import io.rivulet.MessageView;
import io.rivulet.RejectedException;
import io.rivulet.ReplyHandler;
import io.rivulet.Responder;
import io.rivulet.codec.FrameType;
import io.rivulet.counters.HistogramSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Zero-copy requests ({@link Connection#offerRequest}): encoded on the caller's thread, answered in place through a
 * {@link ReplyHandler}, one callback per request whatever ends it, and the races of a cancel and a close with the
 * reply. Stepped through the deterministic harness, no sleeps.
 */
class ProtocolZeroCopyRequestTest
{
    private static final Responder ECHO = Responder.builder().requestResponse(Mono::just).build();

    /** Records every callback as text: "reply 1 ping", "empty 3", "error 5 RejectedException: ...". */
    private static final class Recorder implements ReplyHandler
    {
        final List<String> calls = new ArrayList<>();

        @Override
        public void onReply(final long requestId, final MessageView reply)
        {
            calls.add("reply " + requestId + " " + reply.data().getStringWithoutLengthUtf8(0, reply.dataLength()));
        }

        @Override
        public void onEmpty(final long requestId)
        {
            calls.add("empty " + requestId);
        }

        @Override
        public void onError(final long requestId, final Throwable error)
        {
            calls.add("error " + requestId + " " + error.getClass().getSimpleName() + ": " + error.getMessage());
        }
    }

    private static UnsafeBuffer text(final String text)
    {
        return new UnsafeBuffer(text.getBytes(StandardCharsets.UTF_8));
    }

    private static long offer(final ProtocolHarness.Side side, final String text, final ReplyHandler handler)
    {
        final UnsafeBuffer buffer = text(text);
        return side.connection.offerRequest(buffer, 0, buffer.capacity(), handler);
    }

    /** @return this side's ids in use: its requests still waiting (read by reflection: no test hook in main code). */
    private static int pendingReplies(final ProtocolHarness.Side side)
    {
        try
        {
            final java.lang.reflect.Field table = ProtocolConnection.class.getDeclaredField("streams");
            table.setAccessible(true);
            return ((StreamTable)table.get(side.connection.engine())).ownStreams();
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new AssertionError(ex);
        }
    }

    @Test
    void shouldWriteTheRequestOnTheCallersThreadAndHandTheReplyInPlace()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        final Recorder handler = new Recorder();

        final long first = offer(h.client, "ping", handler);

        assertThat(first).isEqualTo(1);
        assertThat(h.commandsQueued()).as("no conductor command").isZero();
        h.sendFrames(h.client);
        assertThat(h.client.sent(FrameType.REQUEST_RESPONSE)).singleElement()
            .satisfies(frame -> assertThat(frame.streamId()).isEqualTo(1));
        h.settle();
        assertThat(handler.calls).containsExactly("reply 1 ping");

        final long second = offer(h.client, "pong", handler);
        h.settle();
        assertThat(second).isEqualTo(3);
        assertThat(handler.calls).containsExactly("reply 1 ping", "reply 3 pong");
        assertThat(pendingReplies(h.client)).as("ids given back").isZero();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
        assertThat(h.client.counters.requestLatency.snapshot().count()).as("round trips in the histogram").isEqualTo(2);
        assertThat(h.client.errors).isEmpty();
    }

    @Test
    void shouldKeepManyInFlightAndAnswerEachWithItsOwnId()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        final Recorder handler = new Recorder();
        final List<String> expected = new ArrayList<>();
        final long startNs = System.nanoTime();

        for (int i = 0; i < 50; i++)
        {
            final long id = offer(h.client, "r" + i, handler);
            assertThat(id).isEqualTo(2L * i + 1);
            expected.add("reply " + id + " r" + i);
        }
        assertThat(pendingReplies(h.client)).isEqualTo(50);
        h.settle();

        final long elapsedNs = System.nanoTime() - startNs;

        assertThat(handler.calls).containsExactlyElementsOf(expected);
        assertThat(pendingReplies(h.client)).isZero();
        // The replies arrive in one poll, which reads the clock once for all of them; each still counts.
        final HistogramSnapshot roundTrips = h.client.counters.requestLatency.snapshot();
        assertThat(roundTrips.count()).as("a round trip per reply").isEqualTo(50);
        assertThat(roundTrips.maxNs()).as("no round trip longer than the test").isPositive().isLessThanOrEqualTo(elapsedNs);
    }

    @Test
    void shouldHandAReplyThatCameInFragmentsAsOneMessage()
    {
        final String large = "x".repeat(3000) + "end"; // frames are 512 bytes here
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder().requestResponse(request -> Mono.just(Message.of(large))).build())
            .build();
        h.settle();
        final Recorder handler = new Recorder();

        offer(h.client, "big one", handler);
        h.settle();

        assertThat(h.server.sent(FrameType.PAYLOAD)).hasSizeGreaterThan(5);
        assertThat(handler.calls).containsExactly("reply 1 " + large);
        assertThat(pendingReplies(h.client)).isZero();
    }

    @ParameterizedTest(name = "a reply of {0} bytes")
    @ValueSource(ints = { 4_100, 20_000 }) // over the limit with its last fragment, and with one in the middle
    void shouldEndTheRequestOnceWhenItsReplyGrowsPastTheMessageLimit(final int replyLength)
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .clientSettings(ProtocolHarness.settings(512, 4096, 8))
            .serverResponder(Responder.builder()
                .requestResponse(request -> Mono.just(Message.of("w".repeat(replyLength)))).build())
            .build();
        h.settle();
        final Recorder handler = new Recorder();

        offer(h.client, "too big", handler);
        h.settle();

        assertThat(handler.calls).singleElement().satisfies(call -> assertThat(call).startsWith("error 1 "));
        assertThat(h.client.connection.isOpen()).as("a violation closes the connection").isFalse();
        assertThat(h.client.connection.engine().memory().held()).as("fragments given back").isZero();
    }

    @Test
    void shouldTellEmptyRepliesErrorsAndRefusalsApart()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(Responder.builder()
            .requestResponse(request -> switch (request.dataUtf8())
            {
                case "empty" -> Mono.empty();
                case "fail" -> Mono.error(new IllegalStateException("pricing engine down"));
                default -> throw new RejectedException("not for you");
            })
            .build()).build();
        h.settle();
        final Recorder handler = new Recorder();

        offer(h.client, "empty", handler);
        offer(h.client, "fail", handler);
        offer(h.client, "other", handler);
        h.settle();

        assertThat(handler.calls).containsExactly(
            "empty 1",
            "error 3 " + ApplicationErrorException.class.getSimpleName() + ": pricing engine down",
            "error 5 " + RejectedException.class.getSimpleName() + ": not for you");
        assertThat(pendingReplies(h.client)).isZero();
        assertThat(h.client.connection.isOpen()).isTrue();
    }

    @Test
    void shouldAnswerBackPressuredBeyondMaxPendingRequestsAndTakeMoreOnceRepliesCame()
    {
        final ProtocolSettings two = ProtocolHarness.settings().withLimits(ProtocolSettings.DEFAULT_SETUP_TIMEOUT_NS,
            ProtocolSettings.DEFAULT_MAX_STREAMS, 2, ProtocolSettings.DEFAULT_MAX_PARKED_BYTES,
            ProtocolSettings.DEFAULT_MAX_CONNECTIONS);
        final ProtocolHarness h = ProtocolHarness.builder().clientSettings(two).serverResponder(ECHO).build();
        h.settle();
        final Recorder handler = new Recorder();

        assertThat(offer(h.client, "a", handler)).isEqualTo(1);
        assertThat(offer(h.client, "b", handler)).isEqualTo(3);
        assertThat(offer(h.client, "c", handler)).isEqualTo(Connection.BACK_PRESSURED);
        h.settle();
        assertThat(offer(h.client, "c", handler)).isPositive();
        h.settle();

        assertThat(handler.calls).containsExactly("reply 1 a", "reply 3 b", "reply 5 c");
        assertThat(h.client.sent(FrameType.REQUEST_RESPONSE)).hasSize(3);
        assertThat(h.client.counters.limitRejections.get()).as("flow control, not a refusal").isZero();
    }

    @Test
    void shouldLeaveNothingWaitingForARequestTheFullRingRefused()
    {
        final ProtocolHarness h = ProtocolHarness.builder().ringLength(4096).serverResponder(ECHO).build();
        h.settle();
        final Recorder handler = new Recorder();
        int accepted = 0;
        long result;
        while ((result = offer(h.client, "fill", handler)) > 0)
        {
            accepted++;
        }

        assertThat(result).isEqualTo(Connection.BACK_PRESSURED);
        assertThat(accepted).isPositive();
        assertThat(pendingReplies(h.client)).as("only what went into the ring waits").isEqualTo(accepted);
        h.settle();
        assertThat(handler.calls).hasSize(accepted).allMatch(call -> call.endsWith(" fill"));
        assertThat(pendingReplies(h.client)).isZero();
    }

    @Test
    void shouldCancelAWaitingRequestSoThatItsHandlerHearsNothingMore()
    {
        final AtomicBoolean responderCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(Responder.builder()
            .requestResponse(request -> Mono.<Message>never().doOnCancel(() -> responderCancelled.set(true)))
            .build()).build();
        h.settle();
        final Recorder handler = new Recorder();
        final long id = offer(h.client, "slow", handler);
        h.settle();

        assertThat(h.client.connection.cancelRequest(id)).isTrue();
        assertThat(h.client.connection.cancelRequest(id)).as("once").isFalse();
        h.stepUntil(responderCancelled::get);
        h.settle();

        assertThat(h.client.sentOnStream((int)id)).extracting(SentFrame::type)
            .containsExactly(FrameType.REQUEST_RESPONSE, FrameType.CANCEL);
        assertThat(handler.calls).isEmpty();
        assertThat(pendingReplies(h.client)).isZero();
        assertThat(h.server.streamCount()).isZero();
        assertThat(h.client.connection.cancelRequest(12_345)).as("an id never offered").isFalse();
        assertThat(h.client.connection.cancelRequest(2)).as("the peer's parity").isFalse();
    }

    @Test
    void shouldDropAReplyThatArrivesAfterItsRequestWasCancelled()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        final Recorder handler = new Recorder();
        final long id = offer(h.client, "raced", handler);
        // The reply is on its way back, unread, when the caller gives up.
        h.sendFrames(h.client);
        h.work(h.server);
        h.sendFrames(h.server);

        assertThat(h.client.connection.cancelRequest(id)).isTrue();
        h.settle();

        assertThat(handler.calls).as("a cancelled request's handler hears nothing").isEmpty();
        assertThat(pendingReplies(h.client)).isZero();
        assertThat(h.client.errors).isEmpty();
    }

    @Test
    void shouldCancelARequestWhoseReplyIsHalfReassembled()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(Responder.builder()
            .requestResponse(request -> Mono.just(Message.of("y".repeat(50_000)))).build()).build();
        h.settle();
        final Recorder handler = new Recorder();
        final long id = offer(h.client, "big", handler);
        h.sendFrames(h.client);
        h.work(h.server);
        h.sendFrames(h.server);
        // Some of the reply's ~100 fragments are read, not all: one poll reads up to the frame limit (64).
        h.work(h.client);
        assertThat(pendingReplies(h.client)).as("still waiting").isEqualTo(1);
        assertThat(h.client.connection.engine().memory().held()).as("fragments held").isPositive();

        assertThat(h.client.connection.cancelRequest(id)).isTrue();
        h.settle();

        assertThat(handler.calls).isEmpty();
        assertThat(pendingReplies(h.client)).isZero();
        assertThat(h.client.connection.engine().memory().held()).as("fragments given back").isZero();
        assertThat(h.client.connection.isOpen()).isTrue();
        final long next = offer(h.client, "after", new Recorder());
        assertThat(next).isPositive();
    }

    @Test
    void shouldEndEveryWaitingRequestOnceWhenTheConnectionCloses()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(Responder.builder()
            .requestResponse(request -> Mono.never()).build()).build();
        h.settle();
        final Recorder handler = new Recorder();
        offer(h.client, "one", handler);
        offer(h.client, "two", handler);
        h.settle();

        h.client.connection.close();
        h.settle();

        final String closed = ConnectionClosedException.class.getSimpleName() + ": connection to server:2 closed locally";
        assertThat(handler.calls).containsExactlyInAnyOrder("error 1 " + closed, "error 3 " + closed);
        assertThat(offer(h.client, "late", handler)).isEqualTo(Connection.CLOSED);
        assertThat(h.client.connection.cancelRequest(1)).isFalse();
        assertThat(handler.calls).hasSize(2);
    }

    @Test
    void shouldReportAHandlerThatThrowsAndKeepServingTheConnection()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        final Recorder recorder = new Recorder();
        final ReplyHandler throwing = new ReplyHandler()
        {
            @Override
            public void onReply(final long requestId, final MessageView reply)
            {
                throw new IllegalStateException("handler bug");
            }

            @Override
            public void onError(final long requestId, final Throwable error)
            {
            }
        };

        offer(h.client, "first", throwing);
        offer(h.client, "second", recorder);
        h.settle();

        assertThat(h.client.errors).singleElement().satisfies(error -> assertThat(error).hasMessage("handler bug"));
        assertThat(recorder.calls).containsExactly("reply 3 second");
        assertThat(h.client.connection.isOpen()).isTrue();
    }

    @Test
    void shouldRefuseARequestLongerThanOneFrameAndANullHandler()
    {
        final ProtocolHarness h = ProtocolHarness.builder().serverResponder(ECHO).build();
        h.settle();
        final int max = h.client.connection.maxOfferLength();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[max + 1]);

        assertThatThrownBy(() -> h.client.connection.offerRequest(buffer, 0, max + 1, new Recorder()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestResponse(Message)");
        assertThatThrownBy(() -> h.client.connection.offerRequest(buffer, 0, 1, null))
            .isInstanceOf(NullPointerException.class);
        final Recorder handler = new Recorder();
        assertThat(h.client.connection.offerRequest(buffer, 0, max, handler)).isPositive();
        h.settle();
        assertThat(handler.calls).singleElement().satisfies(call -> assertThat(call).startsWith("reply 1 "));
    }
}
