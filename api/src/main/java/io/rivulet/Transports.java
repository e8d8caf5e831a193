package io.rivulet;

import io.rivulet.spi.DatagramProvider;
import io.rivulet.spi.Transport;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds transports by name among the implementations on the class path
 * ({@code META-INF/services/io.rivulet.spi.Transport}); "tcp" comes with {@code rivulet-transport-tcp}.
 */
public final class Transports
{
    private Transports()
    {
    }

    /** @return the TCP transport. */
    public static Transport tcp()
    {
        return byName("tcp");
    }

    /**
     * @param name a transport's {@link Transport#name()}.
     * @return the transport.
     * @throws IllegalArgumentException naming the transports that are available when none matches.
     */
    public static Transport byName(final String name)
    {
        final List<String> available = new ArrayList<>();
        for (final Transport transport : ServiceLoader.load(Transport.class))
        {
            if (transport.name().equalsIgnoreCase(name))
            {
                return transport;
            }
            available.add(transport.name());
        }
        throw new IllegalArgumentException("no transport named '" + name + "' on the class path (available: " +
            (available.isEmpty() ? "none; add rivulet-transport-tcp" : String.join(", ", available)) + ")");
    }

    /**
     * @param name a datagram network's {@link DatagramProvider#name()} ("udp" comes with {@code rivulet-transport-udp}).
     * @return the datagram network.
     * @throws IllegalArgumentException naming the networks that are available when none matches.
     */
    public static DatagramProvider datagrams(final String name)
    {
        final List<String> available = new ArrayList<>();
        for (final DatagramProvider provider : ServiceLoader.load(DatagramProvider.class))
        {
            if (provider.name().equalsIgnoreCase(name))
            {
                return provider;
            }
            available.add(provider.name());
        }
        throw new IllegalArgumentException("no datagram network named '" + name + "' on the class path (available: " +
            (available.isEmpty() ? "none; add rivulet-transport-udp" : String.join(", ", available)) + ")");
    }
}
