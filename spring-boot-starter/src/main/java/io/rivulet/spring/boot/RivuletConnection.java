package io.rivulet.spring.boot;

import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.Message;
import io.rivulet.Reconnector;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A client connection the application keeps: it connects on first use, and after the connection is lost the next
 * request connects again, with the back-off of {@code rivulet.client.*} ({@link Reconnector}). A request in flight
 * when the connection is lost fails with the loss; retry it with {@code retryWhen} to reconnect.
 *
 * <pre>{@code
 * RivuletConnection quotes = connections.connect("127.0.0.1:7070");
 * Message price = quotes.requestResponse(Message.of("ACME")).block(Duration.ofSeconds(5));
 * Quote quote = quotes.route("quote").requestResponse(new QuoteRequest("ACME"), Quote.class).block(timeout);
 * }</pre>
 *
 * <p>Thread-safe. Closed by {@link RivuletConnections} when the application context closes.
 */
public final class RivuletConnection implements AutoCloseable
{
    private final String address;
    private final Reconnector reconnector;
    private final AtomicReference<Connection> current = new AtomicReference<>();
    private volatile boolean closed;

    RivuletConnection(final String address, final Reconnector reconnector)
    {
        this.address = address;
        this.reconnector = reconnector;
    }

    /** @return the live connection, connecting (with retries) when there is none; an error once closed. */
    public Mono<Connection> connection()
    {
        return Mono.defer(() -> closed ? Mono.error(closedError()) : reconnector.connection())
            .doOnNext(connection ->
            {
                current.set(connection);
                if (closed)
                {
                    connection.close(); // connected while this was being closed: nobody would close it later
                }
            });
    }

    /** @return the reply to a request, over the live connection. */
    public Mono<Message> requestResponse(final Message request)
    {
        return connection().flatMap(connection -> connection.requestResponse(request));
    }

    /** @return the responder's stream for a request, over the live connection. */
    public Flux<Message> requestStream(final Message request)
    {
        return connection().flatMapMany(connection -> connection.requestStream(request));
    }

    /** @return completes once the message is handed to the live connection. */
    public Mono<Void> fireAndForget(final Message message)
    {
        return connection().flatMap(connection -> connection.fireAndForget(message));
    }

    /**
     * Requests to one of the server's routes ({@link io.rivulet.route.Router}) with typed values, over the live
     * connection as {@link Connection#route(String)} sends them, connecting first as the other requests do:
     * <pre>{@code
     * Quote quote = quotes.route("quote").requestResponse(new QuoteRequest("EURUSD"), Quote.class).block();
     * }</pre>
     *
     * @param route the route's name.
     * @return a requester for that route.
     */
    public RivuletRoute route(final String route)
    {
        return new RivuletRoute(this, route);
    }

    /** @return the {@code host:port} connected to. */
    public String address()
    {
        return address;
    }

    /** @return how many connections were established, the first one included. */
    public long connections()
    {
        return reconnector.connections();
    }

    /** @return whether {@link #close()} was called. */
    public boolean isClosed()
    {
        return closed;
    }

    /** Closes the live connection, if any; later requests fail. */
    @Override
    public void close()
    {
        closed = true;
        final Connection connection = current.getAndSet(null);
        if (connection != null)
        {
            connection.close();
        }
    }

    private ConnectionClosedException closedError()
    {
        return new ConnectionClosedException("connection to " + address + " closed by the application");
    }

    @Override
    public String toString()
    {
        return "RivuletConnection{" + address + (closed ? ", closed" : "") + "}";
    }
}
