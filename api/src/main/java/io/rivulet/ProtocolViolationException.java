package io.rivulet;

/** A frame broke the protocol (malformed, unexpected or beyond credits); the connection is closed. */
public class ProtocolViolationException extends RivuletException
{
    public ProtocolViolationException(final String message)
    {
        super(message);
    }
}
