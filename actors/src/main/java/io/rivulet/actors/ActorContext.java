package io.rivulet.actors;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import java.util.function.BiFunction;

/**
 * What a behaviour can do besides returning its next behaviour: answer the asker, watch other actors, pipe
 * asynchronous results back in as messages, stop.
 *
 * <p>Not thread-safe: use it only inside {@link Behavior#onMessage} and {@link Behavior#onSignal} (the
 * {@link Replier} from {@link #replier()} may be kept and used from any thread).
 *
 * @param <T> the type of message the actor accepts.
 */
public interface ActorContext<T>
{
    /** @return this actor. */
    ActorRef<T> self();

    /** @return the actor system this actor runs in. */
    ActorSystem system();

    /**
     * @return the way back to the asker of the current message; {@link Replier#expectsReply()} is false for a
     *         tell.
     */
    Replier replier();

    /**
     * Answers the current message's asker; for a tell the reply is a dead letter.
     *
     * @param value the reply; not null.
     */
    default void reply(final Object value)
    {
        replier().reply(value);
    }

    /**
     * Answers the current message's asker with a stream (see {@link Replier#replyStream}).
     *
     * @param replies the stream.
     */
    default void replyStream(final Publisher<?> replies)
    {
        replier().replyStream(replies);
    }

    /**
     * Death watch: the behaviour gets a {@link Terminated} signal when the actor stops, fails for good, is not
     * there, or its node becomes unreachable. Watching a path already watched does nothing.
     *
     * @param ref the actor to watch, local or remote.
     */
    void watch(ActorRef<?> ref);

    /**
     * @param ref an actor watched with {@link #watch}; no signal will come for it.
     */
    void unwatch(ActorRef<?> ref);

    /**
     * Sends the outcome of an asynchronous operation (an ask to another actor, say) to this actor as a
     * message, so that the behaviour handles it in turn rather than on another thread.
     *
     * @param result  subscribed now; its first value, its error or its empty completion is adapted.
     * @param adapter makes the message: (value, null), (null, error) or (null, null) when empty; runs on the
     *                thread that completes the result, so it must be quick.
     */
    <V> void pipeToSelf(Mono<V> result, BiFunction<? super V, Throwable, ? extends T> adapter);

    /** Stops this actor once the current message is handled. */
    void stop();

    /** @return how many times this actor has been restarted. */
    long restarts();
}
