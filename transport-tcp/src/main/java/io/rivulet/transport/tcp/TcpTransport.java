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

    /**
     * Public for {@link java.util.ServiceLoader}.
     */
    public TcpTransport()
    {
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
        return new TcpTransportDriver(settings);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "TcpTransport";
    }
}
