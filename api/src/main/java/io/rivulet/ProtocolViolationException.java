package io.rivulet;

import io.rivulet.spi.Violation;

/** A frame broke the protocol (malformed, unexpected or beyond credits); the connection is closed. */
public class ProtocolViolationException extends RivuletException
{
    private final Violation reason;

    public ProtocolViolationException(final String message)
    {
        this(message, null);
    }

    /**
     * @param message what happened, naming the peer and the frame.
     * @param reason  which rule the frame broke; null when not known (the peer's own report).
     */
    public ProtocolViolationException(final String message, final Violation reason)
    {
        super(message);
        this.reason = reason;
    }

    /** @return which rule was broken, or null when not known. */
    public Violation reason()
    {
        return reason;
    }
}
