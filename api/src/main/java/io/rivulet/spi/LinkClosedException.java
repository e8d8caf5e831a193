package io.rivulet.spi;

import java.io.IOException;

/** The peer closed the link in an orderly way (end of stream). */
public class LinkClosedException extends IOException
{
    public LinkClosedException(final String message)
    {
        super(message);
    }
}
