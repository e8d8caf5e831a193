package io.rivulet.security;

import java.util.Arrays;

/**
 * Decides whether a connecting peer may use this node, from its SETUP token and its mutual-TLS identity.
 * A refused connection gets ERROR (REJECTED_SETUP) with the reason, is closed, and is counted
 * ({@code setups rejected}); the client's {@code connect} fails with a {@link io.rivulet.RejectedException}.
 *
 * <p>Runs on the node's conductor thread once per connection, after the SETUP frame arrived and before
 * any request is served: it must be quick and must not block (check against data already in memory). A node
 * puts a per-address back-off in front of it ({@link ThrottledAuthenticator}): an address that keeps failing
 * is refused for a while without this being called.
 *
 * <pre>{@code
 * new Rivulet.Context().authenticator(Authenticator.tokens("s3cret"));            // server
 * new Rivulet.Context().authToken("s3cret");                                      // client
 * }</pre>
 */
@FunctionalInterface
public interface Authenticator
{
    /** Accepts everyone: the default. */
    Authenticator ALLOW_ALL = credentials -> { };

    /**
     * @param credentials what the peer presented.
     * @throws AuthenticationException to refuse the connection; its message is sent to the peer.
     */
    void authenticate(Credentials credentials) throws AuthenticationException;

    /**
     * Names who the peer is, once {@link #authenticate} accepted it; an {@link io.rivulet.Acceptor} sees the name as
     * {@link io.rivulet.ConnectionSetup#principal()}. Runs on the conductor like {@link #authenticate}.
     *
     * @param credentials what the peer presented, accepted.
     * @return the principal; by default the verified TLS peer's subject, or null without one.
     */
    default String principal(final Credentials credentials)
    {
        return credentials.peerPrincipal();
    }

    /**
     * @param tokens the tokens to accept (UTF-8, compared in constant time).
     * @return an authenticator that accepts a peer whose SETUP token is one of the tokens.
     */
    static Authenticator tokens(final String... tokens)
    {
        return new TokenAuthenticator(Arrays.asList(tokens));
    }

    /**
     * @param principals subjects of client certificates to accept, e.g. {@code CN=orders,O=Example}.
     * @return an authenticator that accepts a mutual-TLS peer whose verified certificate subject is one
     *         of the names; a peer without a verified certificate is refused.
     */
    static Authenticator principals(final String... principals)
    {
        return new PrincipalAuthenticator(Arrays.asList(principals));
    }
}
