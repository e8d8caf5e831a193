package io.rivulet.spi;

import java.io.IOException;

/** The peer sent a frame whose delimiting is invalid, such as a length over the maximum. */
public class FramingException extends IOException
{
    public FramingException(final String message)
    {
        super(message);
    }
}
