package io.rivulet.actors;

import io.rivulet.Connection;
import io.rivulet.Rivulet;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One connection per remote node, made on first use and forgotten when it closes (the next use connects
 * again). Every channel, watch and stream to actors of that node shares it. A failed connect is remembered
 * for a while ({@code rivulet.actors.peerRetryAfter}): requests in that time fail at once with the same error, so messages to a dead
 * node become dead letters instead of each starting a connect.
 *
 * <p>Thread-safe.
 */
final class Peers
{
    /** How long a failed connect is remembered. */
    private final long retryAfterNs;

    private record Failure(Throwable error, long untilNs)
    {
    }

    private final Rivulet node;
    private final Consumer<Throwable> lost;
    private final ConcurrentHashMap<String, Mono<Connection>> connections = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Failure> failures = new ConcurrentHashMap<>();
    private final Map<Connection, Boolean> open = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param node         the node the actor system runs on.
     * @param retryAfterNs how long a failed connect is remembered before the next attempt.
     * @param lost         told why a connection to a peer was lost (not when it was closed), unless the system is
     *                     closing: the tells in flight on it became dead letters.
     */
    Peers(final Rivulet node, final long retryAfterNs, final Consumer<Throwable> lost)
    {
        this.node = node;
        this.retryAfterNs = retryAfterNs;
        this.lost = lost;
    }

    /**
     * @param address {@code host:port} of the node.
     * @return the connection; cold: connects on first subscription if there is none.
     */
    Mono<Connection> connection(final String address)
    {
        return Mono.defer(() ->
        {
            if (closed)
            {
                return Mono.error(new ActorNotFoundException("the actor system is closed"));
            }
            final Mono<Connection> existing = connections.get(address);
            if (existing != null)
            {
                return existing;
            }
            final Failure failure = failures.get(address);
            if (failure != null)
            {
                if (System.nanoTime() - failure.untilNs() < 0)
                {
                    return Mono.error(failure.error());
                }
                failures.remove(address, failure);
            }
            final Sinks.One<Connection> sink = Sinks.one();
            final Mono<Connection> connecting = sink.asMono();
            final Mono<Connection> raced = connections.putIfAbsent(address, connecting);
            if (raced != null)
            {
                return raced;
            }
            node.connect(address).subscribe(
                connection ->
                {
                    open.put(connection, Boolean.TRUE);
                    connection.onClose().subscribe(
                        ignored -> { },
                        error ->
                        {
                            forget(address, connecting, connection);
                            if (!closed)
                            {
                                lost.accept(error);
                            }
                        },
                        () -> forget(address, connecting, connection));
                    sink.tryEmitValue(connection);
                    if (closed)
                    {
                        connection.close();
                    }
                },
                error ->
                {
                    failures.put(address, new Failure(error, System.nanoTime() + retryAfterNs));
                    connections.remove(address, connecting);
                    sink.tryEmitError(error);
                });
            return connecting;
        });
    }

    /**
     * @param address {@code host:port} of a node.
     * @return the error of a recent failed connect to it, or null.
     */
    Throwable failure(final String address)
    {
        final Failure failure = failures.get(address);
        return failure != null && System.nanoTime() - failure.untilNs() < 0 ? failure.error() : null;
    }

    private void forget(final String address, final Mono<Connection> connecting, final Connection connection)
    {
        connections.remove(address, connecting);
        open.remove(connection);
    }

    /** Closes every connection; later requests fail. */
    void close()
    {
        closed = true;
        for (final Connection connection : open.keySet())
        {
            connection.close();
        }
        connections.clear();
    }
}
