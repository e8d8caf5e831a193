package io.rivulet.actors;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * A handle on an actor, local or on another node, named by its path {@code rivulet://host:port/name}. The
 * same calls work for both: a local ref puts messages straight into the actor's mailbox, a remote ref
 * serializes them and sends them over one ordered channel per target actor (see {@link ActorSystem}).
 *
 * <p>Ordering: messages one sender (a thread, or an actor) sends through refs to the same path are
 * processed in the order they were sent — tells, asks and stream asks alike. Delivery is at most once: a
 * message to a stopped actor, or one queued when a connection breaks, becomes a dead letter (counted in
 * {@link ActorCounters#deadLetters}).
 *
 * <p>A ref names a path, not one incarnation: once an actor stops and another is spawned under the same
 * name, the ref reaches the new one.
 *
 * <p>Thread-safe: any thread may use a ref. Reply signals arrive on the actor's dispatcher thread (local)
 * or on the node's engine thread (remote); do not block in them.
 *
 * @param <T> the type of message the actor accepts.
 */
public interface ActorRef<T>
{
    /** @return the path, {@code rivulet://host:port/name}. */
    String path();

    /** @return the actor's name, the last element of its path. */
    String name();

    /** @return true when the actor lives in the actor system this ref came from. */
    boolean isLocal();

    /**
     * Sends a message and expects no reply. When the target's queue is full the mailbox's
     * {@link OverflowPolicy} applies: {@link OverflowPolicy#BACK_PRESSURE} makes this call wait for room (up
     * to {@link ActorSystem.Context#sendTimeout}), {@link OverflowPolicy#REJECT} throws at once. A remote
     * ref's queue is the outbound queue to that actor, which fills when the remote mailbox back-pressures;
     * a remote REJECT mailbox drops on arrival and counts the rejection on its own node.
     *
     * <p>Because it may wait, do not call it with a BACK_PRESSURE target from an engine thread (a callback of a
     * remote reply): use {@link #tryTell} there, or {@link ActorContext#pipeToSelf} inside an actor.
     *
     * @param message to send; not null.
     * @throws MailboxFullException when the message could not be queued (REJECT policy, or still full after
     *                              the send timeout).
     * @throws SerializationException when a remote message has no codec or its codec fails.
     * @throws io.rivulet.MessageTooLargeException when a remote message exceeds the node's maxMessageLength.
     */
    void tell(T message);

    /**
     * Sends a message if it can be queued now, never waiting and never throwing for a full queue.
     *
     * @param message to send; not null.
     * @return true when queued; false when the queue was full (counted as rejected for a REJECT mailbox).
     */
    boolean tryTell(T message);

    /**
     * Sends a message that the actor answers with {@link ActorContext#reply(Object)} (or a stream, of which
     * the first element is the reply). Cold: the message is sent on subscription, once per subscription.
     *
     * @param message   to send; not null.
     * @param replyType the type of the reply; a reply of another type fails with {@link ClassCastException}.
     * @param timeout   how long to wait for the reply.
     * @param <R>       the type of the reply.
     * @return the reply; {@link AskTimeoutException} when none came in time; {@link ActorFailedException}
     *         when the actor failed handling the message; {@link MailboxFullException},
     *         {@link ActorNotFoundException}, or the connection's error for a remote actor.
     */
    <R> Mono<R> ask(T message, Class<R> replyType, Duration timeout);

    /**
     * {@link #ask(Object, Class, Duration)} with the actor system's {@link ActorSystem.Context#askTimeout}.
     */
    <R> Mono<R> ask(T message, Class<R> replyType);

    /**
     * Sends a message that the actor answers with a stream ({@link ActorContext#replyStream}); a single
     * {@link ActorContext#reply(Object)} becomes a stream of one. The subscriber's demand reaches the
     * actor's publisher, across the wire for a remote actor. The actor must answer within the system's
     * {@link ActorSystem.Context#askTimeout}; the stream itself has no timeout.
     *
     * @param message   to send; not null.
     * @param replyType the type of the stream's elements.
     * @param <R>       the type of the stream's elements.
     * @return the actor's stream; cold, one request per subscription.
     */
    <R> Flux<R> askStream(T message, Class<R> replyType);
}
