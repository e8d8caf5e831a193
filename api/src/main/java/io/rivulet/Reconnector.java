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
 * <p>Made for a node ({@link #Reconnector(Rivulet, Supplier, Retry)}, as {@code node.connect(address, responder,
 * retry)} makes it), it stops for good when that node ends, since no attempt through it can succeed any more: once
 * the node's engine failed ({@link EngineFailure}) every subscriber, the one waiting in the back-off included, fails
 * at once with the {@link RivuletException} "reconnect stopped: node failed: &lt;cause&gt;" whose cause is the
 * engine's failure, and once the node is being closed with "reconnect stopped: the node is closed". No attempt is
 * made after that, and a later subscription fails the same way at once.
 *
 * <p>Thread-safe. When the retries are exhausted the subscriber gets the error and nothing is cached: the next
 * subscription starts again.
 */
public final class Reconnector
{
    private final AtomicLong connections = new AtomicLong();
    private final Mono<Connection> connection;

    /**
     * A reconnector that knows no node: it retries while the retry allows, whatever happened to the node behind
     * {@code connect}. Prefer {@link #Reconnector(Rivulet, Supplier, Retry)}.
     *
     * @param connect makes one cold connection attempt per subscription (e.g. {@code () -> node.connect(address)}).
     * @param retry   the back-off between failed attempts.
     */
    public Reconnector(final Supplier<Mono<Connection>> connect, final Retry retry)
    {
        this(connect, retry, Mono.never());
    }

    /**
     * A reconnector through a node: it stops, failing its subscribers, once the node's engine failed or the node is
     * being closed.
     *
     * @param node    the node {@code connect} connects through.
     * @param connect makes one cold connection attempt per subscription (e.g. {@code () -> node.connect(address)}).
     * @param retry   the back-off between failed attempts.
     */
    public Reconnector(final Rivulet node, final Supplier<Mono<Connection>> connect, final Retry retry)
    {
        this(connect, retry, Objects.requireNonNull(node, "node").onEnding()
            .onErrorMap(Reconnector::stoppedByFailure)
            .then(Mono.error(() -> new RivuletException("reconnect stopped: the node is closed"))));
    }

    /** @param stopped errors once the node ended; never completes. */
    private Reconnector(final Supplier<Mono<Connection>> connect, final Retry retry, final Mono<Connection> stopped)
    {
        Objects.requireNonNull(connect, "connect");
        Objects.requireNonNull(retry, "retry");
        // The node's end races the attempts, and is subscribed first: once it ended, nothing is attempted; while the
        // loop waits in its back-off, the end cancels it.
        final Mono<Connection> cached = Mono.firstWithSignal(stopped, Mono.defer(connect).retryWhen(retry))
            .doOnNext(connected -> connections.incrementAndGet())
            // Invalidated the moment the connection ends, however it ends; errors and empty results are never cached.
            .cacheInvalidateWhen(connected -> connected.onClose().onErrorResume(error -> Mono.empty()));
        // Raced again outside the cache: a connection still cached while the node closes is not handed out.
        connection = Mono.firstWithSignal(stopped, cached);
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

    /** "node failed: &lt;cause&gt;" from the node becomes this reconnector's end, with the engine's error as cause. */
    private static Throwable stoppedByFailure(final Throwable failure)
    {
        final Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        return new RivuletException("reconnect stopped: " + failure.getMessage(), cause);
    }
}
