package io.rivulet.spring.boot;

import io.rivulet.Connection;
import io.rivulet.Metadata;
import io.rivulet.route.Route;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Requests to one route of the server's {@link io.rivulet.route.Router} over a {@link RivuletConnection}: each request
 * goes over the live connection as {@link Connection#route(String)} would send it (typed values, encoded by the
 * node's codecs, the route and content type in the composite metadata), connecting first when there is no live
 * connection, with the connection's back-off.
 *
 * <pre>{@code
 * Quote quote = quotes.route("quote").requestResponse(new QuoteRequest("EURUSD"), Quote.class).block();
 * }</pre>
 *
 * <p>Immutable and thread-safe; the methods that add to it return a new route. Publishers are cold: each
 * subscription sends the request again.
 */
public final class RivuletRoute
{
    private final RivuletConnection connection;
    private final String name;
    private final UnaryOperator<Route> shape;

    RivuletRoute(final RivuletConnection connection, final String name)
    {
        this(connection, name, UnaryOperator.identity());
    }

    private RivuletRoute(final RivuletConnection connection, final String name, final UnaryOperator<Route> shape)
    {
        this.connection = connection;
        this.name = Objects.requireNonNull(name, "name");
        this.shape = shape;
    }

    /** @return the route's name. */
    public String name()
    {
        return name;
    }

    /**
     * @param key   an entry's name (not {@code route} or {@code content-type}, which the route sets).
     * @param value encoded as UTF-8.
     * @return a route that adds this entry to every request's metadata.
     */
    public RivuletRoute metadata(final String key, final String value)
    {
        checkKey(key);
        Objects.requireNonNull(value, "value");
        return with(route -> route.metadata(key, value));
    }

    /**
     * @param key   an entry's name (not {@code route} or {@code content-type}, which the route sets).
     * @param value the entry's bytes.
     * @return a route that adds this entry to every request's metadata.
     */
    public RivuletRoute metadata(final String key, final byte[] value)
    {
        checkKey(key);
        final byte[] copy = value.clone();
        return with(route -> route.metadata(key, copy));
    }

    /**
     * @param contentType the codec to encode requests with, such as {@code application/json}, instead of the first
     *                    one for the request's class.
     * @return a route that encodes with it.
     */
    public RivuletRoute contentType(final String contentType)
    {
        Objects.requireNonNull(contentType, "contentType");
        return with(route -> route.contentType(contentType));
    }

    /**
     * @param request encoded and sent.
     * @return completes once the request is handed to the live connection.
     */
    public Mono<Void> fireAndForget(final Object request)
    {
        return connection.connection().flatMap(live -> route(live).fireAndForget(request));
    }

    /**
     * @param request   encoded and sent.
     * @param replyType the class to decode the reply into.
     * @param <T>       the reply's class.
     * @return the reply, empty when the server completes without one.
     */
    public <T> Mono<T> requestResponse(final Object request, final Class<T> replyType)
    {
        return connection.connection().flatMap(live -> route(live).requestResponse(request, replyType));
    }

    /**
     * @param request   encoded and sent.
     * @param replyType the class to decode each reply into.
     * @param <T>       the replies' class.
     * @return the replies.
     */
    public <T> Flux<T> requestStream(final Object request, final Class<T> replyType)
    {
        return connection.connection().flatMapMany(live -> route(live).requestStream(request, replyType));
    }

    /**
     * @param requests  each encoded and sent; the first opens the channel.
     * @param replyType the class to decode each reply into.
     * @param <T>       the replies' class.
     * @return the replies.
     */
    public <T> Flux<T> requestChannel(final Publisher<?> requests, final Class<T> replyType)
    {
        return connection.connection().flatMapMany(live -> route(live).requestChannel(requests, replyType));
    }

    private Route route(final Connection live)
    {
        return shape.apply(live.route(name));
    }

    private RivuletRoute with(final UnaryOperator<Route> step)
    {
        final UnaryOperator<Route> previous = shape;
        return new RivuletRoute(connection, name, route -> step.apply(previous.apply(route)));
    }

    // Checked here, not on the first request, so that a wrong key fails where it is written.
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
        return "RivuletRoute{" + name + " on " + connection.address() + "}";
    }
}
