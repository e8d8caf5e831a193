package io.rivulet.actors;

import io.rivulet.RivuletException;

/** No running actor at the path: never spawned, stopped, or its actor system closed. */
public class ActorNotFoundException extends RivuletException
{
    public ActorNotFoundException(final String message)
    {
        super(message);
    }

    public ActorNotFoundException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
