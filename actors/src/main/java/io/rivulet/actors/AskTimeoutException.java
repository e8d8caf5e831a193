package io.rivulet.actors;

import io.rivulet.RivuletException;

/** No reply to an ask within its timeout. */
public class AskTimeoutException extends RivuletException
{
    public AskTimeoutException(final String message)
    {
        super(message);
    }

    public AskTimeoutException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
