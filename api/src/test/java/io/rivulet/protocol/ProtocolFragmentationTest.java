package io.rivulet.protocol;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Message;
import io.rivulet.MessageTooLargeException;
import io.rivulet.ProtocolViolationException;
import io.rivulet.Responder;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.subscriber.TestSubscriber;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProtocolFragmentationTest
{
    private static final int MAX_FRAME = 256;
    private static final int MAX_MESSAGE = 16 * 1024;

    private static byte[] bytes(final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static int expectedFrames(final int firstType, final int total)
    {
        final int first = MAX_FRAME - FrameWriter.payloadFrameOverhead(firstType);
        final int next = MAX_FRAME - FrameWriter.payloadFrameOverhead(FrameType.PAYLOAD);
        return total <= first ? 1 : 1 + (total - first + next - 1) / next;
    }

    /** Checks one fragmented message: frame types, flags, sizes, metadata before data, and the bytes. */
    private static void assertFragments(
        final List<SentFrame> frames, final int firstType, final byte lastFlags, final Message message)
    {
        final int total = message.metadataLength() + message.dataLength();
        assertThat(frames).hasSize(expectedFrames(firstType, total));
        final ByteArrayOutputStream metadata = new ByteArrayOutputStream();
        final ByteArrayOutputStream data = new ByteArrayOutputStream();
        boolean dataStarted = false;
        for (int i = 0; i < frames.size(); i++)
        {
            final SentFrame frame = frames.get(i);
            final boolean last = i == frames.size() - 1;
            assertThat(frame.length()).isLessThanOrEqualTo(MAX_FRAME);
            assertThat(frame.type()).isEqualTo(i == 0 ? firstType : FrameType.PAYLOAD);
            assertThat(frame.flags()).as("flags of fragment %d", i).isEqualTo(last ? lastFlags : FrameFlags.FOLLOWS);
            if (!last)
            {
                assertThat(frame.length()).as("a fragment that is not the last fills its frame").isEqualTo(MAX_FRAME);
            }
            if (dataStarted)
            {
                assertThat(frame.metadata()).as("metadata after data in fragment %d", i).isEmpty();
            }
            dataStarted |= frame.data().length > 0;
            metadata.writeBytes(frame.metadata());
            data.writeBytes(frame.data());
        }
        assertThat(metadata.toByteArray()).isEqualTo(message.metadataBytes());
        assertThat(data.toByteArray()).isEqualTo(message.dataBytes());
    }

    private static List<SentFrame> payloadFramesOf(final ProtocolHarness.Side side, final int streamId)
    {
        return side.sent(frame -> frame.streamId() == streamId && FrameType.carriesPayload(frame.type()));
    }

    @Test
    void shouldFragmentAndReassembleALargeRequestAndResponse()
    {
        final Message request = Message.of(bytes(10_000, 1)).metadata(bytes(1_000, 2));
        final List<Message> seenByServer = new ArrayList<>();
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .ringLength(4096)
            .serverResponder(Responder.builder()
                .requestResponse(message ->
                {
                    seenByServer.add(message);
                    return Mono.just(message);
                })
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestResponse(request).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).containsExactly(request);
        assertThat(seenByServer).containsExactly(request);
        assertFragments(payloadFramesOf(h.client, 1), FrameType.REQUEST_RESPONSE, FrameFlags.NEXT, request);
        assertFragments(payloadFramesOf(h.server, 1), FrameType.PAYLOAD,
            (byte)(FrameFlags.NEXT | FrameFlags.COMPLETE), request);
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldHonourTheCreditsOfAFragmentedRequestStream()
    {
        final Message request = Message.of(bytes(2_000, 3)).metadata(bytes(300, 4));
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .ringLength(4096)
            .serverResponder(Responder.builder()
                .requestStream(message -> Flux.range(0, 5).map(i -> message))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(3).build();
        h.client.connection.requestStream(request).subscribe(subscriber);

        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == 3);
        h.steps(50);

        final List<SentFrame> requestFrames = payloadFramesOf(h.client, 1);
        assertFragments(requestFrames, FrameType.REQUEST_STREAM, FrameFlags.NEXT, request);
        assertThat(requestFrames.get(0).initialRequestN()).isEqualTo(3);
        assertThat(subscriber.getReceivedOnNext()).hasSize(3).containsOnly(request);
        assertThat(subscriber.isTerminated()).isFalse();

        subscriber.request(10);
        h.stepUntil(subscriber::isTerminated);
        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).hasSize(5).containsOnly(request);
    }

    @Test
    void shouldFragmentAndReassembleAFireAndForget()
    {
        final Message event = Message.of(bytes(3_000, 5)).metadata(bytes(10, 6));
        final List<Message> received = new ArrayList<>();
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .ringLength(4096)
            .serverResponder(Responder.builder()
                .fireAndForget(message ->
                {
                    received.add(message);
                    return Mono.empty();
                })
                .build())
            .build();
        final TestSubscriber<Void> sent = TestSubscriber.create();
        h.client.connection.fireAndForget(event).subscribe(sent);
        h.client.connection.fireAndForget(Message.of("small")).subscribe();

        h.stepUntil(() -> received.size() == 2);
        h.settle();

        assertThat(sent.isTerminatedComplete()).isTrue();
        // Separate fire-and-forgets are separate streams: the small one goes straight to the ring while the
        // fragmented one waits for a stream id from the conductor, so their order is not kept.
        assertThat(received).containsExactlyInAnyOrder(event, Message.of("small"));
        final int fragmentedStream = h.client.sent(FrameType.REQUEST_FNF).stream()
            .filter(frame -> frame.streamId() != 0).findFirst().orElseThrow().streamId();
        assertFragments(payloadFramesOf(h.client, fragmentedStream), FrameType.REQUEST_FNF, FrameFlags.NEXT, event);
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldShowTheZeroCopyHandlerOnlyItsOwnBytesWhenReassemblyBuffersAreReused()
    {
        final List<Message> received = new ArrayList<>();
        final List<String> stale = new ArrayList<>();
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .ringLength(4096)
            .serverResponder(Responder.builder()
                .fireAndForgetHandler(view ->
                {
                    received.add(view.toMessage());
                    // Past the view's length, the array it reads holds nothing of an earlier message.
                    final byte[] array = view.data().byteArray();
                    for (int i = view.dataLength(); i < array.length; i++)
                    {
                        if (array[i] != 0)
                        {
                            stale.add("byte " + i + " of " + array.length);
                            break;
                        }
                    }
                })
                .build())
            .build();
        final byte[] secret = new byte[3_000];
        Arrays.fill(secret, (byte)0x5A);
        final Message first = Message.of(secret).metadata(secret.clone());
        final Message second = Message.of(bytes(2_100, 13)).metadata(bytes(5, 14));

        h.client.connection.fireAndForget(first).subscribe();
        h.stepUntil(() -> received.size() == 1);
        h.settle();
        assertThat(h.server.reassemblies.idle()).as("the first message's buffers are spare").isPositive();
        h.client.connection.fireAndForget(second).subscribe();
        h.stepUntil(() -> received.size() == 2);

        assertThat(received).containsExactly(first, second);
        assertThat(stale).isEmpty();
    }

    @Test
    void shouldLimitFramesToTheClientsSmallerMaximum()
    {
        final Message reply = Message.of(bytes(2_000, 7));
        final ProtocolHarness h = ProtocolHarness.builder()
            .clientSettings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .serverSettings(ProtocolHarness.settings(1024, MAX_MESSAGE, 8))
            .serverResponder(Responder.builder().requestResponse(message -> Mono.just(reply)).build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("q")).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.getReceivedOnNext()).containsExactly(reply);
        assertFragments(payloadFramesOf(h.server, 1), FrameType.PAYLOAD,
            (byte)(FrameFlags.NEXT | FrameFlags.COMPLETE), reply);
    }

    @Test
    void shouldRefuseToSendAMessageOverTheMaximumLength()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .ringLength(4096)
            .build();
        final Message tooLarge = Message.of(bytes(MAX_MESSAGE - 10, 8)).metadata(bytes(11, 9));

        final TestSubscriber<Message> response = TestSubscriber.create();
        h.client.connection.requestResponse(tooLarge).subscribe(response);
        final TestSubscriber<Message> stream = TestSubscriber.create();
        h.client.connection.requestStream(tooLarge).subscribe(stream);
        final TestSubscriber<Void> fnf = TestSubscriber.create();
        h.client.connection.fireAndForget(tooLarge).subscribe(fnf);
        final TestSubscriber<Message> channel = TestSubscriber.create();
        h.client.connection.requestChannel(Flux.just(tooLarge)).subscribe(channel);
        h.settle();

        assertThat(response.expectTerminalError()).isInstanceOf(MessageTooLargeException.class);
        assertThat(stream.expectTerminalError()).isInstanceOf(MessageTooLargeException.class);
        assertThat(fnf.expectTerminalError()).isInstanceOf(MessageTooLargeException.class);
        assertThat(channel.expectTerminalError()).isInstanceOf(MessageTooLargeException.class);
        assertThat(h.client.sent(frame -> FrameType.carriesPayload(frame.type()))).isEmpty();
        assertThatThrownBy(() -> h.client.connection.offer(
            new org.agrona.concurrent.UnsafeBuffer(new byte[MAX_FRAME]), 0, MAX_FRAME))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(h.client.connection.isOpen()).isTrue();
        assertThat(h.server.connection.isOpen()).isTrue();
    }

    @Test
    void shouldFailTheStreamWhenAResponderEmitsAMessageOverTheMaximumLength()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .ringLength(4096)
            .serverResponder(Responder.builder()
                .requestResponse(message -> Mono.just(Message.of(new byte[MAX_MESSAGE + 1])))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("q")).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.expectTerminalError()).isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("exceeds the maximum");
        assertThat(h.server.sent(FrameType.PAYLOAD)).isEmpty();
        assertThat(h.client.connection.isOpen()).isTrue();
        h.settle();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldCloseWithProtocolErrorWhenAPeerReassemblesBeyondTheMaximumLength()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8))
            .ringLength(4096)
            .serverResponder(Responder.builder().requestStream(message -> Flux.just(message)).build())
            .sendSetup(false)
            .build();
        final InMemoryLink serverLink = h.server.link;
        serverLink.inject(ProtocolHarness.validSetupFrame(ProtocolHarness.settings(MAX_FRAME, MAX_MESSAGE, 8)));
        final byte[] chunk = bytes(200, 10);
        serverLink.inject(ProtocolHarness.payloadFrame(FrameType.REQUEST_STREAM, 1, 8, FrameFlags.FOLLOWS,
            new byte[0], chunk));
        final int fragments = MAX_MESSAGE / chunk.length + 5;
        for (int i = 0; i < fragments; i++)
        {
            serverLink.inject(ProtocolHarness.payloadFrame(1, FrameFlags.FOLLOWS, chunk));
        }

        h.stepUntil(() -> h.server.connection.isFinished());

        assertThat(h.server.connectionErrors(ErrorCode.CONNECTION_ERROR)).singleElement()
            .satisfies(frame -> assertThat(frame.text()).contains("exceeds the maximum message length"));
        assertThat(h.server.errors).singleElement().isInstanceOf(ProtocolViolationException.class);
        assertThat(h.server.counters.protocolErrors.get()).isEqualTo(1);
        assertThat(h.server.link.isClosed()).isTrue();
        assertThat(h.server.sent(FrameType.PAYLOAD)).isEmpty();
        final TestSubscriber<Void> closed = TestSubscriber.create();
        h.server.connection.onClose().subscribe(closed);
        assertThat(closed.expectTerminalError()).isInstanceOf(ProtocolViolationException.class);
    }
}
