package io.rivulet.actors;

import java.util.Objects;

/**
 * Factories of {@link Behavior}s, like Akka Typed's {@code Behaviors}.
 *
 * <p>State and restarts: a restart returns the actor to the behaviour it was spawned with. State passed
 * along in behaviours ({@link #withState}, or closures as in {@link Behavior}'s example) therefore restarts
 * from its initial value, provided that value is immutable. Mutable state belongs in a {@link #setup}
 * factory, which runs again at every restart and so makes it afresh.
 */
public final class Behaviors
{
    private static final Behavior<Object> SAME = new Marker("same");
    private static final Behavior<Object> STOPPED = new Marker("stopped");

    private Behaviors()
    {
    }

    /** @return keep the current behaviour (and its state). */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> same()
    {
        return (Behavior<T>)SAME;
    }

    /** @return stop the actor after this message. */
    @SuppressWarnings("unchecked")
    public static <T> Behavior<T> stopped()
    {
        return (Behavior<T>)STOPPED;
    }

    /**
     * @param factory makes the behaviour with the actor's context; runs when the actor starts and again at
     *                every restart (making fresh state, watches and resources).
     * @return a deferred behaviour.
     */
    public static <T> Behavior<T> setup(final Factory<T> factory)
    {
        return new Setup<>(Objects.requireNonNull(factory, "factory"));
    }

    /**
     * @param onMessage handles messages; a {@link #setup} behaviour is set up first, then its result is used.
     * @param onSignal  handles signals (instead of the message behaviour's own).
     * @return a behaviour of the two.
     */
    public static <T> Behavior<T> receive(final Behavior<T> onMessage, final SignalHandler<T> onSignal)
    {
        Objects.requireNonNull(onMessage, "onMessage");
        Objects.requireNonNull(onSignal, "onSignal");
        if (onMessage instanceof Setup<T> setup)
        {
            return setup(context -> receive(setup.create(context), onSignal));
        }
        return new Behavior<>()
        {
            @Override
            public Behavior<T> onMessage(final ActorContext<T> context, final T message) throws Exception
            {
                return onMessage.onMessage(context, message);
            }

            @Override
            public Behavior<T> onSignal(final ActorContext<T> context, final Signal signal) throws Exception
            {
                return onSignal.onSignal(context, signal);
            }
        };
    }

    /**
     * A behaviour as a function of message and state returning the next state. Returning the same state
     * object keeps the behaviour; stop with {@link ActorContext#stop()}.
     *
     * @param initial the state at start and after each restart; should be immutable (see class javadoc).
     * @param handler computes the next state.
     * @return the behaviour.
     */
    public static <T, S> Behavior<T> withState(final S initial, final StateHandler<T, S> handler)
    {
        Objects.requireNonNull(handler, "handler");
        return new Stateful<>(initial, handler);
    }

    static boolean isSame(final Behavior<?> behavior)
    {
        return behavior == SAME || behavior == null;
    }

    static boolean isStopped(final Behavior<?> behavior)
    {
        return behavior == STOPPED;
    }

    /** Makes a behaviour from the actor's context. */
    @FunctionalInterface
    public interface Factory<T>
    {
        Behavior<T> create(ActorContext<T> context) throws Exception;
    }

    /** Handles signals. */
    @FunctionalInterface
    public interface SignalHandler<T>
    {
        Behavior<T> onSignal(ActorContext<T> context, Signal signal) throws Exception;
    }

    /** Computes the next state from the current one and a message. */
    @FunctionalInterface
    public interface StateHandler<T, S>
    {
        S apply(ActorContext<T> context, S state, T message) throws Exception;
    }

    /** A deferred behaviour: the factory runs at start and restart. */
    static final class Setup<T> implements Behavior<T>
    {
        private final Factory<T> factory;

        Setup(final Factory<T> factory)
        {
            this.factory = factory;
        }

        Behavior<T> create(final ActorContext<T> context) throws Exception
        {
            return factory.create(context);
        }

        @Override
        public Behavior<T> onMessage(final ActorContext<T> context, final T message)
        {
            throw new IllegalStateException("a setup behaviour must be started before it receives messages");
        }
    }

    private static final class Stateful<T, S> implements Behavior<T>
    {
        private final S state;
        private final StateHandler<T, S> handler;

        Stateful(final S state, final StateHandler<T, S> handler)
        {
            this.state = state;
            this.handler = handler;
        }

        @Override
        public Behavior<T> onMessage(final ActorContext<T> context, final T message) throws Exception
        {
            final S next = handler.apply(context, state, message);
            return next == state ? same() : new Stateful<>(next, handler);
        }
    }

    private static final class Marker implements Behavior<Object>
    {
        private final String name;

        Marker(final String name)
        {
            this.name = name;
        }

        @Override
        public Behavior<Object> onMessage(final ActorContext<Object> context, final Object message)
        {
            throw new IllegalStateException("Behaviors." + name + "() is a marker, not a behaviour to run");
        }

        @Override
        public String toString()
        {
            return "Behaviors." + name + "()";
        }
    }
}
