package io.rivulet.security;

import io.rivulet.MalformedMetadataException;
import io.rivulet.Metadata;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * What a connecting peer presented: the metadata of its SETUP frame (which holds its token) and, over mutual TLS, the
 * subject of its verified certificate.
 *
 * <p>The token is the whole SETUP metadata when the client sent a raw token (a client that gives no SETUP of its
 * own: {@code Rivulet.Context.authToken}), or the {@value #AUTHORIZATION} entry when the SETUP metadata is composite
 * {@link Metadata} (a client that connects with a SETUP of its own).
 *
 * @param setupMetadata the SETUP frame's metadata bytes, empty when the client sent none.
 * @param peerPrincipal the verified TLS peer's subject (an X.500 name such as {@code CN=client}), or null
 *                      when the link is not TLS or the peer presented no certificate.
 * @param remoteAddress the peer as {@code host:port}, for logs; not proof of identity.
 */
public record Credentials(byte[] setupMetadata, String peerPrincipal, String remoteAddress)
{
    /** The composite SETUP metadata entry that carries the client's token. */
    public static final String AUTHORIZATION = "authorization";

    /**
     * @return the token's bytes: the SETUP metadata, or its {@value #AUTHORIZATION} entry when it is composite
     *         metadata; empty when there is none.
     * @throws AuthenticationException when the SETUP metadata starts as composite metadata but is malformed.
     */
    public byte[] tokenBytes()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(setupMetadata);
        if (!Metadata.isComposite(buffer, 0, setupMetadata.length))
        {
            return setupMetadata;
        }
        try
        {
            final byte[] token = Metadata.decode(buffer, 0, setupMetadata.length).bytes(AUTHORIZATION);
            return token == null ? new byte[0] : token;
        }
        catch (final MalformedMetadataException ex)
        {
            throw new AuthenticationException("SETUP metadata is malformed: " + ex.getMessage());
        }
    }

    /** @return the token read as UTF-8 (see {@link #tokenBytes()}). */
    public String token()
    {
        return new String(tokenBytes(), StandardCharsets.UTF_8);
    }
}
