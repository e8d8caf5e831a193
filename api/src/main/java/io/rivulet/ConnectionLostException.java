package io.rivulet;

/** The connection broke: an I/O error, or no frame from the peer within the keepalive timeout. */
public class ConnectionLostException extends RivuletException
{
    public ConnectionLostException(final String message)
    {
        super(message);
    }

    public ConnectionLostException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
