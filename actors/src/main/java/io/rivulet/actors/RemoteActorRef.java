package io.rivulet.actors;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;

/**
 * A ref to an actor on another node; every ref to the same path shares one {@link RemoteEndpoint}, so one
 * sender's messages to that actor travel in one ordered queue and channel.
 *
 * <p>Thread-safe.
 */
final class RemoteActorRef<T> implements ActorRef<T>
{
    private final RemoteEndpoint endpoint;

    RemoteActorRef(final RemoteEndpoint endpoint)
    {
        this.endpoint = endpoint;
    }

    RemoteEndpoint endpoint()
    {
        return endpoint;
    }

    @Override
    public String path()
    {
        return endpoint.path();
    }

    @Override
    public String name()
    {
        return endpoint.name();
    }

    @Override
    public boolean isLocal()
    {
        return false;
    }

    @Override
    public void tell(final T message)
    {
        endpoint.tell(Objects.requireNonNull(message, "message"));
    }

    @Override
    public boolean tryTell(final T message)
    {
        return endpoint.tryTell(Objects.requireNonNull(message, "message"));
    }

    @Override
    public <R> Mono<R> ask(final T message, final Class<R> replyType, final Duration timeout)
    {
        Objects.requireNonNull(message, "message");
        return endpoint.system().asks().reply(endpoint.ask(message, false), replyType, timeout, path());
    }

    @Override
    public <R> Mono<R> ask(final T message, final Class<R> replyType)
    {
        return ask(message, replyType, endpoint.system().context().askTimeout());
    }

    @Override
    public <R> Flux<R> askStream(final T message, final Class<R> replyType)
    {
        Objects.requireNonNull(message, "message");
        return endpoint.system().asks().streamReply(endpoint.ask(message, true), replyType, path());
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ActorRef<?> ref && path().equals(ref.path());
    }

    @Override
    public int hashCode()
    {
        return path().hashCode();
    }

    @Override
    public String toString()
    {
        return "ActorRef{" + path() + "}";
    }
}
