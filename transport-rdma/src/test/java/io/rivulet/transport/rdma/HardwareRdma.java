package io.rivulet.transport.rdma;

import io.rivulet.tck.TestTime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * What the hardware suites (tag {@code rdma-hardware}) run on: the RDMA address from {@code -Drivulet.rdma.address}
 * (else the first IPv4 address of an interface with an RDMA device), and timeouts scaled by
 * {@link TestTime}'s factor.
 */
public final class HardwareRdma
{
    /** The address of this host's RDMA interface the hardware suites bind and connect to. */
    public static final String ADDRESS_PROP = "rivulet.rdma.address";

    private HardwareRdma()
    {
    }

    /** @return the RDMA address, or null when none is configured or found. */
    public static InetAddress address()
    {
        final String configured = System.getProperty(ADDRESS_PROP);
        if (null != configured && !configured.isBlank())
        {
            try
            {
                return InetAddress.getByName(configured.strip());
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ADDRESS_PROP + ": cannot resolve '" + configured + "'", ex);
            }
        }
        return new RdmaDevices().rdmaInterfaceAddress().orElse(null);
    }

    /** @return {@code seconds} scaled, in nanoseconds. */
    public static long timeoutNs(final long seconds)
    {
        return TestTime.nanos(seconds, TimeUnit.SECONDS);
    }
}
