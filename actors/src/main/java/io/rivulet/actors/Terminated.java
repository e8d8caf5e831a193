package io.rivulet.actors;

/**
 * Death watch: a watched actor is gone, or can no longer be observed. Delivered to an actor that called
 * {@link ActorContext#watch} as a {@link Signal}, and emitted by {@link ActorSystem#watch}.
 *
 * @param path   of the watched actor.
 * @param reason why it is gone.
 * @param detail a description: the failure, or the connection error.
 */
public record Terminated(String path, Reason reason, String detail) implements Signal
{
    /** Why a watched actor is gone. */
    public enum Reason
    {
        /** It stopped: by returning {@link Behaviors#stopped()}, by {@link ActorSystem#stop} or with its system. */
        STOPPED,
        /** Its supervisor strategy stopped it after a failure (or the restart limit was reached). */
        FAILED,
        /** No actor ran at the path when the watch began. */
        NOT_FOUND,
        /**
         * Its node became unreachable: the connection closed, or keepalive detected a silent peer
         * ({@code rivulet.keepaliveTimeout}), or it could not be connected to.
         */
        UNREACHABLE
    }
}
