package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.NativeLibrary;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.VerbsProvider;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Objects;

/**
 * The {@code ibverbs} provider: RDMA hardware (InfiniBand, RoCE, iWARP, and Soft-RoCE for tests) through rdma-core
 * directly, with Rivulet's own JNI binding (librivulet-verbs, shipped in the rivulet-transport-rdma-native jar, a
 * dependency of this module). An RDMA host needs only its
 * distribution's rdma-core packages ({@code libibverbs1}, {@code librdmacm1} and the device's provider library),
 * which every RDMA host has; no DiSNI, no library built by hand.
 *
 * <p>Everything the verbs SPI offers: RC queue pairs through RDMA CM (connect, accept, reject, disconnect),
 * UD queue pairs and address handles, SEND/RECV, RDMA READ/WRITE (with immediate), atomics, inline sends; chains
 * of work requests posted and batches of completions polled with one JNI call each, and nothing allocated on the
 * data path.
 *
 * <p>Thread-safe: a stateless factory. Each {@link #open} gives a context for one thread (the engine's conductor).
 */
public final class IbverbsProvider implements VerbsProvider
{
    public static final String NAME = "ibverbs";

    private final IbverbsSettings settings;

    /** With settings from the {@code rivulet.rdma.ibverbs.*} system properties. */
    public IbverbsProvider()
    {
        this(new IbverbsSettings());
    }

    public IbverbsProvider(final IbverbsSettings settings)
    {
        this.settings = Objects.requireNonNull(settings, "settings").conclude();
    }

    @Override
    public String name()
    {
        return NAME;
    }

    /** Available when librivulet-verbs loads (rdma-core is installed) and {@code ibv_get_device_list} sees a device. */
    @Override
    public Availability availability()
    {
        final NativeLibrary.Status library = NativeLibrary.status();
        if (!library.loaded())
        {
            return Availability.no(library.description());
        }
        final String noDevice = Verbs.noDeviceReason();
        if (null != noDevice)
        {
            return Availability.no(noDevice);
        }
        return Availability.yes("rdma-core through librivulet-verbs; RDMA devices: " +
            String.join(", ", Verbs.deviceNames()));
    }

    /**
     * @param localAddress an address of one of this host's RDMA interfaces (IPv4 or IPv6); its device is opened.
     * @throws IOException with the reason when the provider is unavailable, or naming the address when no RDMA
     *                     device serves it.
     */
    @Override
    public VerbsContext open(final InetAddress localAddress) throws IOException
    {
        final Availability availability = availability();
        if (!availability.available())
        {
            throw new VerbsException("RDMA provider ibverbs unavailable: " + availability.reason());
        }
        return IbverbsContext.open(localAddress, settings);
    }

    @Override
    public String toString()
    {
        return "IbverbsProvider{" + settings + "}";
    }
}
