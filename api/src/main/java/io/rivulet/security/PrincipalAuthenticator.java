package io.rivulet.security;

import javax.security.auth.x500.X500Principal;
import java.util.Collection;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Accepts a mutual-TLS peer whose verified certificate subject is in a fixed set. Names are compared in
 * canonical X.500 form, so spacing and case of attribute types do not matter.
 *
 * <p>Immutable and thread-safe.
 */
public final class PrincipalAuthenticator implements Authenticator
{
    private final Set<String> principals;

    /**
     * @param principals accepted subjects, such as {@code CN=orders,O=Example}; at least one.
     * @throws IllegalArgumentException when empty or a name is not a valid X.500 name.
     */
    public PrincipalAuthenticator(final Collection<String> principals)
    {
        if (principals.isEmpty())
        {
            throw new IllegalArgumentException("at least one principal is required");
        }
        this.principals = principals.stream().map(PrincipalAuthenticator::canonical).collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public void authenticate(final Credentials credentials)
    {
        final String principal = credentials.peerPrincipal();
        if (principal == null)
        {
            throw new AuthenticationException("authentication required: no verified TLS client certificate");
        }
        if (!principals.contains(canonical(principal)))
        {
            throw new AuthenticationException("authentication failed: certificate subject not accepted");
        }
    }

    private static String canonical(final String name)
    {
        return new X500Principal(name).getName(X500Principal.CANONICAL);
    }

    @Override
    public String toString()
    {
        return "PrincipalAuthenticator{" + principals + "}";
    }
}
