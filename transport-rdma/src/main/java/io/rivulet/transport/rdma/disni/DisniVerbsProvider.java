package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.RdmaDevices;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.VerbsProvider;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code disni} provider: RDMA hardware (InfiniBand, RoCE, iWARP) through DiSNI 2.1.
 *
 * <p>Needs, on the RDMA host: {@code libdisni} built from DiSNI's C sources and on
 * {@code java.library.path}; {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED} on JDK 16+; an
 * RDMA device with the {@code rdma_ucm} module loaded; a locked-memory limit covering the registered
 * memory. {@link #availability()} checks all but the last without risking the JVM and names what is
 * missing.
 *
 * <p>Supports RC queue pairs with SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ and
 * inline sends through DiSNI. What DiSNI 2.1 cannot do (UD queue pairs, address handles, multicast,
 * atomics) goes through Rivulet's JNI extension, librivulet-verbs, when the build compiled it (it needs
 * rdma-core's headers); otherwise those calls fail with a {@link VerbsException} saying why.
 */
public final class DisniVerbsProvider implements VerbsProvider
{
    public static final String NAME = "disni";

    private final DisniSettings settings;

    /** With settings from the {@code rivulet.rdma.disni.*} system properties. */
    public DisniVerbsProvider()
    {
        this(new DisniSettings());
    }

    public DisniVerbsProvider(final DisniSettings settings)
    {
        this.settings = Objects.requireNonNull(settings, "settings").conclude();
    }

    @Override
    public String name()
    {
        return NAME;
    }

    /**
     * Loads DiSNI's native library at most once per JVM, and only after finding it on
     * {@code java.library.path}; opens and closes an RDMA CM event channel when everything else is there.
     */
    @Override
    public Availability availability()
    {
        return DisniAvailability.evaluate(DisniAvailability.Environment.current());
    }

    /**
     * @param localAddress the IPv4 address of one of this host's RDMA interfaces; its device is opened.
     * @throws IOException with the reason when the provider is unavailable, or naming the address when
     *                     no RDMA device serves it.
     */
    @Override
    public VerbsContext open(final InetAddress localAddress) throws IOException
    {
        final Availability availability = availability();
        if (!availability.available())
        {
            throw new VerbsException("RDMA provider disni unavailable: " + availability.reason());
        }
        return DisniVerbsContext.open(localAddress, settings, new RdmaDevices());
    }

    /**
     * @return the first IPv4 address of an interface with an RDMA device ({@link RdmaDevices#rdmaInterfaceAddress()}).
     */
    public static Optional<InetAddress> rdmaInterfaceAddress()
    {
        return new RdmaDevices().rdmaInterfaceAddress();
    }

    @Override
    public String toString()
    {
        return "DisniVerbsProvider{" + settings + "}";
    }
}
