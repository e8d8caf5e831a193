package io.rivulet;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * What a client sent in SETUP and who it is, as an {@link Acceptor} sees it: the SETUP's metadata and data, the
 * principal the node authenticated, and the client's address.
 *
 * <p>SETUP metadata is either the client's raw authentication token (a client that gives no SETUP of its own) or
 * composite {@link Metadata} (a client that does; its token then travels as the
 * {@link io.rivulet.security.Credentials#AUTHORIZATION} entry, which this view leaves out).
 *
 * <p>Immutable and thread-safe.
 */
public final class ConnectionSetup
{
    private final byte[] metadata;
    private final byte[] data;
    private final String principal;
    private final String remoteAddress;
    private Metadata composite;

    /**
     * @param metadata      the SETUP's metadata bytes (not copied).
     * @param data          the SETUP's data bytes (not copied).
     * @param principal     who the node authenticated, or null.
     * @param remoteAddress the client as {@code host:port}.
     */
    public ConnectionSetup(final byte[] metadata, final byte[] data, final String principal, final String remoteAddress)
    {
        this.metadata = metadata;
        this.data = data;
        this.principal = principal;
        this.remoteAddress = remoteAddress;
    }

    /** @return a copy of the SETUP's metadata bytes, as sent (a composite one with its token entry). */
    public byte[] metadataBytes()
    {
        return metadata.clone();
    }

    /** @return whether the SETUP's metadata is composite metadata (starts as one; see {@link #metadata()}). */
    public boolean hasCompositeMetadata()
    {
        return Metadata.isComposite(new UnsafeBuffer(metadata), 0, metadata.length);
    }

    /**
     * @return the SETUP's composite metadata without the token entry; {@link Metadata#empty()} when the client sent
     *         none or a raw token.
     * @throws MalformedMetadataException when it starts as composite metadata but is malformed.
     */
    public Metadata metadata()
    {
        Metadata decoded = composite;
        if (decoded == null)
        {
            decoded = hasCompositeMetadata() ?
                Metadata.decode(new UnsafeBuffer(metadata), 0, metadata.length)
                    .without(io.rivulet.security.Credentials.AUTHORIZATION) :
                Metadata.empty();
            composite = decoded;
        }
        return decoded;
    }

    /** @return a copy of the SETUP's data. */
    public byte[] data()
    {
        return data.clone();
    }

    /** @return the SETUP's data read as UTF-8. */
    public String dataUtf8()
    {
        return new String(data, StandardCharsets.UTF_8);
    }

    /**
     * @return who the node authenticated: what its {@link io.rivulet.security.Authenticator} named
     *         ({@link io.rivulet.security.Authenticator#principal}; by default the verified TLS client certificate's
     *         subject), or null when nobody was named.
     */
    public String principal()
    {
        return principal;
    }

    /** @return the client as {@code host:port}, for logs; not proof of identity. */
    public String remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public String toString()
    {
        return "ConnectionSetup{from " + remoteAddress + ", principal=" + principal + ", " + metadata.length +
            " bytes of metadata, " + data.length + " bytes of data}";
    }
}
