package io.rivulet;

/** The peer rejected the request or the connection set-up (REJECTED, REJECTED_SETUP, INVALID...). */
public class RejectedException extends RivuletException
{
    public RejectedException(final String message)
    {
        super(message);
    }
}
