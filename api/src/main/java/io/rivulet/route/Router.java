package io.rivulet.route;

import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.serde.Codec;
import io.rivulet.serde.Codecs;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Builds a {@link Responder} from handlers by route, as Spring's {@code @MessageMapping} does: each request names
 * its route in its composite metadata ({@link Metadata#ROUTE}), its data is decoded by the codec its
 * {@link Metadata#CONTENT_TYPE} names (or the first for the handler's class when it names none) and the handler's
 * replies are encoded with the same codec when it supports their class (else the first that does), each reply
 * carrying its content type.
 *
 * <pre>{@code
 * Responder prices = Router.builder()
 *     .requestResponse("price", PriceRequest.class, request -> Mono.just(book.quote(request.symbol())))
 *     .build();
 * }</pre>
 *
 * <p>What a request the router cannot serve gets:
 * <ul>
 *   <li>no route, a route it does not have, or a route of another interaction model: that request fails with
 *       REJECTED naming the routes it has ({@code no route 'x' (routes: a, b)}), the connection stays up;</li>
 *   <li>data the codec cannot decode: that request fails with APPLICATION_ERROR naming the route, the type and the
 *       codec, the connection stays up;</li>
 *   <li>metadata that is not composite metadata: the peer breaks the protocol, the connection is closed (the
 *       handler throws {@link io.rivulet.MalformedMetadataException}, which the engine treats as a malformed frame).
 *       In a channel this holds for the first message; later messages are read with the first one's codec and their
 *       metadata is not read.</li>
 * </ul>
 *
 * <p>Handlers run on the engine thread, like every responder's, and must not block. To call the requester back,
 * build the router in an {@link io.rivulet.Acceptor}, which is handed the connection.
 *
 * <p>The built responder is immutable and thread-safe; the builder is not thread-safe.
 */
public final class Router
{
    private Router()
    {
    }

    /** @return a builder that encodes with the built-in codecs and those on the class path. */
    public static Builder builder()
    {
        return new Builder(Codecs.defaults());
    }

    /**
     * @param codecs to encode and decode with, such as the node's ({@code Rivulet.codecs()}).
     * @return a builder.
     */
    public static Builder builder(final Codecs codecs)
    {
        return new Builder(codecs);
    }

    /** The interaction model a route serves. */
    private enum Kind
    {
        FIRE_AND_FORGET("fire-and-forget"),
        REQUEST_RESPONSE("request-response"),
        REQUEST_STREAM("request-stream"),
        REQUEST_CHANNEL("request-channel");

        final String text;

        Kind(final String text)
        {
            this.text = text;
        }
    }

    /** One route: its model, the class its requests decode into and its handler. */
    private record Entry(Kind kind, Class<?> type, Function<Object, Object> handler)
    {
    }

    /** Collects routes. Not thread-safe. */
    public static final class Builder
    {
        private final Codecs codecs;
        private final Map<String, Entry> routes = new TreeMap<>();

        private Builder(final Codecs codecs)
        {
            this.codecs = Objects.requireNonNull(codecs, "codecs");
        }

        /**
         * @param route   the route's name.
         * @param type    the class requests decode into.
         * @param handler takes each request; its failures go to the node's error handler.
         * @param <T>     the requests' class.
         * @return this builder.
         */
        @SuppressWarnings("unchecked")
        public <T> Builder fireAndForget(final String route, final Class<T> type, final Consumer<? super T> handler)
        {
            return add(route, Kind.FIRE_AND_FORGET, type, request ->
            {
                handler.accept((T)request);
                return null;
            });
        }

        /**
         * @param route   the route's name.
         * @param type    the class requests decode into.
         * @param handler answers a request with at most one reply.
         * @param <T>     the requests' class.
         * @return this builder.
         */
        @SuppressWarnings("unchecked")
        public <T> Builder requestResponse(
            final String route, final Class<T> type, final Function<? super T, ? extends Mono<?>> handler)
        {
            return add(route, Kind.REQUEST_RESPONSE, type, request -> handler.apply((T)request));
        }

        /**
         * @param route   the route's name.
         * @param type    the class requests decode into.
         * @param handler answers a request with a stream of replies.
         * @param <T>     the requests' class.
         * @return this builder.
         */
        @SuppressWarnings("unchecked")
        public <T> Builder requestStream(
            final String route, final Class<T> type, final Function<? super T, ? extends Publisher<?>> handler)
        {
            return add(route, Kind.REQUEST_STREAM, type, request -> handler.apply((T)request));
        }

        /**
         * @param route   the route's name.
         * @param type    the class the requester's messages decode into.
         * @param handler takes the requester's messages (the first opened the channel) and returns the replies.
         * @param <T>     the requester's messages' class.
         * @return this builder.
         */
        @SuppressWarnings("unchecked")
        public <T> Builder requestChannel(
            final String route, final Class<T> type, final Function<? super Flux<T>, ? extends Publisher<?>> handler)
        {
            return add(route, Kind.REQUEST_CHANNEL, type, requests -> handler.apply((Flux<T>)requests));
        }

        /** @return a responder serving the routes. */
        public Responder build()
        {
            return new Routes(codecs, new TreeMap<>(routes)).responder();
        }

        private Builder add(final String route, final Kind kind, final Class<?> type,
            final Function<Object, Object> handler)
        {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(handler, "handler");
            Metadata.route(route); // checks the name can be an entry's value
            if (routes.putIfAbsent(route, new Entry(kind, type, handler)) != null)
            {
                throw new IllegalArgumentException("route '" + route + "' is already defined");
            }
            return this;
        }
    }

    /** The routes, and the dispatch the built responder does. Immutable. */
    private static final class Routes
    {
        private final Codecs codecs;
        private final Map<String, Entry> routes;

        Routes(final Codecs codecs, final Map<String, Entry> routes)
        {
            this.codecs = codecs;
            this.routes = routes;
        }

        Responder responder()
        {
            return Responder.builder()
                .fireAndForget(this::fireAndForget)
                .requestResponse(this::requestResponse)
                .requestStream(this::requestStream)
                .requestChannelWithFirst(this::requestChannel)
                .build();
        }

        private Mono<Void> fireAndForget(final Message message)
        {
            final Metadata metadata = Metadata.of(message); // malformed: thrown, the engine closes the connection
            final Entry entry = entry(metadata, Kind.FIRE_AND_FORGET);
            final Codec<Object> codec = codecs.find(metadata.get(Metadata.CONTENT_TYPE), entry.type);
            entry.handler.apply(Payloads.decode(metadata.route(), codec, message, entry.type));
            return Mono.empty();
        }

        private Mono<Message> requestResponse(final Message message)
        {
            final Metadata metadata = Metadata.of(message);
            return Mono.defer(() ->
            {
                final Entry entry = entry(metadata, Kind.REQUEST_RESPONSE);
                final Codec<Object> codec = codecs.find(metadata.get(Metadata.CONTENT_TYPE), entry.type);
                final Object request = Payloads.decode(metadata.route(), codec, message, entry.type);
                return ((Mono<?>)entry.handler.apply(request)).map(reply -> reply(metadata.route(), codec, reply));
            });
        }

        private Flux<Message> requestStream(final Message message)
        {
            final Metadata metadata = Metadata.of(message);
            return Flux.defer(() ->
            {
                final Entry entry = entry(metadata, Kind.REQUEST_STREAM);
                final Codec<Object> codec = codecs.find(metadata.get(Metadata.CONTENT_TYPE), entry.type);
                final Object request = Payloads.decode(metadata.route(), codec, message, entry.type);
                return Flux.from((Publisher<?>)entry.handler.apply(request))
                    .map(reply -> reply(metadata.route(), codec, reply));
            });
        }

        private Publisher<Message> requestChannel(final Message first, final Flux<Message> messages)
        {
            final Metadata metadata = Metadata.of(first);
            return Flux.defer(() ->
            {
                final Entry entry = entry(metadata, Kind.REQUEST_CHANNEL);
                final Codec<Object> codec = codecs.find(metadata.get(Metadata.CONTENT_TYPE), entry.type);
                final Flux<Object> requests = messages.map(
                    message -> Payloads.decode(metadata.route(), codec, message, entry.type));
                return Flux.from((Publisher<?>)entry.handler.apply(requests))
                    .map(reply -> reply(metadata.route(), codec, reply));
            });
        }

        private Message reply(final String route, final Codec<Object> requestCodec, final Object reply)
        {
            final Codec<Object> codec = requestCodec.supports(reply.getClass()) ? requestCodec :
                codecs.forType(reply.getClass());
            return Payloads.encode(route, codec, reply, Metadata.empty());
        }

        private Entry entry(final Metadata metadata, final Kind kind)
        {
            final String route = metadata.route();
            if (route == null)
            {
                throw new RejectedException("request names no route (routes: " + String.join(", ", routes.keySet()) +
                    ")");
            }
            final Entry entry = routes.get(route);
            if (entry == null)
            {
                throw new RejectedException("no route '" + route + "' (routes: " + String.join(", ", routes.keySet()) +
                    ")");
            }
            if (entry.kind != kind)
            {
                throw new RejectedException("route '" + route + "' serves " + entry.kind.text + ", not " + kind.text);
            }
            return entry;
        }
    }
}
