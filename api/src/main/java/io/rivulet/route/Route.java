package io.rivulet.route;

import io.rivulet.Connection;
import io.rivulet.MalformedMetadataException;
import io.rivulet.Message;
import io.rivulet.Metadata;
import io.rivulet.serde.Codec;
import io.rivulet.serde.Codecs;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * Requests to one route of the peer's {@link Router}, with typed values: the request is encoded by a codec (the
 * one for its class, or the one for {@link #contentType(String)}), sent with the route and the content type in its
 * composite metadata, and the replies are decoded by the codec their content type names.
 *
 * <pre>{@code
 * Mono<Quote> quote = connection.route("price").requestResponse(new PriceRequest("EURUSD"), Quote.class);
 * }</pre>
 *
 * <p>A request the peer has no route for fails with {@link io.rivulet.RejectedException} naming the routes it has;
 * a request the peer cannot decode fails with {@link io.rivulet.ApplicationErrorException} naming the route, the type
 * and the codec. A reply whose metadata is not composite metadata breaks the protocol: the connection is closed and
 * the request fails with {@link MalformedMetadataException}.
 *
 * <p>Immutable and thread-safe; the methods that add to it return a new route. Publishers are cold, like the
 * connection's.
 */
public final class Route
{
    private final Connection connection;
    private final Codecs codecs;
    private final String name;
    private final Metadata metadata;
    private final String contentType;

    /**
     * @param connection to send on.
     * @param codecs     to encode and decode with.
     * @param name       the route.
     */
    public Route(final Connection connection, final Codecs codecs, final String name)
    {
        this(connection, codecs, name, Metadata.route(name), null);
    }

    private Route(
        final Connection connection, final Codecs codecs, final String name, final Metadata metadata,
        final String contentType)
    {
        this.connection = Objects.requireNonNull(connection, "connection");
        this.codecs = Objects.requireNonNull(codecs, "codecs");
        this.name = Objects.requireNonNull(name, "name");
        this.metadata = metadata;
        this.contentType = contentType;
    }

    /** @return the route's name. */
    public String name()
    {
        return name;
    }

    /**
     * @param key   an entry's name (not {@code route} or {@code content-type}, which this route sets).
     * @param value encoded as UTF-8.
     * @return a route that adds this entry to every request's metadata.
     */
    public Route metadata(final String key, final String value)
    {
        checkKey(key);
        return new Route(connection, codecs, name, metadata.with(key, value), contentType);
    }

    /**
     * @param key   an entry's name (not {@code route} or {@code content-type}, which this route sets).
     * @param value the entry's bytes.
     * @return a route that adds this entry to every request's metadata.
     */
    public Route metadata(final String key, final byte[] value)
    {
        checkKey(key);
        return new Route(connection, codecs, name, metadata.with(key, value), contentType);
    }

    /**
     * @param contentType the codec to encode requests with, such as {@code application/json}, instead of the first
     *                    one for the request's class.
     * @return a route that encodes with it.
     */
    public Route contentType(final String contentType)
    {
        return new Route(connection, codecs, name, metadata, Objects.requireNonNull(contentType, "contentType"));
    }

    /**
     * @param request encoded and sent.
     * @return completes once the request is handed to the engine.
     */
    public Mono<Void> fireAndForget(final Object request)
    {
        return Mono.defer(() -> connection.fireAndForget(encode(request)));
    }

    /**
     * @param request   encoded and sent.
     * @param replyType the class to decode the reply into.
     * @param <T>       the reply's class.
     * @return the reply, empty when the peer completes without one.
     */
    public <T> Mono<T> requestResponse(final Object request, final Class<T> replyType)
    {
        return Mono.defer(() -> connection.requestResponse(encode(request))).map(reply -> decode(reply, replyType));
    }

    /**
     * @param request   encoded and sent.
     * @param replyType the class to decode each reply into.
     * @param <T>       the replies' class.
     * @return the replies.
     */
    public <T> Flux<T> requestStream(final Object request, final Class<T> replyType)
    {
        return Flux.defer(() -> connection.requestStream(encode(request))).map(reply -> decode(reply, replyType));
    }

    /**
     * @param requests  each encoded and sent; the first opens the channel.
     * @param replyType the class to decode each reply into.
     * @param <T>       the replies' class.
     * @return the replies.
     */
    public <T> Flux<T> requestChannel(final Publisher<?> requests, final Class<T> replyType)
    {
        return connection.requestChannel(Flux.from(requests).map(this::encode)).map(reply -> decode(reply, replyType));
    }

    private Message encode(final Object request)
    {
        final Codec<Object> codec = codecs.find(contentType, request.getClass());
        return Payloads.encode(name, codec, request, metadata);
    }

    private <T> T decode(final Message reply, final Class<T> type)
    {
        final Metadata replyMetadata;
        try
        {
            replyMetadata = Metadata.of(reply);
        }
        catch (final MalformedMetadataException ex)
        {
            // The peer sent bytes that break the format: it is not trusted with this connection any more.
            connection.close();
            throw new MalformedMetadataException("route '" + name + "': reply from " + connection.remoteAddress() +
                " has malformed metadata (connection closed): " + ex.getMessage());
        }
        final Codec<Object> codec = codecs.find(replyMetadata.get(Metadata.CONTENT_TYPE), type);
        return Payloads.decode(name, codec, reply, type);
    }

    private static void checkKey(final String key)
    {
        if (Metadata.ROUTE.equals(key) || Metadata.CONTENT_TYPE.equals(key))
        {
            throw new IllegalArgumentException("'" + key + "' is set by the route itself");
        }
    }

    @Override
    public String toString()
    {
        return "Route{" + name + " on " + connection.remoteAddress() + "}";
    }
}
