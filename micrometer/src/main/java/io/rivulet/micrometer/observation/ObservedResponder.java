package io.rivulet.micrometer.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.rivulet.Message;
import io.rivulet.MessageHandler;
import io.rivulet.MessageView;
import io.rivulet.Metadata;
import io.rivulet.RequestHandler;
import io.rivulet.Responder;
import io.rivulet.interceptor.ConnectionInfo;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Wraps a connection's responder so that each request it serves opens an observation, continuing the trace
 * context the request carries in its composite metadata, from the handler's call until the reply, the stream's
 * end, an error or a cancel. The handler runs with the observation in scope, so what it observes or traces is a
 * child. Missing handlers stay missing (the request is still rejected).
 *
 * <p>Thread-safe: immutable; the handlers run on the engine thread as before.
 */
final class ObservedResponder
{
    private static final RivuletServerObservationConvention DEFAULT_CONVENTION =
        new RivuletServerObservationConvention();

    private final ObservationRegistry registry;
    private final ObservationConvention<RivuletResponderContext> convention;
    private final ConnectionInfo connection;

    private ObservedResponder(
        final ObservationRegistry registry,
        final ObservationConvention<RivuletResponderContext> convention,
        final ConnectionInfo connection)
    {
        this.registry = registry;
        this.convention = convention;
        this.connection = connection;
    }

    static Responder wrap(
        final Responder responder,
        final ConnectionInfo connection,
        final ObservationRegistry registry,
        final ObservationConvention<RivuletResponderContext> convention)
    {
        return new ObservedResponder(registry, convention, connection).wrap(responder);
    }

    private Responder wrap(final Responder responder)
    {
        final Responder.Builder builder = Responder.builder();
        final Function<Message, Mono<Void>> fireAndForget = responder.fireAndForget();
        final MessageHandler fireAndForgetHandler = responder.fireAndForgetHandler();
        final Function<Message, Mono<Message>> requestResponse = responder.requestResponse();
        final RequestHandler requestResponseHandler = responder.requestResponseHandler();
        final Function<Message, Flux<Message>> requestStream = responder.requestStream();
        final Function<Flux<Message>, Publisher<Message>> requestChannel = responder.requestChannel();
        final BiFunction<Message, Flux<Message>, Publisher<Message>> requestChannelWithFirst =
            responder.requestChannelWithFirst();
        if (fireAndForget != null)
        {
            builder.fireAndForget(message -> observeMono(Interaction.FIRE_AND_FORGET, message,
                () -> fireAndForget.apply(message)));
        }
        else if (fireAndForgetHandler != null)
        {
            builder.fireAndForgetHandler(view -> observeHandler(Interaction.FIRE_AND_FORGET, view,
                () -> fireAndForgetHandler.onMessage(view)));
        }
        if (requestResponse != null)
        {
            builder.requestResponse(message -> observeMono(Interaction.REQUEST_RESPONSE, message,
                () -> requestResponse.apply(message)));
        }
        else if (requestResponseHandler != null)
        {
            builder.requestResponseHandler((view, reply) -> observeHandler(Interaction.REQUEST_RESPONSE, view,
                () -> requestResponseHandler.onRequest(view, reply)));
        }
        if (requestStream != null)
        {
            builder.requestStream(message -> observeFlux(Interaction.REQUEST_STREAM, message,
                () -> requestStream.apply(message)));
        }
        if (requestChannel != null)
        {
            // The first inbound message opened the channel and is there already: it carries the trace context.
            // The source is not cancelled when the replies complete: the requester may still be sending.
            builder.requestChannel(inbound -> inbound.switchOnFirst((first, messages) -> first.hasValue() ?
                observeFlux(Interaction.REQUEST_CHANNEL, first.get(), () -> requestChannel.apply(messages)) :
                requestChannel.apply(messages), false));
        }
        else if (requestChannelWithFirst != null)
        {
            // A handler that chooses from the opening message (a Router): it has it before it returns.
            builder.requestChannelWithFirst((first, messages) -> observeFlux(Interaction.REQUEST_CHANNEL, first,
                () -> requestChannelWithFirst.apply(first, messages)));
        }
        return builder.build();
    }

    private <T> Mono<T> observeMono(
        final Interaction interaction, final Message request, final Supplier<Mono<T>> handler)
    {
        final RivuletResponderContext context = context(interaction, TraceMetadata.composite(request));
        final Observation observation = start(context);
        final Mono<T> reply = call(handler, context, observation);
        if (reply == null)
        {
            return null;
        }
        return ObservedSignals.observe(reply, observation, context::outcome);
    }

    private Flux<Message> observeFlux(
        final Interaction interaction, final Message request, final Supplier<Publisher<Message>> handler)
    {
        final RivuletResponderContext context = context(interaction, TraceMetadata.composite(request));
        final Observation observation = start(context);
        final Publisher<Message> replies = call(handler, context, observation);
        if (replies == null)
        {
            return null;
        }
        return ObservedSignals.observe(Flux.from(replies), observation, context::outcome);
    }

    /** A zero-copy handler's call (fire-and-forget, or request-response answered in place), observed around it. */
    private void observeHandler(final Interaction interaction, final MessageView view, final Runnable handler)
    {
        final RivuletResponderContext context = context(interaction,
            TraceMetadata.composite(view.metadata(), view.metadataLength()));
        final Observation observation = start(context);
        try (Observation.Scope ignored = observation.openScope())
        {
            handler.run();
            context.outcome(Outcome.SUCCESS);
        }
        catch (final RuntimeException | Error ex)
        {
            observation.error(ex);
            context.outcome(Outcome.ERROR);
            throw ex;
        }
        finally
        {
            observation.stop();
        }
    }

    /** Calls the application's handler with the observation in scope; what it throws ends the observation. */
    private static <P> P call(
        final Supplier<P> handler, final RivuletResponderContext context, final Observation observation)
    {
        final P publisher;
        try (Observation.Scope ignored = observation.openScope())
        {
            publisher = handler.get();
        }
        catch (final RuntimeException | Error ex)
        {
            observation.error(ex);
            context.outcome(Outcome.ERROR);
            observation.stop();
            throw ex;
        }
        if (publisher == null)
        {
            observation.stop(); // no handler's publisher: the engine rejects the request
        }
        return publisher;
    }

    private RivuletResponderContext context(final Interaction interaction, final Metadata metadata)
    {
        // Raw metadata (null) carries no trace context: the request starts a trace of its own.
        return new RivuletResponderContext(interaction, connection, metadata == null ? Metadata.empty() : metadata);
    }

    private Observation start(final RivuletResponderContext context)
    {
        return Observation.createNotStarted(convention, DEFAULT_CONVENTION, () -> context, registry).start();
    }
}
