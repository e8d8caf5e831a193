package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import io.rivulet.Responder;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.subscriber.TestSubscriber;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class ProtocolCreditsTest
{
    private final List<Long> producerRequests = new CopyOnWriteArrayList<>();
    private final AtomicInteger produced = new AtomicInteger();

    private Responder counting(final int count)
    {
        return Responder.builder()
            .requestStream(request -> Flux.range(0, count)
                .doOnRequest(producerRequests::add)
                .map(i -> Message.of("m" + i))
                .doOnNext(m -> produced.incrementAndGet()))
            .build();
    }

    private static long sum(final List<Long> values)
    {
        return values.stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void shouldCarryInitialDemandInRequestStreamAndRequestProducerExactlyThat()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(512, 64 * 1024, 16))
            .serverResponder(counting(1000))
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(10).build();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);

        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == 10);

        final List<SentFrame> requests = h.client.sent(FrameType.REQUEST_STREAM);
        assertThat(requests).hasSize(1);
        assertThat(requests.get(0).initialRequestN()).isEqualTo(10);
        assertThat(requests.get(0).streamId()).isEqualTo(1);
        assertThat(producerRequests).containsExactly(10L);

        for (int i = 0; i < 200; i++)
        {
            h.step();
        }
        assertThat(h.client.sent(FrameType.REQUEST_N)).isEmpty();
        assertThat(producerRequests).containsExactly(10L);
        assertThat(produced).hasValue(10);
        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8)
            .containsExactly("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9");
        assertThat(subscriber.isTerminatedOrCancelled()).isFalse();
    }

    @Test
    void shouldSendRequestNForDemandArrivingAfterTheStreamOpened()
    {
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(512, 64 * 1024, 16))
            .serverResponder(counting(1000))
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(0).build();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);
        h.settle();

        assertThat(h.client.sent(FrameType.REQUEST_STREAM)).singleElement()
            .satisfies(frame -> assertThat(frame.initialRequestN()).isZero());
        assertThat(producerRequests).isEmpty();
        assertThat(h.server.streamCount()).isEqualTo(1);

        subscriber.request(10);
        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == 10);
        h.steps(100);

        assertThat(h.client.sent(FrameType.REQUEST_N)).extracting(SentFrame::requestN).containsExactly(10);
        assertThat(producerRequests).containsExactly(10L);
        assertThat(produced).hasValue(10);
        assertThat(subscriber.getReceivedOnNext()).hasSize(10);
    }

    @Test
    void shouldGrantOneWindowForUnboundedDemandAndReplenishInHalfWindows()
    {
        final int window = 8;
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(512, 64 * 1024, window))
            .serverResponder(counting(100))
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequestUnbounded().build();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);

        h.stepUntil(subscriber::isTerminated);

        assertThat(subscriber.isTerminatedComplete()).isTrue();
        assertThat(subscriber.getReceivedOnNext()).hasSize(100);
        for (int i = 0; i < 100; i++)
        {
            assertThat(subscriber.getReceivedOnNext().get(i).dataUtf8()).isEqualTo("m" + i);
        }
        assertThat(h.client.sent(FrameType.REQUEST_STREAM)).singleElement()
            .satisfies(frame -> assertThat(frame.initialRequestN()).isEqualTo(window));
        assertThat(h.client.sent(FrameType.REQUEST_N)).isNotEmpty()
            .allSatisfy(frame -> assertThat(frame.requestN()).isEqualTo(window / 2));
        assertThat(producerRequests.get(0)).isEqualTo(window);
        assertThat(producerRequests.subList(1, producerRequests.size())).containsOnly((long)window / 2);
        // Never more than one window ahead of what was delivered.
        assertThat(sum(producerRequests)).isLessThanOrEqualTo(100 + window);
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }

    @Test
    void shouldTopUpABoundedSubscriberBeforeItsCreditsRunOut()
    {
        // A subscriber that keeps 64 asked for and tops up by 32 (as an actor channel does), on a stream window of 256:
        // its top-up must reach the producer while 32 credits are still outstanding. Granted only once they were all
        // used (the half-window rule measured against the window, 128, not against the 64 wanted), the producer stopped
        // and waited a round trip per 64 messages, long enough under emulation for an actor's sender to time out.
        final int window = 256;
        final int wanted = 64;
        final int topUp = wanted / 2;
        final reactor.core.publisher.Sinks.Many<Message> source =
            reactor.core.publisher.Sinks.many().unicast().onBackpressureBuffer();
        final ProtocolHarness h = ProtocolHarness.builder()
            .settings(ProtocolHarness.settings(512, 64 * 1024, window))
            .serverResponder(Responder.builder()
                .requestStream(request -> source.asFlux().doOnRequest(producerRequests::add))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(wanted).build();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);
        h.stepUntil(() -> h.server.streamCount() == 1);
        assertThat(h.client.sent(FrameType.REQUEST_STREAM)).singleElement()
            .satisfies(frame -> assertThat(frame.initialRequestN()).isEqualTo(wanted));

        for (int i = 0; i < topUp; i++)
        {
            source.tryEmitNext(Message.of("m" + i));
        }
        h.stepUntil(() -> subscriber.getReceivedOnNext().size() == topUp);
        subscriber.request(topUp);
        h.steps(100);

        assertThat(h.client.sent(FrameType.REQUEST_N)).as("the top-up while %d credits are outstanding", wanted - topUp)
            .extracting(SentFrame::requestN).containsExactly(topUp);
        assertThat(producerRequests).containsExactly((long)wanted, (long)topUp);

        // The producer goes on without waiting for the subscriber to run dry, and never gets more than it wants.
        for (int i = topUp; i < 4 * wanted; i++)
        {
            source.tryEmitNext(Message.of("m" + i));
        }
        for (int round = 0; round < 5 && subscriber.getReceivedOnNext().size() < 4 * wanted; round++)
        {
            final int received = subscriber.getReceivedOnNext().size();
            h.stepUntil(() -> subscriber.getReceivedOnNext().size() >= Math.min(4 * wanted, received + topUp));
            subscriber.request(topUp);
        }
        h.steps(100);
        assertThat(subscriber.getReceivedOnNext()).hasSize(4 * wanted);
        for (int i = 0; i < 4 * wanted; i++)
        {
            assertThat(subscriber.getReceivedOnNext().get(i).dataUtf8()).isEqualTo("m" + i);
        }
        assertThat(h.client.sent(FrameType.REQUEST_N)).extracting(SentFrame::requestN).containsOnly(topUp);
        assertThat(sum(producerRequests)).isLessThanOrEqualTo((long)subscriber.getReceivedOnNext().size() + wanted);
    }

    @Test
    void shouldCloseWithConnectionErrorWhenPeerSendsBeyondCredits()
    {
        final AtomicBoolean producerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.<Message>never().doOnCancel(() -> producerCancelled.set(true)))
                .build())
            .build();
        final TestSubscriber<Message> subscriber = TestSubscriber.builder().initialRequest(2).build();
        h.client.connection.requestStream(Message.of("go")).subscribe(subscriber);
        h.stepUntil(() -> h.server.streamCount() == 1);
        assertThat(h.client.sent(FrameType.REQUEST_STREAM).get(0).initialRequestN()).isEqualTo(2);

        // A hostile server: three messages against two credits.
        for (int i = 0; i < 3; i++)
        {
            h.client.link.inject(ProtocolHarness.payloadFrame(1, FrameFlags.NEXT, ("x" + i).getBytes()));
        }
        h.stepUntil(() -> h.client.connection.isFinished() && h.server.connection.isFinished());

        assertThat(subscriber.getReceivedOnNext()).extracting(Message::dataUtf8).containsExactly("x0", "x1");
        assertThat(subscriber.expectTerminalError()).isInstanceOf(ProtocolViolationException.class)
            .hasMessageContaining("beyond the credits");
        assertThat(h.client.connectionErrors(ErrorCode.CONNECTION_ERROR)).hasSize(1);
        assertThat(h.client.connection.isOpen()).isFalse();
        assertThat(h.client.link.isClosed()).isTrue();
        assertThat(h.client.errors).singleElement().isInstanceOf(ProtocolViolationException.class);
        assertThat(h.client.counters.protocolErrors.get()).isEqualTo(1);
        assertThat(h.server.connection.isOpen()).isFalse();
        assertThat(producerCancelled).isTrue();

        final TestSubscriber<Void> closed = TestSubscriber.create();
        h.client.connection.onClose().subscribe(closed);
        assertThat(closed.expectTerminalError()).isInstanceOf(ProtocolViolationException.class);
    }

    @Test
    void shouldFailTheSubscriberAndCancelTheStreamOnANonPositiveRequest()
    {
        final AtomicBoolean producerCancelled = new AtomicBoolean();
        final ProtocolHarness h = ProtocolHarness.builder()
            .serverResponder(Responder.builder()
                .requestStream(request -> Flux.<Message>never().doOnCancel(() -> producerCancelled.set(true)))
                .build())
            .build();
        final java.util.concurrent.atomic.AtomicReference<org.reactivestreams.Subscription> subscription =
            new java.util.concurrent.atomic.AtomicReference<>();
        final java.util.concurrent.atomic.AtomicReference<Throwable> error =
            new java.util.concurrent.atomic.AtomicReference<>();
        h.client.connection.requestStream(Message.of("go")).subscribe(new org.reactivestreams.Subscriber<>()
        {
            public void onSubscribe(final org.reactivestreams.Subscription s)
            {
                subscription.set(s);
                s.request(1);
            }

            public void onNext(final Message message)
            {
            }

            public void onError(final Throwable t)
            {
                error.set(t);
            }

            public void onComplete()
            {
            }
        });
        h.stepUntil(() -> h.server.streamCount() == 1);

        subscription.get().request(0);
        h.stepUntil(producerCancelled::get);

        assertThat(error.get()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3.9");
        assertThat(h.client.sent(FrameType.CANCEL)).hasSize(1);
        h.settle();
        assertThat(h.client.streamCount()).isZero();
        assertThat(h.server.streamCount()).isZero();
    }
}
