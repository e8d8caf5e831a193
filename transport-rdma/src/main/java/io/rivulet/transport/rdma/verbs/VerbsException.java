package io.rivulet.transport.rdma.verbs;

import java.io.IOException;

/** A verbs call failed at once (queue full, bad argument, device error). */
public class VerbsException extends IOException
{
    public VerbsException(final String message)
    {
        super(message);
    }

    public VerbsException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
