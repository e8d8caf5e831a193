package io.rivulet.actors;

import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import io.rivulet.Responder;
import io.rivulet.RivuletException;
import io.rivulet.actors.wire.RouteKind;
import io.rivulet.actors.wire.TerminationReason;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serves this system's actors to other nodes: the {@link Responder} a bound system's server answers with.
 *
 * <ul>
 *     <li>a request-channel ({@code Route(CHANNEL)}) becomes an {@link InboundChannel} into one actor's
 *     mailbox, whose replies go back on the channel;</li>
 *     <li>a request-response ({@code Route(WATCH)}) is answered with the actor's termination;</li>
 *     <li>a request-stream ({@code Route(STREAM)}) claims a stream reply waiting in {@link StreamSlots}.</li>
 * </ul>
 *
 * <p>Errors a remote asker should see travel as {@code "CODE: detail"} texts, which the asking side maps back
 * to exceptions.
 *
 * <p>Thread-safe.
 */
final class RemoteActorResponder
{
    private final ActorSystem system;
    private final Set<InboundChannel> channels = ConcurrentHashMap.newKeySet();
    private final StreamSlots streams;

    RemoteActorResponder(final ActorSystem system)
    {
        this.system = system;
        this.streams = new StreamSlots(system);
    }

    /** @return the stream replies waiting for their remote askers. */
    StreamSlots streams()
    {
        return streams;
    }

    /** Forgets a channel that ended, and the stream replies it left unclaimed. */
    void onChannelClosed(final InboundChannel channel)
    {
        channels.remove(channel);
        streams.dropAll(channel);
    }

    /** Ends every open channel; a channel opened after this is ended at once (the system is closed by then). */
    void abortChannels()
    {
        for (final InboundChannel channel : channels)
        {
            channel.abort();
        }
    }

    /** @return the responder the system's server is bound with. */
    Responder responder()
    {
        return Responder.builder()
            .requestChannel(this::onChannel)
            .requestResponse(this::onWatch)
            .requestStream(this::onStreamClaim)
            .build();
    }

    private Publisher<Message> onChannel(final Flux<Message> inbound)
    {
        final InboundChannel channel = new InboundChannel(system, inbound);
        channels.add(channel);
        if (system.isClosed())
        {
            channel.abort();
        }
        return channel.publisher();
    }

    private Mono<Message> onWatch(final Message request)
    {
        return Mono.defer(() ->
        {
            final String target;
            try
            {
                target = route(request, RouteKind.WATCH).varText(Envelopes.MAX_NAME_LENGTH);
            }
            catch (final ProtocolViolationException ex)
            {
                system.counters().protocolErrors.increment();
                return Mono.error(new RivuletException("INVALID: " + ex.getMessage()));
            }
            final ActorCell<?> cell = system.cell(target);
            if (cell == null)
            {
                return Mono.just(Message.of(Envelopes.terminated(TerminationReason.NOT_FOUND,
                    "no actor named '" + target + "' is running at " + system.address())));
            }
            return cell.termination().map(terminated -> Message.of(Envelopes.terminated(
                terminated.reason() == Terminated.Reason.FAILED ? TerminationReason.FAILED : TerminationReason.STOPPED,
                terminated.detail())));
        });
    }

    @SuppressWarnings("unchecked")
    private Flux<Message> onStreamClaim(final Message request)
    {
        return Flux.defer(() ->
        {
            final Envelopes.Reader reader;
            final String target;
            try
            {
                reader = route(request, RouteKind.STREAM);
                target = reader.varText(Envelopes.MAX_NAME_LENGTH);
            }
            catch (final ProtocolViolationException ex)
            {
                system.counters().protocolErrors.increment();
                return Flux.error(new RivuletException("INVALID: " + ex.getMessage()));
            }
            final long correlationId = reader.correlationId();
            final Publisher<?> replies = streams.claim(reader.incarnation(), correlationId);
            if (replies == null)
            {
                return Flux.error(new RivuletException("NOT_FOUND: no stream reply " + correlationId + " of '" +
                    target + "' is waiting (claimed, expired or never made)"));
            }
            return Flux.from((Publisher<Object>)replies).map(element ->
            {
                final byte[] entry;
                try
                {
                    entry = Envelopes.reply(system.serializers(), correlationId, element);
                }
                catch (final SerializationException ex)
                {
                    system.counters().serializationErrors.increment();
                    throw new SerializationException("SERIALIZATION: " + ex.getMessage(), ex);
                }
                system.counters().remoteSent.increment();
                return Message.of(entry);
            });
        });
    }

    private static Envelopes.Reader route(final Message request, final RouteKind kind)
    {
        final Envelopes.Reader reader = new Envelopes.Reader();
        final int template = reader.wrap(request.metadata(), 0, request.metadataLength());
        if (template != Envelopes.ROUTE || reader.routeKind() != kind)
        {
            throw new ProtocolViolationException("expected a " + kind + " route in the metadata");
        }
        return reader;
    }
}
