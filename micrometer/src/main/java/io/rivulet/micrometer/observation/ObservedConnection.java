package io.rivulet.micrometer.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.interceptor.ForwardingConnection;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A connection whose four interaction models each open an observation per request, from subscription until the
 * reply, the stream's end, an error or a cancel, and send its trace context in the request's metadata. Topics,
 * regions and the zero-copy {@code offer} path pass through unobserved.
 *
 * <p>Thread-safe as the connection it wraps is.
 */
final class ObservedConnection extends ForwardingConnection
{
    private static final RivuletClientObservationConvention DEFAULT_CONVENTION =
        new RivuletClientObservationConvention();

    private final ObservationRegistry registry;
    private final ObservationConvention<RivuletRequesterContext> convention;

    ObservedConnection(
        final Connection delegate,
        final ObservationRegistry registry,
        final ObservationConvention<RivuletRequesterContext> convention)
    {
        super(delegate);
        this.registry = registry;
        this.convention = convention;
    }

    @Override
    public Mono<Void> fireAndForget(final Message message)
    {
        return Mono.deferContextual(view ->
        {
            final RivuletRequesterContext context = new RivuletRequesterContext(Interaction.FIRE_AND_FORGET,
                remoteAddress());
            final Observation observation = start(context, view);
            return observe(delegate().fireAndForget(traced(message, context)), context, observation);
        });
    }

    @Override
    public Mono<Message> requestResponse(final Message request)
    {
        return Mono.deferContextual(view ->
        {
            final RivuletRequesterContext context = new RivuletRequesterContext(Interaction.REQUEST_RESPONSE,
                remoteAddress());
            final Observation observation = start(context, view);
            return observe(delegate().requestResponse(traced(request, context)), context, observation);
        });
    }

    @Override
    public Flux<Message> requestStream(final Message request)
    {
        return Flux.deferContextual(view ->
        {
            final RivuletRequesterContext context = new RivuletRequesterContext(Interaction.REQUEST_STREAM,
                remoteAddress());
            final Observation observation = start(context, view);
            return observe(delegate().requestStream(traced(request, context)), context, observation);
        });
    }

    @Override
    public Flux<Message> requestChannel(final Publisher<Message> outbound)
    {
        return Flux.deferContextual(view ->
        {
            final RivuletRequesterContext context = new RivuletRequesterContext(Interaction.REQUEST_CHANNEL,
                remoteAddress());
            final Observation observation = start(context, view);
            // The first message opens the channel: it carries the route and the trace context.
            final AtomicBoolean first = new AtomicBoolean(true);
            final Flux<Message> tracedOutbound = Flux.from(outbound)
                .map(message -> first.compareAndSet(true, false) ? traced(message, context) : message);
            return observe(delegate().requestChannel(tracedOutbound), context, observation);
        });
    }

    /** Opens the observation, as a child of the subscriber's (Reactor context) or the thread's current one. */
    private Observation start(final RivuletRequesterContext context, final ContextView view)
    {
        final Observation observation =
            Observation.createNotStarted(convention, DEFAULT_CONVENTION, () -> context, registry);
        final Observation parent =
            view.getOrDefault(ObservedSignals.OBSERVATION_KEY, registry.getCurrentObservation());
        if (parent != null)
        {
            observation.parentObservation(parent);
        }
        return observation.start();
    }

    /** Learns the request's route and adds the trace context the observation's start wrote to its metadata. */
    private static Message traced(final Message message, final RivuletRequesterContext context)
    {
        final Metadata existing = TraceMetadata.composite(message);
        if (existing != null)
        {
            context.route(existing.route());
        }
        return TraceMetadata.inject(message, existing, context.getCarrier());
    }

    private static <T> Mono<T> observe(
        final Mono<T> request, final RivuletRequesterContext context, final Observation observation)
    {
        return ObservedSignals.observe(request, observation, context::outcome);
    }

    private static <T> Flux<T> observe(
        final Flux<T> request, final RivuletRequesterContext context, final Observation observation)
    {
        return ObservedSignals.observe(request, observation, context::outcome);
    }
}
