package io.rivulet.actors;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The asking side of asks, local and remote alike: correlation ids, the timeout of each ask, and turning a raw
 * reply (a value, or a stream reply to open) into the typed reply the asker waits for.
 *
 * <p>Timeouts run on the given scheduler, so a test can step them with virtual time.
 *
 * <p>Thread-safe.
 */
final class Asks
{
    private final AtomicLong correlationIds = new AtomicLong();
    private final ActorCounters counters;
    private final Duration defaultTimeout;
    private final Scheduler timer;

    /**
     * @param counters       counts timeouts.
     * @param defaultTimeout the timeout of a stream ask's answer.
     * @param timer          runs the timeouts.
     */
    Asks(final ActorCounters counters, final Duration defaultTimeout, final Scheduler timer)
    {
        this.counters = counters;
        this.defaultTimeout = defaultTimeout;
        this.timer = timer;
    }

    /** @return a correlation id unique in this system, which matches a remote reply to its ask. */
    long nextCorrelationId()
    {
        return correlationIds.incrementAndGet();
    }

    /**
     * @param raw       cold: the raw reply of the ask (a value, or a stream reply whose first element answers).
     * @param replyType the type the reply must have.
     * @param timeout   how long to wait for the reply.
     * @param path      the asked actor, for errors.
     * @return the reply, or {@link AskTimeoutException} after the timeout, or {@link ClassCastException}.
     */
    <R> Mono<R> reply(final Mono<Object> raw, final Class<R> replyType, final Duration timeout, final String path)
    {
        Objects.requireNonNull(replyType, "replyType");
        Objects.requireNonNull(timeout, "timeout");
        return raw.flatMap(Asks::firstOf)
            .timeout(timeout, timedOut(path, timeout), timer)
            .map(reply -> cast(replyType, reply, path));
    }

    /**
     * @param raw       cold: the raw reply of the stream ask (a stream reply, or a single value).
     * @param replyType the type every element must have.
     * @param path      the asked actor, for errors.
     * @return the elements; only the wait for the answer times out (after the default timeout), not the stream.
     */
    <R> Flux<R> streamReply(final Mono<Object> raw, final Class<R> replyType, final String path)
    {
        Objects.requireNonNull(replyType, "replyType");
        final Duration timeout = defaultTimeout;
        return raw.timeout(timeout, timedOut(path, timeout), timer)
            .flatMapMany(Asks::streamOf)
            .map(element -> cast(replyType, element, path));
    }

    private Mono<Object> timedOut(final String path, final Duration timeout)
    {
        return Mono.defer(() ->
        {
            counters.askTimeouts.increment();
            return Mono.error(new AskTimeoutException("no reply from " + path + " within " + timeout.toMillis() +
                " ms"));
        });
    }

    @SuppressWarnings("unchecked")
    private static Mono<Object> firstOf(final Object reply)
    {
        if (reply instanceof AbstractReplier.StreamReply stream)
        {
            return Mono.from((Publisher<Object>)stream.replies());
        }
        if (reply instanceof RemoteEndpoint.RemoteStream stream)
        {
            return stream.open().next();
        }
        return Mono.just(reply);
    }

    @SuppressWarnings("unchecked")
    private static Flux<Object> streamOf(final Object reply)
    {
        if (reply instanceof AbstractReplier.StreamReply stream)
        {
            return Flux.from((Publisher<Object>)stream.replies());
        }
        if (reply instanceof RemoteEndpoint.RemoteStream stream)
        {
            return stream.open();
        }
        return Flux.just(reply);
    }

    private static <R> R cast(final Class<R> type, final Object value, final String path)
    {
        if (!type.isInstance(value))
        {
            throw new ClassCastException("the reply from " + path + " is a " + value.getClass().getName() + ", not a " +
                type.getName());
        }
        return type.cast(value);
    }
}
