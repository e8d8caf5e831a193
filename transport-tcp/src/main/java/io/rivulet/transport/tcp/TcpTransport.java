package io.rivulet.transport.tcp;

import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;

import java.io.IOException;
import java.util.Objects;

/**
 * The {@code "tcp"} transport, found through {@link java.util.ServiceLoader}.
 *
 * <p>Stateless and thread-safe; each {@link #open(TransportSettings)} creates an independent
 * {@link TcpTransportDriver} owned by one engine thread.
 */
public final class TcpTransport implements Transport
{
    /** The name users give in {@code rivulet.transport}. */
    public static final String NAME = "tcp";

    private final TlsSettings tls;

    /**
     * Public for {@link java.util.ServiceLoader}: TLS when {@code rivulet.tcp.tls.*} properties give
     * certificates (see {@link TlsSettings#fromProperties()}), plain TCP otherwise.
     */
    public TcpTransport()
    {
        this(TlsSettings.fromProperties());
    }

    private TcpTransport(final TlsSettings tls)
    {
        this.tls = tls;
    }

    /**
     * @return plain TCP, whatever the properties say.
     */
    public static TcpTransport plain()
    {
        return new TcpTransport(null);
    }

    /**
     * @param settings the TLS configuration every link of the node uses (servers and clients).
     * @return TCP with TLS.
     */
    public static TcpTransport tls(final TlsSettings settings)
    {
        return new TcpTransport(Objects.requireNonNull(settings, "settings"));
    }

    /**
     * @return the TLS settings, or null for plain TCP.
     */
    public TlsSettings tlsSettings()
    {
        return tls;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String name()
    {
        return NAME;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public TcpTransportDriver open(final TransportSettings settings) throws IOException
    {
        Objects.requireNonNull(settings, "settings");
        return new TcpTransportDriver(settings, tls);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return tls == null ? "TcpTransport" : "TcpTransport{" + tls + "}";
    }
}
