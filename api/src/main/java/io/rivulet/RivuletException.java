package io.rivulet;

/**
 * Base of the errors Rivulet signals to Reactor subscribers and callers. Subclasses say what went
 * wrong: the peer's handler failed, the connection closed or was lost, the peer broke the protocol,
 * a request was rejected, a message was too large.
 */
public class RivuletException extends RuntimeException
{
    public RivuletException(final String message)
    {
        super(message);
    }

    public RivuletException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
