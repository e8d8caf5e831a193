package io.rivulet.actors;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A ref to an actor of its own actor system: messages go straight into the mailbox, no serialization.
 * Resolves its name again when the actor it knew has stopped, so it reaches a re-spawned actor.
 *
 * <p>Thread-safe.
 */
final class LocalActorRef<T> implements ActorRef<T>
{
    private static final long RETRY_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ActorSystem system;
    private final String name;
    private final String path;
    private volatile ActorCell<?> cell;

    LocalActorRef(final ActorSystem system, final String name, final String path, final ActorCell<?> cell)
    {
        this.system = system;
        this.name = name;
        this.path = path;
        this.cell = cell;
    }

    ActorSystem system()
    {
        return system;
    }

    /** @return the actor this ref last reached, running or not, or null. */
    ActorCell<?> knownCell()
    {
        return cell;
    }

    /** @return the running actor of this name, or null. */
    ActorCell<?> cell()
    {
        final ActorCell<?> known = cell;
        if (known != null && !known.isStopped())
        {
            return known;
        }
        final ActorCell<?> current = system.cell(name);
        if (current != null)
        {
            cell = current;
        }
        return current;
    }

    @Override
    public String path()
    {
        return path;
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public boolean isLocal()
    {
        return true;
    }

    @Override
    public void tell(final T message)
    {
        Objects.requireNonNull(message, "message");
        final ActorCell<?> target = cell();
        if (target == null)
        {
            system.counters().deadLetters.increment();
            return;
        }
        int result = target.offer(message);
        if (result == ActorCell.FULL)
        {
            if (target.overflowPolicy() == OverflowPolicy.REJECT)
            {
                target.onRejected();
                throw new MailboxFullException("the mailbox of " + path + " is full (" + target.capacity() +
                    " messages, policy REJECT)");
            }
            result = system.awaitOffer(() -> target.offer(message), "the mailbox of " + path);
        }
        if (result == ActorCell.STOPPED)
        {
            system.counters().deadLetters.increment();
        }
    }

    @Override
    public boolean tryTell(final T message)
    {
        Objects.requireNonNull(message, "message");
        final ActorCell<?> target = cell();
        if (target == null)
        {
            system.counters().deadLetters.increment();
            return false;
        }
        final int result = target.offer(message);
        if (result == ActorCell.FULL && target.overflowPolicy() == OverflowPolicy.REJECT)
        {
            target.onRejected();
        }
        else if (result == ActorCell.STOPPED)
        {
            system.counters().deadLetters.increment();
        }
        return result == ActorCell.ACCEPTED;
    }

    @Override
    public <R> Mono<R> ask(final T message, final Class<R> replyType, final Duration timeout)
    {
        Objects.requireNonNull(message, "message");
        return system.asks().reply(askRaw(message), replyType, timeout, path);
    }

    @Override
    public <R> Mono<R> ask(final T message, final Class<R> replyType)
    {
        return ask(message, replyType, system.context().askTimeout());
    }

    @Override
    public <R> Flux<R> askStream(final T message, final Class<R> replyType)
    {
        Objects.requireNonNull(message, "message");
        return system.asks().streamReply(askRaw(message), replyType, path);
    }

    private Mono<Object> askRaw(final T message)
    {
        return Mono.create(sink ->
        {
            system.counters().asks.increment();
            final Reply replier = new Reply(system.counters(), sink);
            sink.onCancel(replier::cancel);
            deliver(new Envelope.Local(message, replier), replier, sink, true);
        });
    }

    /** Offers an ask; a full BACK_PRESSURE mailbox is retried off-thread until the ask is cancelled or times out. */
    private void deliver(final Envelope envelope, final Reply replier, final MonoSink<Object> sink, final boolean first)
    {
        if (!replier.expectsReply())
        {
            return;
        }
        final ActorCell<?> target = cell();
        final int result = target == null ? ActorCell.STOPPED : target.offer(envelope);
        if (result == ActorCell.ACCEPTED)
        {
            return;
        }
        if (result == ActorCell.STOPPED)
        {
            replier.fail(new ActorNotFoundException("no running actor at " + path));
            return;
        }
        if (target.overflowPolicy() == OverflowPolicy.REJECT)
        {
            target.onRejected();
            replier.fail(new MailboxFullException("the mailbox of " + path + " is full (" + target.capacity() +
                " messages, policy REJECT)"));
            return;
        }
        if (first)
        {
            system.counters().backPressureWaits.increment();
        }
        system.schedule(RETRY_NS, () -> deliver(envelope, replier, sink, false));
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ActorRef<?> ref && path.equals(ref.path());
    }

    @Override
    public int hashCode()
    {
        return path.hashCode();
    }

    @Override
    public String toString()
    {
        return "ActorRef{" + path + "}";
    }

    /** Answers a local ask: the reply object itself, no serialization. */
    static final class Reply extends AbstractReplier
    {
        private final MonoSink<Object> sink;

        Reply(final ActorCounters counters, final MonoSink<Object> sink)
        {
            super(counters, true);
            this.sink = sink;
        }

        @Override
        void onReply(final Object value)
        {
            sink.success(value);
        }

        @Override
        void onReplyStream(final org.reactivestreams.Publisher<?> replies)
        {
            sink.success(new StreamReply(replies));
        }

        @Override
        void onFail(final Throwable error)
        {
            sink.error(error);
        }
    }
}
