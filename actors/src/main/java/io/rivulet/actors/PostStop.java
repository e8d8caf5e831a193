package io.rivulet.actors;

/**
 * Delivered to the last behaviour when the actor stops; its return value is ignored.
 *
 * @param reason why the actor stopped ({@link Terminated.Reason#STOPPED} or {@link Terminated.Reason#FAILED}).
 */
public record PostStop(Terminated.Reason reason) implements Signal
{
}
