package io.rivulet.micrometer.observation;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.rivulet.ApplicationErrorException;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.Responder;
import io.rivulet.Rivulet;
import io.rivulet.Server;
import io.rivulet.route.Router;
import io.rivulet.Transports;
import io.rivulet.tck.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two nodes on loopback, both with {@link RivuletObservations#interceptor}, over one observation registry that
 * has Micrometer's meter handler and OpenTelemetry's tracer (W3C propagation, spans kept in memory): every model's
 * request is timed on both sides with its tags, and its trace id crosses the wire in the request's metadata.
 */
class RivuletObservationsTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration BLOCK = Duration.ofSeconds(10);

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final SdkTracerProvider tracerProvider = SdkTracerProvider.builder()
        .setSampler(Sampler.alwaysOn())
        .addSpanProcessor(SimpleSpanProcessor.create(spans))
        .build();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ObservationRegistry observations = ObservationRegistry.create();
    /** What the server's handlers received, as they received it. */
    private final List<Message> received = new CopyOnWriteArrayList<>();
    private Rivulet server;
    private Rivulet client;
    private Connection connection;

    @BeforeEach
    void launch()
    {
        final io.opentelemetry.api.trace.Tracer otelTracer = tracerProvider.get("rivulet-test");
        final OtelTracer tracer = new OtelTracer(otelTracer, new OtelCurrentTraceContext(), event -> { });
        final OtelPropagator propagator = new OtelPropagator(
            ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otelTracer);
        observations.observationConfig()
            .observationHandler(new DefaultMeterObservationHandler(meters))
            .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));

        server = Rivulet.launch(context("observed-server"));
        client = Rivulet.launch(context("observed-client"));
        final Responder responder = Responder.builder()
            .fireAndForget(message ->
            {
                received.add(message);
                return Mono.empty();
            })
            .requestResponse(message ->
            {
                received.add(message);
                return "fail".equals(message.dataUtf8()) ? Mono.error(new IllegalStateException("refused")) :
                    Mono.just(Message.of("re: " + message.dataUtf8()));
            })
            .requestStream(message ->
            {
                received.add(message);
                return Flux.range(1, 5).map(i -> Message.of("item " + i));
            })
            .requestChannel(messages -> messages.doOnNext(received::add).map(m -> Message.of("echo " + m.dataUtf8())))
            .build();
        final Server bound = server.bind("127.0.0.1:0", responder).block(BLOCK);
        connection = client.connect(bound.localAddress()).block(BLOCK);
    }

    @AfterEach
    void close()
    {
        client.close();
        server.close();
        tracerProvider.close();
    }

    @Test
    void theTraceIdCrossesTheWireAndTheServerSpanIsTheClientSpansChild()
    {
        final Message reply = connection.requestResponse(Message.of("hello")).block(BLOCK);
        assertThat(reply.dataUtf8()).isEqualTo("re: hello");

        final SpanData clientSpan = span(SpanKind.CLIENT);
        final SpanData serverSpan = span(SpanKind.SERVER);
        assertThat(serverSpan.getTraceId()).isEqualTo(clientSpan.getTraceId());
        assertThat(serverSpan.getParentSpanId()).isEqualTo(clientSpan.getSpanId());
        assertThat(clientSpan.getName()).isEqualTo("request_response");
        assertThat(clientSpan.getAttributes().asMap().toString()).contains("rivulet.remote.address");

        // The request that arrived carried the W3C traceparent in composite metadata it did not have before.
        final Metadata metadata = Metadata.of(received.get(0));
        assertThat(metadata.get(Metadata.TRACEPARENT))
            .matches("00-" + clientSpan.getTraceId() + "-" + clientSpan.getSpanId() + "-[0-9a-f]{2}");

        assertThat(timer(RivuletClientObservationConvention.NAME, "request_response", "none", "SUCCESS").count())
            .isEqualTo(1);
        Await.until(TIMEOUT, () -> meters.find(RivuletServerObservationConvention.NAME).timer() != null,
            () -> "the server's timer");
        assertThat(timer(RivuletServerObservationConvention.NAME, "request_response", "none", "SUCCESS").count())
            .isEqualTo(1);
        // The peer's address is not a timer tag (cardinality).
        assertThat(meters.get(RivuletClientObservationConvention.NAME).timer().getId().getTag(
            KeyNames.REMOTE_ADDRESS)).isNull();
    }

    @Test
    void aRequestMadeInAnObservationContinuesItsTrace()
    {
        final Observation parent = Observation.start("application.work", observations);
        connection.requestResponse(Message.of("in a trace"))
            .contextWrite(reactor -> reactor.put(ObservedSignals.OBSERVATION_KEY, parent))
            .block(BLOCK);
        parent.stop();

        final SpanData clientSpan = span(SpanKind.CLIENT);
        final SpanData applicationSpan = spans.getFinishedSpanItems().stream()
            .filter(span -> span.getName().equals("application.work")).findFirst().orElseThrow();
        assertThat(clientSpan.getParentSpanId()).isEqualTo(applicationSpan.getSpanId());
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(applicationSpan.getTraceId());
    }

    @Test
    void theTraceContextJoinsTheRequestsOwnCompositeMetadataAndItsRouteIsATag()
    {
        final Metadata own = Metadata.route("quotes.eur").with("tenant", "blue");
        connection.requestResponse(Message.of("price?").metadata(own.encode())).block(BLOCK);

        final Metadata arrived = Metadata.of(received.get(0));
        assertThat(arrived.keys()).containsExactly(Metadata.ROUTE, "tenant", Metadata.TRACEPARENT);
        assertThat(arrived.route()).isEqualTo("quotes.eur");
        assertThat(arrived.get("tenant")).isEqualTo("blue");
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(span(SpanKind.CLIENT).getTraceId());
        assertThat(span(SpanKind.CLIENT).getName()).isEqualTo("request_response quotes.eur");

        assertThat(timer(RivuletClientObservationConvention.NAME, "request_response", "quotes.eur", "SUCCESS")
            .count()).isEqualTo(1);
        Await.until(TIMEOUT, () -> meters.find(RivuletServerObservationConvention.NAME).tag(KeyNames.ROUTE,
            "quotes.eur").timer() != null, () -> "the server's timer with the route");
    }

    @Test
    void aRequestWithRawMetadataIsSentUnchangedAndStillWorks()
    {
        final Message request = Message.of("raw").metadata("application bytes");
        assertThat(connection.requestResponse(request).block(BLOCK).dataUtf8()).isEqualTo("re: raw");

        assertThat(received.get(0).metadataUtf8()).isEqualTo("application bytes");
        // No trace context crossed: the server's span starts a trace of its own.
        assertThat(span(SpanKind.SERVER).getTraceId()).isNotEqualTo(span(SpanKind.CLIENT).getTraceId());
        assertThat(timer(RivuletClientObservationConvention.NAME, "request_response", "none", "SUCCESS").count())
            .isEqualTo(1);
    }

    @Test
    void aStreamIsOneObservationUntilItEndsOrIsCancelled()
    {
        assertThat(connection.requestStream(Message.of("all")).collectList().block(BLOCK)).hasSize(5);
        assertThat(timer(RivuletClientObservationConvention.NAME, "request_stream", "none", "SUCCESS").count())
            .isEqualTo(1);
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(span(SpanKind.CLIENT).getTraceId());
        Await.until(TIMEOUT, () -> meters.find(RivuletServerObservationConvention.NAME)
            .tag(KeyNames.INTERACTION, "request_stream").tag(KeyNames.OUTCOME, "SUCCESS").timer() != null,
            () -> "the server's stream timer");

        assertThat(connection.requestStream(Message.of("two")).take(2).collectList().block(BLOCK)).hasSize(2);
        assertThat(timer(RivuletClientObservationConvention.NAME, "request_stream", "none", "CANCELLED").count())
            .isEqualTo(1);
    }

    @Test
    void aFailedRequestIsTimedWithItsOutcomeAndError()
    {
        assertThatThrownBy(() -> connection.requestResponse(Message.of("fail")).block(BLOCK))
            .isInstanceOf(ApplicationErrorException.class);

        final Timer failed = timer(RivuletClientObservationConvention.NAME, "request_response", "none", "ERROR");
        assertThat(failed.count()).isEqualTo(1);
        assertThat(failed.getId().getTag("error")).isEqualTo("ApplicationErrorException");
        Await.until(TIMEOUT, () -> meters.find(RivuletServerObservationConvention.NAME)
            .tag(KeyNames.OUTCOME, "ERROR").tag("error", "IllegalStateException").timer() != null,
            () -> "the server's timer of the failure");
    }

    @Test
    void aChannelCarriesTheTraceInItsFirstMessage()
    {
        final List<Message> echoes = connection.requestChannel(Flux.just(
            Message.of("one").metadata(Metadata.route("chat").encode()), Message.of("two"), Message.of("three")))
            .collectList().block(BLOCK);
        assertThat(echoes).extracting(Message::dataUtf8).containsExactly("echo one", "echo two", "echo three");

        assertThat(Metadata.of(received.get(0)).contains(Metadata.TRACEPARENT)).isTrue();
        assertThat(received.get(1).hasMetadata()).isFalse();
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(span(SpanKind.CLIENT).getTraceId());
        assertThat(timer(RivuletClientObservationConvention.NAME, "request_channel", "chat", "SUCCESS").count())
            .isEqualTo(1);
        Await.until(TIMEOUT, () -> meters.find(RivuletServerObservationConvention.NAME)
            .tag(KeyNames.INTERACTION, "request_channel").tag(KeyNames.ROUTE, "chat").timer() != null,
            () -> "the server's channel timer");
    }

    @Test
    void aFireAndForgetCarriesTheTrace()
    {
        connection.fireAndForget(Message.of("note")).block(BLOCK);
        Await.until(TIMEOUT, () -> !received.isEmpty(), () -> "the fire-and-forget arrived");

        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(span(SpanKind.CLIENT).getTraceId());
        assertThat(timer(RivuletClientObservationConvention.NAME, "fire_and_forget", "none", "SUCCESS").count())
            .isEqualTo(1);
    }

    @Test
    void aZeroCopyFireAndForgetHandlerRunsInTheRequestsTrace()
    {
        final List<String> traceIdsInHandler = new CopyOnWriteArrayList<>();
        final Server zeroCopy = server.bind("127.0.0.1:0", Responder.builder().fireAndForgetHandler(view ->
            traceIdsInHandler.add(observations.getCurrentObservation() == null ? "no observation" :
                String.valueOf(Metadata.decode(view.metadata(), 0, view.metadataLength()).get(Metadata.TRACEPARENT))))
            .build()).block(BLOCK);
        final Connection toZeroCopy = client.connect(zeroCopy.localAddress()).block(BLOCK);
        toZeroCopy.fireAndForget(Message.of("view")).block(BLOCK);
        Await.until(TIMEOUT, () -> !traceIdsInHandler.isEmpty(), () -> "the handler called");

        final SpanData clientSpan = span(SpanKind.CLIENT);
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(clientSpan.getTraceId());
        assertThat(traceIdsInHandler.get(0)).contains(clientSpan.getTraceId());
        assertThat(timer(RivuletServerObservationConvention.NAME, "fire_and_forget", "none", "SUCCESS").count())
            .isEqualTo(1);
        toZeroCopy.close();
    }

    @Test
    void aRequestAnsweredInPlaceIsServedAndObservedInTheRequestsTrace()
    {
        final List<String> traceIdsInHandler = new CopyOnWriteArrayList<>();
        final Server inPlace = server.bind("127.0.0.1:0", Responder.builder().requestResponseHandler((request, reply) ->
        {
            traceIdsInHandler.add(observations.getCurrentObservation() == null ? "no observation" :
                String.valueOf(Metadata.decode(request.metadata(), 0, request.metadataLength())
                    .get(Metadata.TRACEPARENT)));
            reply.send(request.data(), 0, request.dataLength());
        }).build()).block(BLOCK);
        final Connection toInPlace = client.connect(inPlace.localAddress()).block(BLOCK);

        assertThat(toInPlace.requestResponse(Message.of("echo")).block(BLOCK).dataUtf8()).isEqualTo("echo");

        final SpanData clientSpan = span(SpanKind.CLIENT);
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(clientSpan.getTraceId());
        assertThat(traceIdsInHandler).singleElement().satisfies(id -> assertThat(id).contains(clientSpan.getTraceId()));
        assertThat(timer(RivuletServerObservationConvention.NAME, "request_response", "none", "SUCCESS").count())
            .isEqualTo(1);
        toInPlace.close();
    }

    @Test
    void aRoutedChannelIsServedAndObservedWithItsRoute()
    {
        final Server routed = server.bind("127.0.0.1:0", Router.builder()
            .requestChannel("upper", String.class, words -> words.map(String::toUpperCase))
            .build()).block(BLOCK);
        final Connection toRouted = client.connect(routed.localAddress()).block(BLOCK);

        final List<String> replies = toRouted.route("upper").requestChannel(Flux.just("a", "b"), String.class)
            .collectList().block(BLOCK);

        assertThat(replies).containsExactly("A", "B");
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(span(SpanKind.CLIENT).getTraceId());
        Await.until(TIMEOUT, () -> meters.find(RivuletServerObservationConvention.NAME)
            .tag(KeyNames.INTERACTION, "request_channel").tag(KeyNames.ROUTE, "upper").timer() != null,
            () -> "the server's channel timer with its route");
        toRouted.close();
    }

    @Test
    void theResponderAnAcceptorChoosesIsObservedToo()
    {
        final Server accepting = server.bind("127.0.0.1:0", (setup, caller) -> Responder.builder()
            .requestResponse(message -> Mono.just(Message.of("chosen"))).build()).block(BLOCK);
        final Connection toAccepting = client.connect(accepting.localAddress()).block(BLOCK);

        assertThat(toAccepting.requestResponse(Message.of("who?")).block(BLOCK).dataUtf8()).isEqualTo("chosen");
        assertThat(span(SpanKind.SERVER).getTraceId()).isEqualTo(span(SpanKind.CLIENT).getTraceId());
        toAccepting.close();
    }

    /** The one finished span of a kind, once there is one. */
    private SpanData span(final SpanKind kind)
    {
        Await.until(TIMEOUT, () -> spans.getFinishedSpanItems().stream().anyMatch(span -> span.getKind() == kind),
            () -> "a finished " + kind + " span, have " + spans.getFinishedSpanItems());
        final List<SpanData> ofKind = spans.getFinishedSpanItems().stream().filter(span -> span.getKind() == kind)
            .toList();
        assertThat(ofKind).hasSize(1);
        return ofKind.get(0);
    }

    private Timer timer(final String name, final String interaction, final String route, final String outcome)
    {
        return meters.get(name).tag(KeyNames.INTERACTION, interaction).tag(KeyNames.ROUTE, route)
            .tag(KeyNames.OUTCOME, outcome).timer();
    }

    private Rivulet.Context context(final String name)
    {
        return new Rivulet.Context().transport(Transports.tcp()).nodeName(name).countersFile(false)
            .interceptor(RivuletObservations.interceptor(observations));
    }
}
