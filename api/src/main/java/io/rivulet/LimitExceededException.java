package io.rivulet;

/**
 * A configured limit would be crossed: too many connections on a node, requests pending on a connection,
 * or bytes waiting to be sent. Raised locally instead of queueing without bound; the message names the
 * limit and the {@code rivulet.*} property that sets it.
 */
public class LimitExceededException extends RivuletException
{
    public LimitExceededException(final String message)
    {
        super(message);
    }
}
