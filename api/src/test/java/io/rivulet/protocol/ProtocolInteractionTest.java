package io.rivulet.protocol;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Message;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.codec.FrameType;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.subscriber.TestSubscriber;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class ProtocolInteractionTest
{
    private final AtomicBoolean producerCancelled = new AtomicBoolean();
    private final AtomicInteger produced = new AtomicInteger();
    private final List<Long> clientProducerRequests = new CopyOnWriteArrayList<>();
    private final List<Long> serverProducerRequests = new CopyOnWriteArrayList<>();

    @Test
    void shouldCancelTheRespondersProducerAndForgetTheStreamOnBothSides()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.range(0, 1000)
                    .doOnCancel(() -> producerCancelled.set(true))
                    .map(i -> Message.of("m" + i))
                    .doOnNext(m -> produced.incrementAndGet()))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(5).build();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);
        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == 5);
        assertThat(h.client.streamCount()).isEqualTo(1);
        assertThat(h.server.streamCount()).isEqualTo(1);

        subscriber.cancel();
        h.stepUntil(producerCancelled::get);
        h.settle();

        assertThat(h.client.sent(FrameType.CANCEL)).singleElement()
            .satisfies(frame -> assertThat(frame.streamId()).isEqualTo(1));
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
        final int serverFrames = h.server.sentOnStream(1).size();
        final int clientFrames = h.client.sentOnStream(1).size();

        subscriber.request(100); // after cancel: a no-op
        for (int i = 0; i < 20; i++)
        {
            h.advance(ProtocolHarness.INTERVAL_NS);
        }
        assertThat(h.server.sentOnStream(1)).hasSize(serverFrames);
        assertThat(h.client.sentOnStream(1)).hasSize(clientFrames);
        assertThat(produced).hasValue(5);
        assertThat(subscriber.getReceivedOnNext()).hasSize(5);
        assertThat(h.client.connection.isOpen()).isTrue();
    }

    @Test
    void shouldIgnoreFramesInFlightForAStreamCancelledWhileCreditsWereOutstanding()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.range(0, 1000).map(i -> Message.of("m" + i)))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(8).build();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);
        h.stepUntil(() -> !h.server.sent(FrameType.PAYLOAD).isEmpty());
        subscriber.cancel(); // the server's 8 messages are already on their way

        h.settle();
        for (int i = 0; i < 10; i++)
        {
            h.advance(ProtocolHarness.INTERVAL_NS);
        }
        assertThat(h.client.connection.isOpen()).isTrue();
        assertThat(h.client.errors).isEmpty();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
        assertThat(subscriber.getReceivedOnNext().size()).isLessThanOrEqualTo(8);
    }

    @Test
    void shouldFlowBothWaysOnAChannelWithCreditsInEachDirection()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound -> inbound
                    .map(m -> Message.of("echo " + m.dataUtf8()))
                    .doOnRequest(serverProducerRequests::add))
                .build())
            .build();
        final Flux<Message> outbound = Flux.range(0, 20)
            .doOnRequest(clientProducerRequests::add)
            .map(i -> Message.of("c" + i));
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(5).build();
        h.client.connection.requestChannel(outbound).subscribe(subscriber);

        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == 5);
        h.steps(100);

        // The client asked for 5 replies: the server's echo asked for 5 messages, the client's producer
        // was asked for the opening one plus the 4 credits the server granted.
        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8)
            .containsExactly("echo c0", "echo c1", "echo c2", "echo c3", "echo c4");
        assertThat(serverProducerRequests.stream().mapToLong(Long::longValue).sum()).isEqualTo(5);
        assertThat(clientProducerRequests.stream().mapToLong(Long::longValue).sum()).isEqualTo(5);
        final SentFrame opening = h.client.sent(FrameType.REQUEST_CHANNEL).get(0);
        assertThat(opening.initialRequestN()).isEqualTo(5);
        assertThat(opening.data()).isEqualTo("c0".getBytes());
        assertThat(h.server.sent(FrameType.REQUEST_N)).extracting(SentFrame::requestN).containsExactly(4);

        subscriber.request(Long.MAX_VALUE);
        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).hasSize(20);
        for (int i = 0; i < 20; i++)
        {
            assertThat(subscriber.getReceivedOnNext().get(i).dataUtf8()).isEqualTo("echo c" + i);
        }
        h.settle();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldOpenAChannelWhoseOutboundSideIsEmpty()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound -> inbound.count().map(n -> Message.of("count " + n)))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestChannel(Flux.empty()).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8).containsExactly("count 0");
    }

    @Test
    void shouldCancelTheClientsChannelProducerWhenTheServerCancels()
    {
        final AtomicBoolean clientProducerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound -> inbound.take(3).map(m -> Message.of("got " + m.dataUtf8())))
                .build())
            .build();
        final Flux<Message> outbound = Flux.range(0, 1000)
            .doOnCancel(() -> clientProducerCancelled.set(true))
            .map(i -> Message.of("c" + i));
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestChannel(outbound).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);
        h.settle();

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8)
            .containsExactly("got c0", "got c1", "got c2");
        assertThat(clientProducerCancelled).isTrue();
        assertThat(h.server.sent(FrameType.CANCEL)).hasSize(1);
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldKeepTheRespondersOutputWhenItStopsReadingTheChannel()
    {
        // A common responder shape: read the first message, then stream. Cancelling the inbound half
        // (next() does) must stop only the requester's producer, not the responder's own output.
        final AtomicBoolean clientProducerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound -> inbound.next()
                    .flatMapMany(first -> Flux.range(0, 5).map(i -> Message.of(first.dataUtf8() + " " + i))))
                .build())
            .build();
        final Flux<Message> outbound = Flux.range(0, 1000)
            .doOnCancel(() -> clientProducerCancelled.set(true))
            .map(i -> Message.of("c" + i));
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(2).build();
        h.client.connection.requestChannel(outbound).subscribe(subscriber);

        // The responder's output outlives its inbound half: it waits for credits, and gets them.
        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == 2);
        h.steps(50);
        assertThat(subscriber.isTerminated()).isFalse();
        subscriber.request(10);
        h.stepUntil(subscriber::isTerminated);
        h.settle();

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8)
            .containsExactly("c0 0", "c0 1", "c0 2", "c0 3", "c0 4");
        assertThat(clientProducerCancelled).isTrue();
        assertThat(h.server.sent(FrameType.CANCEL)).hasSize(1);
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldSendCancelWhenTheResponderStopsReadingAndFinishesInTheSameCycle()
    {
        // next() cancels the inbound half while the conductor delivers the opening message, and the
        // responder's whole output fits the credits: the stream is done before the cancel is acted on.
        final AtomicBoolean clientProducerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound -> inbound.next().map(first -> Message.of("got " + first.dataUtf8())))
                .build())
            .build();
        final Flux<Message> outbound = Flux.range(0, 1000)
            .doOnCancel(() -> clientProducerCancelled.set(true))
            .map(i -> Message.of("c" + i));
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestChannel(outbound).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);
        h.settle();

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8).containsExactly("got c0");
        assertThat(h.server.sent(FrameType.CANCEL)).hasSize(1);
        assertThat(clientProducerCancelled).isTrue();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldCancelBothHalvesWhenTheRequesterCancelsAChannel()
    {
        final AtomicBoolean clientProducerCancelled = new AtomicBoolean();
        final AtomicBoolean serverProducerCancelled = new AtomicBoolean();
        final AtomicBoolean serverInboundEnded = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound ->
                {
                    inbound.subscribe(m -> { }, e -> serverInboundEnded.set(true), () -> serverInboundEnded.set(true));
                    return Flux.range(0, 1000).map(i -> Message.of("s" + i))
                        .doOnCancel(() -> serverProducerCancelled.set(true));
                })
                .build())
            .build();
        final Flux<Message> outbound = Flux.<Message>never()
            .startWith(Message.of("open"))
            .doOnCancel(() -> clientProducerCancelled.set(true));
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(2).build();
        h.client.connection.requestChannel(outbound).subscribe(subscriber);
        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == 2);

        subscriber.cancel();
        h.stepUntil(serverProducerCancelled::get);
        h.settle();

        assertThat(clientProducerCancelled).isTrue();
        assertThat(serverInboundEnded).isTrue();
        assertThat(h.client.sent(FrameType.CANCEL)).hasSize(1);
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldCompleteARequestResponseWithoutAValueWhenTheResponderIsEmpty()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder().requestResponse(request -> Mono.empty()).build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("q")).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).isEmpty();
        h.settle();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldPassAnApplicationErrorToTheRequester()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.concat(Flux.just(Message.of("one")),
                    Flux.error(new IllegalStateException("boom"))))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("q")).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8).containsExactly("one");
        assertThat(subscriber.expectTerminalError()).isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("boom");
        h.settle();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
        assertThat(h.client.connection.isOpen()).isTrue();
    }

    @Test
    void shouldRejectARequestWithoutAHandler()
    {
        final ProtocolHarness h = ProtocolHarness.builder().build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("q")).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.expectTerminalError()).isInstanceOf(RejectedException.class);
        assertThat(h.client.connection.isOpen()).isTrue();
        h.settle();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldCancelARequestResponseInFlight()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestResponse(request -> Mono.<Message>never().doOnCancel(() -> producerCancelled.set(true)))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestResponse(Message.of("q")).subscribe(subscriber);
        h.stepUntil(() -> h.server.streamCount() == 1);

        subscriber.cancel();
        h.stepUntil(producerCancelled::get);
        h.settle();

        assertThat(h.client.sent(FrameType.CANCEL)).hasSize(1);
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
        assertThat(subscriber.isTerminated()).isFalse();
    }

    @Test
    void shouldSendNothingForARequestCancelledBeforeItOpened()
    {
        final AtomicBoolean channelProducerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.just(Message.of("s")))
                .requestChannel(inbound -> inbound)
                .build())
            .build();
        final TestSubscriber<Message> stream = TestSubscriber.create();
        h.client.connection.requestStream(Message.of("q")).subscribe(stream);
        final TestSubscriber<Message> channel = TestSubscriber.create();
        h.client.connection.requestChannel(Flux.<Message>never().startWith(Message.of("c"))
            .doOnCancel(() -> channelProducerCancelled.set(true))).subscribe(channel);
        stream.cancel();
        channel.cancel();
        h.settle();

        assertThat(h.client.sent(frame -> frame.type() != FrameType.SETUP)).isEmpty();
        assertThat(channelProducerCancelled).isTrue();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
        assertThat(stream.getReceivedOnNext()).isEmpty();
    }
}
