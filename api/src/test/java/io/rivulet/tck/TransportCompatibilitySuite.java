package io.rivulet.tck;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.Message;
import io.rivulet.MessageView;
import io.rivulet.ReplyHandler;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.Server;
import io.rivulet.ThreadingMode;
import io.rivulet.spi.Transport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour every transport must show, run by each transport module through a subclass (like
 * rsocket-java's {@code TransportTest}): the four interaction models with metadata, back-pressure
 * across the wire, cancellation, remote errors, fragmentation, many concurrent streams, keepalive
 * and close. Two nodes in one JVM, over the subclass's transport, on loopback.
 */
public abstract class TransportCompatibilitySuite
{
    private static final Duration TIMEOUT = TestTime.seconds(30);

    protected Rivulet serverNode;
    protected Rivulet clientNode;
    protected final List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
    protected final List<Throwable> clientErrors = new CopyOnWriteArrayList<>();

    /** @return the transport under test. */
    protected abstract Transport transport();

    /** @return an address to bind on loopback with an ephemeral port. */
    protected abstract String bindAddress();

    /**
     * Keepalive, scaled like every wait: under a factor the engines run that much slower, so the protocol's timing
     * stretches with them and the silent-peer test still measures detection against the same timeout.
     */
    private static final long KEEPALIVE_INTERVAL_MS = TestTime.millis(100);
    private static final long KEEPALIVE_TIMEOUT_MS = TestTime.millis(3000);

    /** A context for one node of the test, over the transport under test. */
    protected Rivulet.Context context(final List<Throwable> errors)
    {
        return new Rivulet.Context()
            .transport(transport())
            .threadingMode(ThreadingMode.SHARED)
            .maxMessageLength(80 * 1024 * 1024)
            .keepaliveInterval(KEEPALIVE_INTERVAL_MS, TimeUnit.MILLISECONDS)
            // Short enough to keep the silent-peer test quick, long enough for a loaded 2-core CI machine.
            .keepaliveTimeout(KEEPALIVE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .errorHandler(errors::add);
    }

    @BeforeEach
    void launchNodes()
    {
        serverNode = Rivulet.launch(context(serverErrors));
        clientNode = Rivulet.launch(context(clientErrors));
    }

    @AfterEach
    void closeNodes()
    {
        if (clientNode != null)
        {
            clientNode.close();
        }
        if (serverNode != null)
        {
            serverNode.close();
        }
    }

    protected Connection serve(final Responder responder)
    {
        final Server server = serverNode.bind(bindAddress(), responder).block(TIMEOUT);
        return clientNode.connect(server.localAddress()).block(TIMEOUT);
    }

    private static Message echoWithSuffix(final Message request, final String suffix)
    {
        return Message.of(request.dataUtf8() + suffix).metadata(request.metadataUtf8() + suffix);
    }

    @Test
    @ScaledTimeout(60)
    void shouldDeliverFireAndForgetWithMetadata()
    {
        final Sinks.Many<Message> received = Sinks.many().replay().all();
        final Connection connection = serve(Responder.builder()
            .fireAndForget(message -> Mono.fromRunnable(() -> received.tryEmitNext(message)))
            .build());

        connection.fireAndForget(Message.of("event").metadata("meta")).block(TIMEOUT);

        StepVerifier.create(received.asFlux().take(1))
            .assertNext(message ->
            {
                assertThat(message.dataUtf8()).isEqualTo("event");
                assertThat(message.metadataUtf8()).isEqualTo("meta");
            })
            .expectComplete()
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldAnswerRequestResponseWithMetadata()
    {
        final Connection connection = serve(Responder.builder()
            .requestResponse(request -> Mono.just(echoWithSuffix(request, "!")))
            .build());

        StepVerifier.create(connection.requestResponse(Message.of("ping").metadata("trace-1")))
            .assertNext(reply ->
            {
                assertThat(reply.dataUtf8()).isEqualTo("ping!");
                assertThat(reply.metadataUtf8()).isEqualTo("trace-1!");
            })
            .expectComplete()
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCompleteEmptyRequestResponse()
    {
        final Connection connection = serve(Responder.builder().requestResponse(request -> Mono.empty()).build());

        StepVerifier.create(connection.requestResponse(Message.of("nothing")))
            .expectComplete()
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(120)
    void shouldAnswerZeroCopyRequestsInPlaceWithManyInFlight()
    {
        final byte[] large = new byte[300_000]; // many frames on every transport: the reply comes in fragments
        new SplittableRandom(11).nextBytes(large);
        final Connection connection = serve(Responder.builder()
            .requestResponse(request -> Mono.just(request.dataUtf8().equals("large") ? Message.of(large) :
                Message.of(request.dataUtf8() + "!")))
            .build());
        final int requests = 2_000;
        final int window = 64;
        final Map<Long, String> sentById = new ConcurrentHashMap<>();
        final Map<Long, String> repliedById = new ConcurrentHashMap<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final Semaphore inFlight = new Semaphore(window);
        final AtomicReference<byte[]> largeReply = new AtomicReference<>();
        final ReplyHandler handler = new ReplyHandler()
        {
            @Override
            public void onReply(final long requestId, final MessageView reply)
            {
                if (reply.dataLength() == large.length)
                {
                    final byte[] copy = new byte[reply.dataLength()];
                    reply.data().getBytes(0, copy);
                    largeReply.set(copy);
                }
                else
                {
                    repliedById.put(requestId, reply.data().getStringWithoutLengthUtf8(0, reply.dataLength()));
                }
                inFlight.release();
            }

            @Override
            public void onError(final long requestId, final Throwable error)
            {
                errors.add(error);
                inFlight.release();
            }
        };
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        for (int i = 0; i <= requests; i++)
        {
            final String text = i == requests / 2 ? "large" : "request-" + i;
            final int length = buffer.putStringWithoutLengthUtf8(0, text);
            acquire(inFlight, deadlineNs);
            long id;
            while ((id = connection.offerRequest(buffer, 0, length, handler)) == Connection.BACK_PRESSURED)
            {
                assertThat(System.nanoTime() - deadlineNs).as("back-pressured until the deadline").isNegative();
                LockSupport.parkNanos(100_000);
            }
            assertThat(id).as("request %d", i).isPositive();
            sentById.put(id, text);
        }
        acquire(inFlight, deadlineNs, window); // every reply is in

        assertThat(errors).isEmpty();
        assertThat(largeReply.get()).as("the fragmented reply, whole").isEqualTo(large);
        assertThat(repliedById).hasSize(requests);
        repliedById.forEach((id, reply) -> assertThat(reply).isEqualTo(sentById.get(id) + "!"));
        assertThat(clientErrors).isEmpty();
        assertThat(serverErrors).isEmpty();
    }

    @Test
    @ScaledTimeout(120)
    void shouldAnswerRequestsInPlaceOnTheResponder()
    {
        final byte[] large = new byte[300_000];
        new SplittableRandom(13).nextBytes(large);
        final Connection connection = serve(Responder.builder()
            .requestResponseHandler((request, reply) ->
            {
                if (request.dataLength() == large.length)
                {
                    // A request in fragments, seen whole, echoed: a reply in fragments too.
                    final UnsafeBuffer whole = new UnsafeBuffer(new byte[request.dataLength()]);
                    whole.putBytes(0, request.data(), 0, request.dataLength());
                    reply.send(whole, 0, whole.capacity());
                    return;
                }
                final String text = request.data().getStringWithoutLengthUtf8(0, request.dataLength());
                if (text.equals("empty"))
                {
                    reply.sendEmpty();
                    return;
                }
                final UnsafeBuffer out = new UnsafeBuffer(new byte[64]);
                reply.send(out, 0, out.putStringWithoutLengthUtf8(0, text + "!"));
            })
            .build());

        final List<String> replies = Flux.range(0, 500)
            .flatMap(i -> connection.requestResponse(Message.of("request-" + i)).map(Message::dataUtf8), 64)
            .collectList().block(TIMEOUT);
        final Message largeReply = connection.requestResponse(Message.of(large)).block(TIMEOUT);
        final Message empty = connection.requestResponse(Message.of("empty")).block(TIMEOUT);

        assertThat(replies).hasSize(500).allMatch(reply -> reply.startsWith("request-") && reply.endsWith("!"));
        assertThat(largeReply).isNotNull();
        assertThat(largeReply.dataBytes()).isEqualTo(large);
        assertThat(empty).as("completed empty").isNull();
        assertThat(serverErrors).isEmpty();
        assertThat(clientErrors).isEmpty();
    }

    private static void acquire(final Semaphore semaphore, final long deadlineNs)
    {
        acquire(semaphore, deadlineNs, 1);
    }

    private static void acquire(final Semaphore semaphore, final long deadlineNs, final int permits)
    {
        try
        {
            assertThat(semaphore.tryAcquire(permits, Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS))
                .as("replies within %s (%d permits free)", TIMEOUT, semaphore.availablePermits()).isTrue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldStreamWithMetadata()
    {
        final Connection connection = serve(Responder.builder()
            .requestStream(request -> Flux.range(0, 5).map(i -> Message.of(request.dataUtf8() + i).metadata("m" + i)))
            .build());

        StepVerifier.create(connection.requestStream(Message.of("item-").metadata("q")))
            .assertNext(m -> assertThat(m.dataUtf8() + m.metadataUtf8()).isEqualTo("item-0m0"))
            .assertNext(m -> assertThat(m.dataUtf8() + m.metadataUtf8()).isEqualTo("item-1m1"))
            .assertNext(m -> assertThat(m.dataUtf8() + m.metadataUtf8()).isEqualTo("item-2m2"))
            .assertNext(m -> assertThat(m.dataUtf8() + m.metadataUtf8()).isEqualTo("item-3m3"))
            .assertNext(m -> assertThat(m.dataUtf8() + m.metadataUtf8()).isEqualTo("item-4m4"))
            .expectComplete()
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldRunChannelInBothDirections()
    {
        final Connection connection = serve(Responder.builder()
            .requestChannel(inbound -> inbound.map(m -> echoWithSuffix(m, "<")))
            .build());

        final Flux<Message> outbound = Flux.range(0, 100).map(i -> Message.of("c" + i).metadata("k" + i));
        StepVerifier.create(connection.requestChannel(outbound).map(m -> m.dataUtf8() + "/" + m.metadataUtf8()))
            .expectNextSequence(Flux.range(0, 100).map(i -> "c" + i + "</k" + i + "<").toIterable())
            .expectComplete()
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldOpenChannelWithEmptyOutbound()
    {
        final Connection connection = serve(Responder.builder()
            .requestChannel(inbound -> inbound.count().map(n -> Message.of("saw " + n)))
            .build());

        StepVerifier.create(connection.requestChannel(Flux.empty()).map(Message::dataUtf8))
            .expectNext("saw 0")
            .expectComplete()
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldKeepReplyingWhenResponderStopsReadingChannel()
    {
        final Connection connection = serve(Responder.builder()
            .requestChannel(inbound -> inbound.take(3).count()
                .flatMapMany(n -> Flux.range(0, 5).map(i -> Message.of("read " + n + ", reply " + i))))
            .build());
        final CountDownLatch outboundCancelled = new CountDownLatch(1);
        final Flux<Message> endless = Flux.range(0, Integer.MAX_VALUE).map(i -> Message.of("m" + i))
            .doOnCancel(outboundCancelled::countDown);

        StepVerifier.create(connection.requestChannel(endless).map(Message::dataUtf8))
            .expectNext("read 3, reply 0", "read 3, reply 1", "read 3, reply 2", "read 3, reply 3", "read 3, reply 4")
            .expectComplete()
            .verify(TIMEOUT);
        awaitLatch(outboundCancelled, 30);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCancelChannelInboundTheHandlerNeverReads()
    {
        final Connection connection = serve(Responder.builder()
            .requestChannel(inbound -> Flux.just(Message.of("ignored you")))
            .build());
        final CountDownLatch outboundCancelled = new CountDownLatch(1);
        final Flux<Message> endless = Flux.range(0, Integer.MAX_VALUE).map(i -> Message.of("m" + i))
            .doOnCancel(outboundCancelled::countDown);

        StepVerifier.create(connection.requestChannel(endless).map(Message::dataUtf8))
            .expectNext("ignored you")
            .expectComplete()
            .verify(TIMEOUT);
        awaitLatch(outboundCancelled, 30);
    }

    @Test
    @ScaledTimeout(60)
    void shouldCancelBothDirectionsWhenRequesterCancelsChannel()
    {
        final CountDownLatch responderCancelled = new CountDownLatch(1);
        final CountDownLatch responderInboundEnded = new CountDownLatch(1);
        final Connection connection = serve(Responder.builder()
            .requestChannel(inbound ->
            {
                inbound.subscribe(m -> { }, e -> responderInboundEnded.countDown(), responderInboundEnded::countDown);
                return Flux.interval(Duration.ofMillis(1)).onBackpressureDrop().map(i -> Message.of("r" + i))
                    .doOnCancel(responderCancelled::countDown);
            })
            .build());
        final CountDownLatch requesterOutboundCancelled = new CountDownLatch(1);
        final Flux<Message> outbound = Flux.<Message>never().startWith(Message.of("open"))
            .doOnCancel(requesterOutboundCancelled::countDown);

        StepVerifier.create(connection.requestChannel(outbound).take(3))
            .expectNextCount(3)
            .expectComplete()
            .verify(TIMEOUT);

        awaitLatch(responderCancelled, 30);
        awaitLatch(responderInboundEnded, 30);
        awaitLatch(requesterOutboundCancelled, 30);
    }

    @Test
    @ScaledTimeout(120)
    void shouldCarryBackPressureAcrossTheWire()
    {
        final int total = 1_000_000;
        final int batch = 10;
        final AtomicLong emitted = new AtomicLong();
        final AtomicLong upstreamRequested = new AtomicLong();
        final Connection connection = serve(Responder.builder()
            .requestStream(request -> Flux.range(0, total)
                .doOnRequest(upstreamRequested::addAndGet)
                .map(value ->
                {
                    emitted.incrementAndGet();
                    final int i = value;
                    final byte[] bytes = new byte[4];
                    bytes[0] = (byte)i;
                    bytes[1] = (byte)(i >>> 8);
                    bytes[2] = (byte)(i >>> 16);
                    bytes[3] = (byte)(i >>> 24);
                    return Message.of(bytes);
                }))
            .build());

        final AtomicLong maxAhead = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicLong received = new AtomicLong(); // the subscriber's thread writes, a timeout's message reads
        final long[] requested = new long[1];
        connection.requestStream(Message.of("go")).subscribe(new BaseSubscriber<>()
        {
            @Override
            protected void hookOnSubscribe(final Subscription subscription)
            {
                requested[0] = batch;
                request(batch);
            }

            @Override
            protected void hookOnNext(final Message message)
            {
                final byte[] b = message.dataBytes();
                final int value = (b[0] & 0xFF) | (b[1] & 0xFF) << 8 | (b[2] & 0xFF) << 16 | (b[3] & 0xFF) << 24;
                final long expected = received.get();
                if (value != expected)
                {
                    failure.compareAndSet(null, new AssertionError("expected " + expected + " got " + value));
                    cancel();
                    done.countDown();
                    return;
                }
                final long count = expected + 1;
                received.lazySet(count);
                // The producer may run ahead only by the credits granted, which never exceed our demand.
                maxAhead.accumulateAndGet(upstreamRequested.get() - count, Math::max);
                if (count == requested[0])
                {
                    requested[0] += batch;
                    request(batch);
                }
            }

            @Override
            protected void hookOnError(final Throwable throwable)
            {
                failure.set(throwable);
                done.countDown();
            }

            @Override
            protected void hookOnComplete()
            {
                done.countDown();
            }
        });

        awaitLatch(done, 100, () -> ": received " + received.get() + " of " + total + ", producer emitted " +
            emitted.get() + ", asked for " + upstreamRequested.get());
        assertThat(failure.get()).isNull();
        assertThat(received.get()).isEqualTo(total);
        assertThat(emitted.get()).isEqualTo(total);
        assertThat(maxAhead.get()).as("producer demand beyond what the subscriber received").isLessThanOrEqualTo(batch);
    }

    @Test
    @ScaledTimeout(60)
    void shouldPauseProducerWithoutDemand() throws InterruptedException
    {
        final AtomicLong upstreamRequested = new AtomicLong();
        final Connection connection = serve(Responder.builder()
            .requestStream(request -> Flux.range(0, 1000).map(i -> Message.of("x" + i))
                .doOnRequest(upstreamRequested::addAndGet))
            .build());

        final CountDownLatch three = new CountDownLatch(3);
        final BaseSubscriber<Message> subscriber = new BaseSubscriber<>()
        {
            @Override
            protected void hookOnSubscribe(final Subscription subscription)
            {
                request(3);
            }

            @Override
            protected void hookOnNext(final Message value)
            {
                three.countDown();
            }
        };
        connection.requestStream(Message.of("go")).subscribe(subscriber);
        awaitLatch(three, 30);
        // Let more keepalive rounds pass: the producer must still have been asked for 3 only.
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * KEEPALIVE_INTERVAL_MS);
        while (System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
            LockSupport.parkNanos(1_000_000);
        }
        assertThat(upstreamRequested.get()).isEqualTo(3);
        subscriber.dispose();
    }

    @Test
    @ScaledTimeout(60)
    void shouldStopRemoteProducerOnCancel()
    {
        final CountDownLatch producerCancelled = new CountDownLatch(1);
        final Connection connection = serve(Responder.builder()
            .requestStream(request -> Flux.interval(Duration.ofMillis(1)).onBackpressureDrop()
                .map(i -> Message.of("tick" + i))
                .doOnCancel(producerCancelled::countDown))
            .build());

        StepVerifier.create(connection.requestStream(Message.of("ticks")).take(5))
            .expectNextCount(5)
            .expectComplete()
            .verify(TIMEOUT);

        awaitLatch(producerCancelled, 30);
    }

    @Test
    @ScaledTimeout(60)
    void shouldDeliverRemoteErrorWithItsMessage()
    {
        final Connection connection = serve(Responder.builder()
            .requestResponse(request -> Mono.error(new IllegalStateException("pricing engine down")))
            .requestStream(request -> Flux.concat(Flux.just(Message.of("one")),
                Flux.error(new IllegalArgumentException("bad instrument"))))
            .build());

        StepVerifier.create(connection.requestResponse(Message.of("price")))
            .expectErrorSatisfies(error ->
            {
                assertThat(error).isInstanceOf(ApplicationErrorException.class);
                assertThat(error.getMessage()).isEqualTo("pricing engine down");
            })
            .verify(TIMEOUT);

        StepVerifier.create(connection.requestStream(Message.of("stream")))
            .expectNextCount(1)
            .expectErrorSatisfies(error ->
            {
                assertThat(error).isInstanceOf(ApplicationErrorException.class);
                assertThat(error.getMessage()).isEqualTo("bad instrument");
            })
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldRejectRequestWithoutHandler()
    {
        final Connection connection = serve(Responder.builder().build());

        StepVerifier.create(connection.requestStream(Message.of("anyone?")))
            .expectError(RivuletException.class)
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(120)
    void shouldRoundTripA64MiBMessage()
    {
        final Connection connection = serve(Responder.builder()
            .requestResponse(Mono::just)
            .build());
        final byte[] data = new byte[64 * 1024 * 1024];
        new SplittableRandom(42).nextBytes(data);
        final byte[] metadata = new byte[100_000];
        new SplittableRandom(7).nextBytes(metadata);

        final Message reply = connection.requestResponse(Message.of(data).metadata(metadata)).block(TestTime.seconds(90));

        assertThat(reply).isNotNull();
        assertThat(reply.dataLength()).isEqualTo(data.length);
        assertThat(java.util.Arrays.equals(reply.dataBytes(), data)).isTrue();
        assertThat(java.util.Arrays.equals(reply.metadataBytes(), metadata)).isTrue();
    }

    @Test
    @ScaledTimeout(120)
    void shouldCompleteAThousandConcurrentStreams()
    {
        final Connection connection = serve(Responder.builder()
            .requestStream(request ->
            {
                final int id = Integer.parseInt(request.dataUtf8());
                return Flux.range(0, 20).map(i -> Message.of(id + ":" + i));
            })
            .build());

        final List<Mono<List<String>>> streams = new ArrayList<>();
        for (int s = 0; s < 1000; s++)
        {
            streams.add(connection.requestStream(Message.of(Integer.toString(s))).map(Message::dataUtf8).collectList());
        }
        final List<List<String>> results = Flux.merge(Flux.fromIterable(streams).map(Mono::flux), 1000)
            .collectList().block(TestTime.seconds(90));

        assertThat(results).hasSize(1000);
        for (final List<String> result : results)
        {
            assertThat(result).hasSize(20);
            final String id = result.get(0).substring(0, result.get(0).indexOf(':'));
            for (int i = 0; i < 20; i++)
            {
                assertThat(result.get(i)).isEqualTo(id + ":" + i);
            }
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldEndInFlightStreamsWhenConnectionCloses()
    {
        final CountDownLatch bothArrived = new CountDownLatch(2);
        final Connection connection = serve(Responder.builder()
            .requestStream(request -> Flux.<Message>never().doOnSubscribe(s -> bothArrived.countDown()))
            .requestResponse(request -> Mono.<Message>never().doOnSubscribe(s -> bothArrived.countDown()))
            .build());

        final AtomicReference<Throwable> streamError = new AtomicReference<>();
        final AtomicReference<Throwable> responseError = new AtomicReference<>();
        final CountDownLatch ended = new CountDownLatch(2);
        connection.requestStream(Message.of("forever")).subscribe(m -> { }, e ->
        {
            streamError.set(e);
            ended.countDown();
        });
        connection.requestResponse(Message.of("never")).subscribe(m -> { }, e ->
        {
            responseError.set(e);
            ended.countDown();
        });
        awaitLatch(bothArrived, 30);

        connection.close();

        awaitLatch(ended, 30);
        assertThat(streamError.get()).isInstanceOf(ConnectionClosedException.class);
        assertThat(responseError.get()).isInstanceOf(ConnectionClosedException.class);
        StepVerifier.create(connection.onClose()).expectComplete().verify(TIMEOUT);
        assertThat(connection.isOpen()).isFalse();
        StepVerifier.create(connection.requestResponse(Message.of("after close")))
            .expectError(ConnectionClosedException.class)
            .verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldErrorStreamsWhenServerNodeCloses()
    {
        final CountDownLatch arrived = new CountDownLatch(1);
        final Connection connection = serve(Responder.builder()
            .requestStream(request -> Flux.<Message>never().doOnSubscribe(s -> arrived.countDown()))
            .build());
        final AtomicReference<String> nodeEnd = new AtomicReference<>();
        serverNode.onClose().subscribe(null, error -> nodeEnd.set("failed: " + error), () -> nodeEnd.set("closed"));

        StepVerifier.create(connection.requestStream(Message.of("forever")))
            .expectSubscription()
            .then(() ->
            {
                awaitLatch(arrived, 30);
                assertThat(nodeEnd.get()).as("the node's onClose() while it serves").isNull();
                serverNode.close();
                assertThat(nodeEnd.get()).as("the node's onClose() once close() returned").isEqualTo("closed");
            })
            .expectErrorSatisfies(error ->
            {
                assertThat(error).isInstanceOf(ConnectionClosedException.class);
                assertThat(error.getMessage()).contains("node closed");
            })
            .verify(TIMEOUT);
        StepVerifier.create(connection.onClose()).expectComplete().verify(TIMEOUT);
        StepVerifier.create(serverNode.onClose()).as("replayed to a late subscriber").expectComplete().verify(TIMEOUT);
    }

    @Test
    @ScaledTimeout(60)
    void shouldDetectSilentPeerWithinKeepaliveTimeout()
    {
        // A server node driven by this test (INVOKER mode) goes silent when the test stops invoking it.
        final Rivulet silent = Rivulet.launch(context(serverErrors).threadingMode(ThreadingMode.INVOKER));
        try
        {
            final Mono<Server> binding = silent.bind(bindAddress(),
                Responder.builder().requestStream(request -> Flux.never()).build());
            final AtomicReference<Server> server = new AtomicReference<>();
            binding.subscribe(server::set);
            invokeUntil(silent, () -> server.get() != null);

            final AtomicReference<Connection> connection = new AtomicReference<>();
            clientNode.connect(server.get().localAddress()).subscribe(connection::set);
            invokeUntil(silent, () -> connection.get() != null);

            final AtomicReference<Throwable> error = new AtomicReference<>();
            connection.get().requestStream(Message.of("hello")).subscribe(m -> { }, error::set);
            // Let the request reach the server, then stop driving it.
            final long settle = System.nanoTime() + TestTime.nanos(200, TimeUnit.MILLISECONDS);
            invokeUntil(silent, () -> System.nanoTime() - settle > 0);

            final long silentFrom = System.nanoTime();
            final long deadline = silentFrom + TimeUnit.MILLISECONDS.toNanos(KEEPALIVE_TIMEOUT_MS + TestTime.millis(10_000));
            while (error.get() == null && System.nanoTime() - deadline < 0)
            {
                LockSupport.parkNanos(1_000_000);
            }
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentFrom);
            assertThat(error.get()).isInstanceOf(ConnectionLostException.class);
            assertThat(error.get().getMessage()).contains("keepalive");
            // Checked every keepalive interval: detection comes after the timeout less the settle time and one
            // interval, with slack for a busy machine; all of them scaled alike.
            assertThat(detectedMs).isBetween(KEEPALIVE_TIMEOUT_MS - TestTime.millis(300),
                KEEPALIVE_TIMEOUT_MS + TestTime.millis(4000));
        }
        finally
        {
            silent.close();
        }
    }

    @Test
    @ScaledTimeout(60)
    void shouldFailToConnectToClosedPort()
    {
        final Server server = serverNode.bind(bindAddress(), Responder.none()).block(TIMEOUT);
        final String address = server.localAddress();
        server.close();
        StepVerifier.create(server.onClose()).expectComplete().verify(TIMEOUT);

        StepVerifier.create(clientNode.connect(address))
            .expectErrorSatisfies(error ->
            {
                assertThat(error).isInstanceOf(RivuletException.class);
                assertThat(error.getMessage()).contains(address);
            })
            .verify(TIMEOUT);
    }

    protected static void invokeUntil(final Rivulet node, final java.util.function.BooleanSupplier condition)
    {
        Await.until(TestTime.seconds(20), node::invoke, condition::getAsBoolean,
            () -> "the condition, invoking " + node);
    }

    /** Waits for the latch at most {@code seconds} scaled. */
    protected static void awaitLatch(final CountDownLatch latch, final int seconds)
    {
        awaitLatch(latch, seconds, () -> "");
    }

    /** Waits for the latch at most {@code seconds} scaled; a timeout's message ends with where things stood. */
    protected static void awaitLatch(final CountDownLatch latch, final int seconds, final Supplier<String> progress)
    {
        final long timeoutMs = TestTime.millis(seconds, TimeUnit.SECONDS);
        try
        {
            assertThat(latch.await(timeoutMs, TimeUnit.MILLISECONDS))
                .as(() -> "latch within " + timeoutMs + " ms" + progress.get()).isTrue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }
}
