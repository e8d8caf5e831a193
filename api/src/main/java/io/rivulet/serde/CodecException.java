package io.rivulet.serde;

import io.rivulet.RivuletException;

/** A value cannot be encoded, or bytes cannot be decoded into the type wanted, or no codec fits. */
public class CodecException extends RivuletException
{
    /** @param message what failed: the type, the content type, and why. */
    public CodecException(final String message)
    {
        super(message);
    }

    /**
     * @param message what failed.
     * @param cause   the codec's own error.
     */
    public CodecException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
