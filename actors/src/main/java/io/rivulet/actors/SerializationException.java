package io.rivulet.actors;

import io.rivulet.RivuletException;

/** A message has no serializer, or its serializer failed to encode or decode it. */
public class SerializationException extends RivuletException
{
    public SerializationException(final String message)
    {
        super(message);
    }

    public SerializationException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
