package io.rivulet.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.List;

/**
 * Accepts a peer whose SETUP token ({@link Credentials#tokenBytes()}: the raw SETUP metadata, or its
 * {@value Credentials#AUTHORIZATION} entry when that is composite metadata) equals one of a fixed set of tokens. Comparison is constant-time
 * per token ({@link MessageDigest#isEqual}) so that response timing does not leak a token's prefix.
 *
 * <p>Immutable and thread-safe.
 */
public final class TokenAuthenticator implements Authenticator
{
    private final List<byte[]> tokens;

    /**
     * @param tokens accepted tokens, at least one, none empty.
     * @throws IllegalArgumentException when there is no token or one is empty.
     */
    public TokenAuthenticator(final Collection<String> tokens)
    {
        if (tokens.isEmpty())
        {
            throw new IllegalArgumentException("at least one token is required");
        }
        this.tokens = tokens.stream().map(token ->
        {
            if (token == null || token.isEmpty())
            {
                throw new IllegalArgumentException("tokens must not be empty");
            }
            return token.getBytes(StandardCharsets.UTF_8);
        }).toList();
    }

    @Override
    public void authenticate(final Credentials credentials)
    {
        final byte[] presented = credentials.tokenBytes();
        if (presented.length == 0)
        {
            throw new AuthenticationException("authentication required: no token in SETUP");
        }
        boolean match = false;
        for (final byte[] token : tokens)
        {
            match |= MessageDigest.isEqual(token, presented); // no early exit: every token is compared
        }
        if (!match)
        {
            throw new AuthenticationException("authentication failed: token not accepted");
        }
    }

    @Override
    public String toString()
    {
        return "TokenAuthenticator{" + tokens.size() + " token(s)}";
    }
}
