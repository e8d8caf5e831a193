package io.rivulet.protocol;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Message;
import io.rivulet.Responder;
import io.rivulet.codec.FrameType;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.subscriber.TestSubscriber;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** An ERROR ends a channel in both directions, on both sides, whichever side's producer failed. */
class ProtocolChannelErrorTest
{
    @Test
    void shouldEndTheRequestersChannelWhenItsOwnOutboundFails()
    {
        final AtomicReference<Throwable> serverInboundError = new AtomicReference<>();
        final AtomicBoolean serverProducerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound ->
                {
                    inbound.subscribe(m -> { }, serverInboundError::set);
                    return Flux.<Message>never().doOnCancel(() -> serverProducerCancelled.set(true));
                })
                .build())
            .build();
        final Flux<Message> outbound = Flux.concat(Flux.just(Message.of("a"), Message.of("b")),
            Flux.error(new IllegalStateException("outbound broke")));
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestChannel(outbound).subscribe(subscriber);

        h.stepUntil(() -> serverInboundError.get() != null);
        h.stepUntil(subscriber::isTerminated);
        h.settle();

        assertThat(h.client.sent(FrameType.ERROR)).singleElement()
            .satisfies(frame -> assertThat(frame.streamId()).isEqualTo(1));
        assertThat(serverInboundError.get()).isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("outbound broke");
        assertThat(serverProducerCancelled).isTrue();
        assertThat(subscriber.expectTerminalError()).hasMessageContaining("outbound broke");
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldEndTheRespondersInboundWhenItsOutboundFails()
    {
        final AtomicReference<Throwable> serverInboundError = new AtomicReference<>();
        final AtomicBoolean clientProducerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound ->
                {
                    inbound.subscribe(m -> { }, serverInboundError::set);
                    return Flux.concat(Flux.just(Message.of("r")),
                        Flux.error(new IllegalStateException("reply broke")));
                })
                .build())
            .build();
        final Flux<Message> outbound = Flux.<Message>never().startWith(Message.of("open"))
            .doOnCancel(() -> clientProducerCancelled.set(true));
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestChannel(outbound).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);
        h.settle();

        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8).containsExactly("r");
        assertThat(subscriber.expectTerminalError()).isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("reply broke");
        assertThat(clientProducerCancelled).isTrue();
        assertThat(serverInboundError.get()).as("the responder's inbound half ended").isNotNull();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldFailAChannelLocallyWhenItsOutboundFailsBeforeTheFirstMessage()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder().requestChannel(inbound -> inbound).build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestChannel(Flux.error(new IllegalStateException("no start"))).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);
        h.settle();

        assertThat(subscriber.expectTerminalError()).hasMessageContaining("no start");
        assertThat(h.client.sent(frame -> frame.type() != FrameType.SETUP)).isEmpty();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldEndTheChannelWhenItsOutboundFailsRightAfterTheFirstMessage()
    {
        // The error arrives before the conductor has opened the channel: REQUEST_CHANNEL and ERROR go together.
        final AtomicReference<Throwable> serverInboundError = new AtomicReference<>();
        final java.util.List<String> serverReceived = new java.util.concurrent.CopyOnWriteArrayList<>();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestChannel(inbound ->
                {
                    inbound.subscribe(m -> serverReceived.add(m.dataUtf8()), serverInboundError::set);
                    return Flux.<Message>never();
                })
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.create();
        h.client.connection.requestChannel(Flux.concat(Flux.just(Message.of("a")),
            Flux.error(new IllegalStateException("early break")))).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);
        h.stepUntil(() -> serverInboundError.get() != null);
        h.settle();

        assertThat(h.client.sent(frame -> frame.type() != FrameType.SETUP)).extracting(SentFrame::type)
            .containsExactly(FrameType.REQUEST_CHANNEL, FrameType.ERROR);
        assertThat(subscriber.expectTerminalError()).hasMessageContaining("early break");
        assertThat(serverReceived).containsExactly("a");
        assertThat(serverInboundError.get()).isInstanceOf(ApplicationErrorException.class);
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }
}
