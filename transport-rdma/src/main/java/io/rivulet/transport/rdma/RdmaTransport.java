package io.rivulet.transport.rdma;

import io.rivulet.spi.Transport;
import io.rivulet.spi.TransportSettings;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsProvider;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@code "rdma"} transport, found through {@link java.util.ServiceLoader}: reliable links over RC
 * queue pairs of a verbs provider.
 *
 * <p>The provider is the one given to the constructor, or else the one named by the system property
 * {@value #PROVIDER_PROPERTY}: {@code auto} (default: {@code ibverbs} when an RDMA device exists and
 * rdma-core is installed, else {@code disni} when libdisni loads, else {@code soft}, saying why), {@code ibverbs},
 * {@code disni} or {@code soft}. {@link #open(TransportSettings)} logs one line
 * naming the provider and why it was chosen. Other system properties:
 * <ul>
 *   <li>{@value #MAX_LINKS_PROPERTY}: the most links one node holds at once (256); fixes the most
 *   registered memory;</li>
 *   <li>{@value #LINKS_PER_SLAB_PROPERTY}: links per registered slab (4); the first slab is registered
 *   at start;</li>
 *   <li>{@value #USER_REGION_LENGTH_PROPERTY}: bytes of the registered region
 *   {@link MemoryPool#allocate(int)} carves buffers from (1 MiB);</li>
 *   <li>{@value #LOCAL_ADDRESS_PROPERTY}: an address of this host on the RDMA fabric, which selects the
 *   device to open (by default loopback for the soft provider, else the first IPv4 address of an
 *   interface with an RDMA device, else of any interface that is up); {@link #localAddress(InetAddress)} sets it
 *   in code.</li>
 * </ul>
 *
 * <p>Thread-safe: configure before use; each {@link #open(TransportSettings)} creates an independent
 * {@link RdmaTransportDriver} owned by one engine thread.
 */
public final class RdmaTransport implements Transport
{
    /** The name users give in {@code rivulet.transport}. */
    public static final String NAME = "rdma";
    /** Names the verbs provider: auto, ibverbs, disni or soft. */
    public static final String PROVIDER_PROPERTY = "rivulet.rdma.provider";
    /** The most links one node holds at once. */
    public static final String MAX_LINKS_PROPERTY = "rivulet.rdma.maxLinks";
    /** Links per registered slab of the memory pool. */
    public static final String LINKS_PER_SLAB_PROPERTY = "rivulet.rdma.linksPerSlab";
    /** Bytes of the registered user region. */
    public static final String USER_REGION_LENGTH_PROPERTY = "rivulet.rdma.userRegionLength";
    /** An address of this host on the RDMA fabric, selecting the device. */
    public static final String LOCAL_ADDRESS_PROPERTY = "rivulet.rdma.localAddress";

    /** Default of {@value #MAX_LINKS_PROPERTY}. */
    public static final int DEFAULT_MAX_LINKS = 256;
    /** Default of {@value #LINKS_PER_SLAB_PROPERTY}. */
    public static final int DEFAULT_LINKS_PER_SLAB = 4;
    /** Default of {@value #USER_REGION_LENGTH_PROPERTY}. */
    public static final int DEFAULT_USER_REGION_LENGTH = 1024 * 1024;

    private static final org.slf4j.Logger LOGGER = org.slf4j.LoggerFactory.getLogger(RdmaTransport.class);

    private final VerbsProvider provider;
    private final CopyOnWriteArrayList<RdmaTransportDriver> drivers = new CopyOnWriteArrayList<>();
    private volatile int maxLinks = Integer.getInteger(MAX_LINKS_PROPERTY, DEFAULT_MAX_LINKS);
    private volatile int linksPerSlab = Integer.getInteger(LINKS_PER_SLAB_PROPERTY, DEFAULT_LINKS_PER_SLAB);
    private volatile int userRegionLength = Integer.getInteger(USER_REGION_LENGTH_PROPERTY, DEFAULT_USER_REGION_LENGTH);
    private volatile InetAddress localAddress;

    /**
     * Public for {@link java.util.ServiceLoader}: the provider comes from {@value #PROVIDER_PROPERTY}
     * when a driver is opened.
     */
    public RdmaTransport()
    {
        this.provider = null;
    }

    /**
     * @param provider the verbs provider every driver of this transport uses.
     */
    public RdmaTransport(final VerbsProvider provider)
    {
        this.provider = Objects.requireNonNull(provider, "provider");
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
     * @param maxLinks the most links one driver holds at once.
     * @return this.
     */
    public RdmaTransport maxLinks(final int maxLinks)
    {
        if (maxLinks < 1)
        {
            throw new IllegalArgumentException("maxLinks must be positive: " + maxLinks);
        }
        this.maxLinks = maxLinks;
        return this;
    }

    /** @return the most links one driver holds at once. */
    public int maxLinks()
    {
        return maxLinks;
    }

    /**
     * @param linksPerSlab links per registered slab.
     * @return this.
     */
    public RdmaTransport linksPerSlab(final int linksPerSlab)
    {
        if (linksPerSlab < 1)
        {
            throw new IllegalArgumentException("linksPerSlab must be positive: " + linksPerSlab);
        }
        this.linksPerSlab = linksPerSlab;
        return this;
    }

    /** @return links per registered slab. */
    public int linksPerSlab()
    {
        return linksPerSlab;
    }

    /**
     * @param userRegionLength bytes of the registered user region, 0 for none.
     * @return this.
     */
    public RdmaTransport userRegionLength(final int userRegionLength)
    {
        if (userRegionLength < 0)
        {
            throw new IllegalArgumentException("userRegionLength must not be negative: " + userRegionLength);
        }
        this.userRegionLength = userRegionLength;
        return this;
    }

    /** @return bytes of the registered user region. */
    public int userRegionLength()
    {
        return userRegionLength;
    }

    /**
     * @param localAddress an address of this host on the RDMA fabric, which selects the device every driver opens;
     *                     null to take {@value #LOCAL_ADDRESS_PROPERTY} or the default.
     * @return this.
     */
    public RdmaTransport localAddress(final InetAddress localAddress)
    {
        this.localAddress = localAddress;
        return this;
    }

    /** @return the configured local address, or null when the property or the default decides. */
    public InetAddress localAddress()
    {
        return localAddress;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IOException when the provider is unavailable (the message says what is missing) or the
     *                     device, protection domain or memory pool cannot be set up.
     */
    @Override
    public RdmaTransportDriver open(final TransportSettings settings) throws IOException
    {
        Objects.requireNonNull(settings, "settings");
        final VerbsProvider chosen = chooseProvider();
        final VerbsContext context = openContext(chosen, localAddress);
        try
        {
            final InetAddress configured = localAddress;
            final RdmaTransportDriver driver = new RdmaTransportDriver(
                this, settings, chosen.name(), context, maxLinks, linksPerSlab, userRegionLength,
                () -> openContext(chosen, configured));
            drivers.add(driver);
            return driver;
        }
        catch (final IOException | RuntimeException ex)
        {
            RdmaTransportDriver.closeQuietly(context);
            throw ex;
        }
    }

    /**
     * @return the drivers this transport opened that are not closed yet, for counters and tests.
     */
    public List<RdmaTransportDriver> drivers()
    {
        return List.copyOf(drivers);
    }

    /**
     * @return registrations made by the memory pools of the open drivers, summed.
     */
    public long registrations()
    {
        long total = 0;
        for (final RdmaTransportDriver driver : drivers)
        {
            total += driver.memoryPool().registrations();
        }
        return total;
    }

    @Override
    public String toString()
    {
        return "RdmaTransport{provider=" + (null == provider ? System.getProperty(PROVIDER_PROPERTY, "auto") :
            provider.name()) + "}";
    }

    void onDriverClosed(final RdmaTransportDriver driver)
    {
        drivers.remove(driver);
    }

    private VerbsProvider chooseProvider() throws IOException
    {
        if (null != provider)
        {
            return checked(provider, "given to RdmaTransport");
        }

        final String name = System.getProperty(PROVIDER_PROPERTY, VerbsProviders.AUTO).strip();
        try
        {
            if (VerbsProviders.AUTO.equalsIgnoreCase(name))
            {
                // Logs which provider it picked and why.
                return VerbsProviders.auto();
            }

            return checked(VerbsProviders.byName(name), PROVIDER_PROPERTY + "=" + name);
        }
        catch (final RuntimeException ex)
        {
            throw new IOException(PROVIDER_PROPERTY + ": " + ex.getMessage(), ex);
        }
    }

    private static VerbsProvider checked(final VerbsProvider provider, final String why) throws IOException
    {
        final VerbsProvider.Availability availability = provider.availability();
        if (!availability.available())
        {
            throw new IOException("RDMA provider " + provider.name() + " (" + why + ") is unavailable: " +
                availability.reason());
        }
        LOGGER.info("rivulet rdma: using provider {} ({}; {})", provider.name(), why, availability.reason());

        return provider;
    }

    private static VerbsContext openContext(final VerbsProvider provider, final InetAddress configured)
        throws IOException
    {
        final String property = System.getProperty(LOCAL_ADDRESS_PROPERTY);
        final boolean given = null != configured || (null != property && !property.isBlank());
        final InetAddress address;
        if (null != configured)
        {
            address = configured;
        }
        else if (given)
        {
            try
            {
                address = InetAddress.getByName(property.strip());
            }
            catch (final IOException ex)
            {
                throw new IOException(LOCAL_ADDRESS_PROPERTY + ": cannot resolve '" + property + "'", ex);
            }
        }
        else
        {
            address = defaultLocalAddress(provider);
        }

        try
        {
            return provider.open(address);
        }
        catch (final IOException ex)
        {
            if (given)
            {
                throw ex;
            }
            throw new IOException(ex.getMessage() + " (set " + LOCAL_ADDRESS_PROPERTY +
                " to the address of this host's RDMA interface)", ex);
        }
    }

    /**
     * Loopback for the soft provider, which serves it; for hardware, the first IPv4 address of an interface with
     * an RDMA device behind it (sysfs), else of any interface that is up and not loopback.
     */
    private static InetAddress defaultLocalAddress(final VerbsProvider provider)
    {
        if (VerbsProviders.SOFT.equals(provider.name()))
        {
            return InetAddress.getLoopbackAddress();
        }
        final java.util.Optional<InetAddress> rdmaInterface = new RdmaDevices().rdmaInterfaceAddress();
        if (rdmaInterface.isPresent())
        {
            return rdmaInterface.get();
        }

        try
        {
            final Enumeration<NetworkInterface> interfaces = NetworkInterface.getNetworkInterfaces();
            while (null != interfaces && interfaces.hasMoreElements())
            {
                final NetworkInterface candidate = interfaces.nextElement();
                if (!candidate.isUp() || candidate.isLoopback())
                {
                    continue;
                }
                final Enumeration<InetAddress> addresses = candidate.getInetAddresses();
                while (addresses.hasMoreElements())
                {
                    final InetAddress address = addresses.nextElement();
                    if (address instanceof Inet4Address)
                    {
                        return address;
                    }
                }
            }
        }
        catch (final SocketException ignore)
        {
            // Fall back to loopback; opening the device then says what is wrong.
        }

        return InetAddress.getLoopbackAddress();
    }
}
