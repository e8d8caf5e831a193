package io.rivulet.transport.tcp;

import io.rivulet.ConfigurationException;
import io.rivulet.spi.PropertyValues;
import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;


import java.io.IOException;
import java.util.Objects;

/**
 * The {@code "tcp"} transport, found through {@link java.util.ServiceLoader}.
 *
 * <p>Immutable and thread-safe; each {@link #open(TransportSettings)} creates an independent
 * {@link TcpTransportDriver} owned by one engine thread.
 */
public final class TcpTransport implements Transport
{
    /** The name users give in {@code rivulet.transport}. */
    public static final String NAME = "tcp";

    /** Property for {@link #maxBufferMemory(long)}: a size, such as {@code 64m}. */
    public static final String MAX_BUFFER_MEMORY_PROPERTY = "rivulet.tcp.maxBufferMemory";

    /** Default of {@link #maxBufferMemory()}: 64 MiB. */
    public static final long DEFAULT_MAX_BUFFER_MEMORY = 64L * 1024 * 1024;

    private final TlsSettings tls;
    private final long maxBufferMemory;
    /** A bad property found by the {@link java.util.ServiceLoader} constructor, thrown when the transport is used. */
    private final ConfigurationException badProperty;

    /**
     * Public for {@link java.util.ServiceLoader}: TLS when {@code rivulet.tcp.tls.*} properties give
     * certificates (see {@link TlsSettings#fromProperties()}), plain TCP otherwise; buffer memory from
     * {@value #MAX_BUFFER_MEMORY_PROPERTY}. A bad property is thrown, naming it, by {@link #open} and the accessors
     * rather than here, where {@code ServiceLoader} would bury it in a {@code ServiceConfigurationError}.
     */
    public TcpTransport()
    {
        TlsSettings tls = null;
        long maxBufferMemory = DEFAULT_MAX_BUFFER_MEMORY;
        ConfigurationException badProperty = null;
        try
        {
            tls = TlsSettings.fromProperties();
            maxBufferMemory = maxBufferMemoryProperty();
        }
        catch (final ConfigurationException ex)
        {
            badProperty = ex;
        }
        this.tls = tls;
        this.maxBufferMemory = maxBufferMemory;
        this.badProperty = badProperty;
    }

    private TcpTransport(final TlsSettings tls, final long maxBufferMemory)
    {
        this.tls = tls;
        this.maxBufferMemory = maxBufferMemory;
        this.badProperty = null;
    }

    /**
     * @return plain TCP, whatever the TLS properties say.
     */
    public static TcpTransport plain()
    {
        return new TcpTransport(null, maxBufferMemoryProperty());
    }

    /**
     * @param settings the TLS configuration every link of the node uses (servers and clients).
     * @return TCP with TLS.
     */
    public static TcpTransport tls(final TlsSettings settings)
    {
        return new TcpTransport(Objects.requireNonNull(settings, "settings"), maxBufferMemoryProperty());
    }

    /**
     * How many bytes the buffers of all links together may grow beyond what one frame needs. Every link's buffers
     * start at a few KiB and may always grow to hold one frame of the maximum length (and, over TLS, one record);
     * growth past that, toward the configured link buffer length, only batches more bytes per system call and draws
     * on this budget. Once it is spent, links keep working with one-frame buffers, and
     * {@link TcpTransportDriver#bufferGrowthsRefused()} counts the refusals. Bounds the direct memory a crowd of busy
     * peers can take (4096 connections with 256 KiB buffers each way would otherwise hold 2 GiB).
     *
     * @param maxBufferMemory bytes, 0 or more ({@value #MAX_BUFFER_MEMORY_PROPERTY}, default 64 MiB); 0 keeps every
     *                        buffer at one frame.
     * @return a transport like this one with that budget.
     * @throws ConfigurationException when negative.
     */
    public TcpTransport maxBufferMemory(final long maxBufferMemory)
    {
        return new TcpTransport(tlsSettings(), validMaxBufferMemory(maxBufferMemory));
    }

    /**
     * @return bytes the buffers of all links together may grow beyond one frame each.
     * @throws ConfigurationException naming a bad property this transport was created from.
     */
    public long maxBufferMemory()
    {
        checkProperties();
        return maxBufferMemory;
    }

    /**
     * @return the TLS settings, or null for plain TCP.
     * @throws ConfigurationException naming a bad property this transport was created from.
     */
    public TlsSettings tlsSettings()
    {
        checkProperties();
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
        checkProperties();
        return new TcpTransportDriver(settings, tls, maxBufferMemory);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "TcpTransport{" + (tls == null ? "" : tls + ", ") + "maxBufferMemory=" + maxBufferMemory + "}";
    }

    private void checkProperties()
    {
        if (null != badProperty)
        {
            throw new ConfigurationException(badProperty.getMessage());
        }
    }

    private static long maxBufferMemoryProperty()
    {
        return PropertyValues.sizeLong(MAX_BUFFER_MEMORY_PROPERTY, DEFAULT_MAX_BUFFER_MEMORY);
    }

    private static long validMaxBufferMemory(final long value)
    {
        if (value < 0)
        {
            throw new ConfigurationException(MAX_BUFFER_MEMORY_PROPERTY + " must not be negative: " + value);
        }
        return value;
    }
}
