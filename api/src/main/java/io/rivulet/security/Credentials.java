package io.rivulet.security;

import java.nio.charset.StandardCharsets;

/**
 * What a connecting peer presented: the metadata of its SETUP frame (the token) and, over mutual TLS, the
 * subject of its verified certificate.
 *
 * @param setupMetadata the SETUP frame's metadata bytes, empty when the client sent none.
 * @param peerPrincipal the verified TLS peer's subject (an X.500 name such as {@code CN=client}), or null
 *                      when the link is not TLS or the peer presented no certificate.
 * @param remoteAddress the peer as {@code host:port}, for logs; not proof of identity.
 */
public record Credentials(byte[] setupMetadata, String peerPrincipal, String remoteAddress)
{
    /** @return the SETUP metadata read as a UTF-8 token. */
    public String token()
    {
        return new String(setupMetadata, StandardCharsets.UTF_8);
    }
}
