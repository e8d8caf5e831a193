package io.rivulet;

import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A client connection that comes back: a {@code Mono<Connection>} that connects on its first subscription, retries
 * a failed attempt with a {@link Retry} back-off, and hands every later subscriber the same connection while it is
 * open. Once that connection closes or is lost, the next subscription connects again, with the same back-off.
 * Streams that were open on the lost connection still end with its error; the application re-subscribes
 * (RSocket's {@code RSocketConnector.reconnect(Retry)} has the same shape).
 *
 * <pre>{@code
 * Mono<Connection> connection = node.connect("10.0.0.7:7070", Responder.none(),
 *     Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(5)));
 * connection.flatMapMany(c -> c.requestStream(request))
 *     .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)))   // resubscribe: reconnects when needed
 *     .subscribe(...);
 * }</pre>
 *
 * <p>Thread-safe. When the retries are exhausted the subscriber gets the error and nothing is cached: the next
 * subscription starts again.
 */
public final class Reconnector
{
    private final AtomicLong connections = new AtomicLong();
    private final Mono<Connection> connection;

    /**
     * @param connect makes one cold connection attempt per subscription (e.g. {@code () -> node.connect(address)}).
     * @param retry   the back-off between failed attempts.
     */
    public Reconnector(final Supplier<Mono<Connection>> connect, final Retry retry)
    {
        Objects.requireNonNull(connect, "connect");
        Objects.requireNonNull(retry, "retry");
        connection = Mono.defer(connect)
            .retryWhen(retry)
            .doOnNext(connected -> connections.incrementAndGet())
            // Invalidated the moment the connection ends, however it ends; errors and empty results are never cached.
            .cacheInvalidateWhen(connected -> connected.onClose().onErrorResume(error -> Mono.empty()));
    }

    /** @return the live connection, connecting (with retries) when there is none. */
    public Mono<Connection> connection()
    {
        return connection;
    }

    /** @return how many connections have been established, the first one included. */
    public long connections()
    {
        return connections.get();
    }
}
