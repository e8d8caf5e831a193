package io.rivulet.actors;

/**
 * A lifecycle event delivered to {@link Behavior#onSignal}: {@link Terminated} (a watched actor is gone),
 * {@link PreRestart} (the behaviour is about to be replaced after a failure), {@link PostStop} (the actor
 * stopped).
 */
public sealed interface Signal permits Terminated, PreRestart, PostStop
{
}
