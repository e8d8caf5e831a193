package io.rivulet;

/** The connection was closed, locally or by the peer, while the operation was in flight. */
public class ConnectionClosedException extends RivuletException
{
    public ConnectionClosedException(final String message)
    {
        super(message);
    }
}
