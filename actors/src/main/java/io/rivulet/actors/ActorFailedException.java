package io.rivulet.actors;

import io.rivulet.RivuletException;

/**
 * An actor's behaviour threw. The asker of the failing message gets this as its error (for a remote actor
 * with the cause's text only); the actor system's error handler gets it with the supervisor's decision.
 */
public class ActorFailedException extends RivuletException
{
    private final String path;

    public ActorFailedException(final String path, final String message)
    {
        super(message);
        this.path = path;
    }

    public ActorFailedException(final String path, final String message, final Throwable cause)
    {
        super(message, cause);
        this.path = path;
    }

    /** @return the failed actor's path. */
    public String path()
    {
        return path;
    }
}
