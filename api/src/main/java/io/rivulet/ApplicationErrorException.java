package io.rivulet;

/** The remote handler failed; the message is the remote error's message (APPLICATION_ERROR). */
public class ApplicationErrorException extends RivuletException
{
    public ApplicationErrorException(final String message)
    {
        super(message);
    }
}
