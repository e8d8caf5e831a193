package io.rivulet.security;

import io.rivulet.RivuletException;

/**
 * Thrown by an {@link Authenticator} to refuse a connection; its message is the reason sent to the peer
 * in ERROR (REJECTED_SETUP), so it must not disclose secrets.
 */
public class AuthenticationException extends RivuletException
{
    public AuthenticationException(final String message)
    {
        super(message);
    }

    /**
     * @param message the reason sent to the peer.
     * @param cause   the refusal this one adds to.
     */
    public AuthenticationException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
