package io.rivulet.actors;

import io.rivulet.RivuletException;

/** A message met a full queue: a mailbox with {@link OverflowPolicy#REJECT}, one that stayed full for the send timeout under {@link OverflowPolicy#BACK_PRESSURE}, or too many asks in flight. */
public class MailboxFullException extends RivuletException
{
    public MailboxFullException(final String message)
    {
        super(message);
    }

    public MailboxFullException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
