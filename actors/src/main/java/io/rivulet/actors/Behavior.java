package io.rivulet.actors;

/**
 * What an actor does with a message: a function of the message (and the state it closes over) returning the
 * behaviour for the next message. Return {@link Behaviors#same()} to keep this one, a new behaviour to change
 * state, {@link Behaviors#stopped()} to stop.
 *
 * <pre>{@code
 * static Behavior<Tick> counter(final long count)
 * {
 *     return (context, tick) -> counter(count + 1);      // the state is the argument
 * }
 * }</pre>
 *
 * <p>Called on one dispatcher thread at a time, one message at a time, so a behaviour needs no locking.
 * It must not block: ask other actors and {@link ActorContext#pipeToSelf pipe} the result back.
 *
 * @param <T> the type of message the actor accepts.
 */
@FunctionalInterface
public interface Behavior<T>
{
    /**
     * @param context the actor's context, valid during this call.
     * @param message the message.
     * @return the behaviour for the next message; {@link Behaviors#same()} to keep this one.
     * @throws Exception a failure, handled by the actor's {@link SupervisorStrategy}.
     */
    Behavior<T> onMessage(ActorContext<T> context, T message) throws Exception;

    /**
     * @param context the actor's context, valid during this call.
     * @param signal  a lifecycle event; the return value is ignored for {@link PreRestart} and {@link PostStop}.
     * @return the behaviour for the next message; by default {@link Behaviors#same()}.
     * @throws Exception a failure, handled by the actor's {@link SupervisorStrategy}.
     */
    default Behavior<T> onSignal(final ActorContext<T> context, final Signal signal) throws Exception
    {
        return Behaviors.same();
    }
}
