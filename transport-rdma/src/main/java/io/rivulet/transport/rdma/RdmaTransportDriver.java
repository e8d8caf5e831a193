package io.rivulet.transport.rdma;

import io.rivulet.counters.CounterTypes;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramTransport;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import io.rivulet.spi.MulticastTransport;
import io.rivulet.spi.ExposedMemory;
import io.rivulet.spi.OneSidedPath;
import io.rivulet.spi.OneSidedTransport;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.TransportDriver;
import io.rivulet.spi.TransportSettings;
import io.rivulet.transport.rdma.soft.SoftDatagramDefaults;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.ud.UdDatagramEndpoint;
import io.rivulet.transport.rdma.ud.UdMulticastEndpoint;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One node's RDMA transport: a device context, a protection domain, a {@link MemoryPool} registered at
 * start, and the listeners, connectors and {@link RdmaLink}s (RC queue pairs) made from them. No thread
 * of its own: {@link #doWork(long)} polls the connection manager without blocking.
 *
 * <p>Each link gets its own send and receive completion queues so that the sender thread can reap its
 * sends while the conductor polls its receives, with no completion of one link seen by the other's
 * owner.
 *
 * <p>Not thread-safe: every method, and every method of the listeners and connectors it creates, is
 * for the one conductor thread that owns it; links follow {@link io.rivulet.spi.ReliableLink}'s split.
 */
public final class RdmaTransportDriver
    implements TransportDriver, OneSidedTransport, DatagramTransport, MulticastTransport
{
    /** Opens another context on the driver's provider and device, for an endpoint that owns one. */
    @FunctionalInterface
    interface ContextOpener
    {
        VerbsContext open() throws IOException;
    }

    private static final org.slf4j.Logger LOGGER = org.slf4j.LoggerFactory.getLogger(RdmaTransportDriver.class);

    /** Connection requests a listener lets the connection manager queue. */
    public static final int LISTEN_BACKLOG = 1024;
    /** RC transport retries before a send fails (the most ibverbs allows). */
    public static final int RETRY_COUNT = 7;
    /** RC receiver-not-ready retries: 7 retries forever on hardware; credits keep it from happening. */
    public static final int RNR_RETRY_COUNT = 7;
    /** Q_Key of the node's UD queue pair for topic data ("RIVT"); a datagram with another is dropped by the NIC. */
    public static final int DATAGRAM_QKEY = 0x52495654;

    private final RdmaTransport transport;
    private final TransportSettings settings;
    private final LinkLayout layout;
    private final VerbsContext context;
    private final ProtectionDomain pd;
    private final MemoryPool memoryPool;
    private final RdmaOneSided oneSided;
    private final String providerName;
    private final ArrayList<RdmaLinkListener> listeners = new ArrayList<>();
    private final ArrayList<RdmaLinkConnector> connectors = new ArrayList<>();
    private final ArrayList<RdmaLink> links = new ArrayList<>();
    /** The node's UD endpoint for topic data, when asked for; closed by its owner, and here at the latest. */
    private UdDatagramEndpoint datagramEndpoint;
    /** Multicast endpoints opened and not yet closed by their owners; closed here at the latest. */
    private final ArrayList<UdMulticastEndpoint> multicastEndpoints = new ArrayList<>();
    private final ContextOpener contextOpener;
    /** Makes the endpoint's address handles off the conductor (hardware providers); shut down with the driver. */
    private ExecutorService addressHandleExecutor;
    private long nowNs = System.nanoTime();
    private boolean connectionEventsFailed;
    private boolean closed;
    private final AtomicCounter liveRegionsCounter;
    private final AtomicCounter registeredBytesCounter;

    RdmaTransportDriver(
        final RdmaTransport transport,
        final TransportSettings settings,
        final String providerName,
        final VerbsContext context,
        final int maxLinks,
        final int linksPerSlab,
        final int userRegionLength,
        final ContextOpener contextOpener) throws IOException
    {
        this.transport = transport;
        this.contextOpener = contextOpener;
        this.settings = settings;
        this.providerName = providerName;
        this.context = context;
        this.layout = LinkLayout.of(settings);
        // Registered memory in the node file, for rivulet stat: levels, tagged with the provider.
        this.liveRegionsCounter = settings.counters().newCounter(CounterTypes.RDMA_REGISTRATIONS, CounterTypes.NO_OWNER,
            providerName, "rdma registered regions (" + providerName + ")");
        this.registeredBytesCounter = settings.counters().newCounter(CounterTypes.RDMA_REGISTERED_BYTES,
            CounterTypes.NO_OWNER, providerName, "rdma registered bytes (" + providerName + ")");

        ProtectionDomain pd = null;
        try
        {
            pd = context.allocateProtectionDomain();
            memoryPool = new MemoryPool(pd, layout, maxLinks, linksPerSlab, userRegionLength,
                liveRegionsCounter, registeredBytesCounter);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(pd);
            liveRegionsCounter.close();
            registeredBytesCounter.close();
            throw ex;
        }
        this.pd = pd;
        this.oneSided = new RdmaOneSided(context, pd, memoryPool);
    }

    /** @return the settings the driver's links honour. */
    public TransportSettings settings()
    {
        return settings;
    }

    /** @return the per-link sizes. */
    public LinkLayout layout()
    {
        return layout;
    }

    /** @return the registered memory of this driver; {@link MemoryPool#allocate(int)} is for applications. */
    public MemoryPool memoryPool()
    {
        return memoryPool;
    }

    /** @return the name of the verbs provider in use ("ibverbs", "disni", "soft"). */
    public String providerName()
    {
        return providerName;
    }

    /** @return the device in use. */
    public String deviceName()
    {
        return context.deviceName();
    }

    /** @return the device context, for provider-specific counters; conductor thread. */
    public VerbsContext verbsContext()
    {
        return context;
    }

    /** @return links open now; conductor thread. */
    public int linkCount()
    {
        return links.size();
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when the address is malformed.
     */
    @Override
    public RdmaLinkListener listen(final String address) throws IOException
    {
        ensureOpen();
        final InetSocketAddress socketAddress = SocketAddresses.resolve(address);
        final CmListener cmListener;
        try
        {
            cmListener = context.listen(socketAddress, LISTEN_BACKLOG);
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot listen on " + address + ": " + ex.getMessage(), ex);
        }

        final RdmaLinkListener listener = new RdmaLinkListener(this, cmListener);
        listeners.add(listener);

        return listener;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Creates the queue pair and posts its receives at once; a refusal is reported by the
     * connector's {@code poll()}.
     *
     * @throws IllegalArgumentException when the address is malformed.
     */
    @Override
    public RdmaLinkConnector connect(final String address) throws IOException
    {
        ensureOpen();
        final InetSocketAddress socketAddress = SocketAddresses.resolve(address);
        final RdmaLinkConnector connector;
        try
        {
            connector = new RdmaLinkConnector(this, address, newLink(config -> context.connect(socketAddress, config)));
        }
        catch (final ConnectException ex)
        {
            return new RdmaLinkConnector(this, address, RdmaLinkConnector.failure(address, ex));
        }
        catch (final IOException ex)
        {
            throw RdmaLinkConnector.failure(address, ex);
        }
        connectors.add(connector);

        return connector;
    }

    /**
     * Takes the connection manager's events (the device context's, on this thread only), then polls every
     * listener (new requests, handshakes completing) and connector without blocking.
     *
     * @param nowNs the cycle's clock, for handshake timeouts.
     * @return connection events handled.
     */
    @Override
    public int doWork(final long nowNs)
    {
        if (closed)
        {
            return 0;
        }

        this.nowNs = nowNs;
        int work = 0;
        try
        {
            // Only this thread takes connection manager events; links and connectors read what they left.
            work += context.pollConnectionEvents();
        }
        catch (final IOException ex)
        {
            if (!connectionEventsFailed)
            {
                connectionEventsFailed = true;
                LOGGER.error("rivulet rdma: the connection manager's event channel of {} failed: {}",
                    context.deviceName(), ex.getMessage());
            }
        }
        for (int i = listeners.size() - 1; i >= 0; i--)
        {
            work += listeners.get(i).doWork(nowNs);
        }
        for (int i = connectors.size() - 1; i >= 0; i--)
        {
            work += connectors.get(i).doWork();
        }
        work += oneSided.doWork();

        return work;
    }

    /** @return true until {@link #close()}. */
    public boolean isOpen()
    {
        return !closed;
    }

    /**
     * Opens the node's one UD queue pair (on this driver's device, with its own protection domain and regions),
     * through which topic data reaches every peer. Q_Key {@link #DATAGRAM_QKEY}; peers learn it with the address. Its
     * receive slots take the port's UD MTU whatever the datagram length, so no peer can overrun them.
     *
     * <p>Address handles: {@code ibv_create_ah} may block while the kernel resolves a RoCE peer's neighbour (up to about
     * a second), so on a hardware provider the endpoint makes them on a daemon thread of this driver, and a peer's
     * sends back-pressure until its handle exists. The soft provider's never block: made on the conductor, so tests stay
     * deterministic.
     */
    @Override
    public DatagramEndpoint openDatagramEndpoint(final int maxDatagramLength, final int receiveSlots, final int sendSlots)
        throws IOException
    {
        if (datagramEndpoint != null)
        {
            throw new IllegalStateException("this driver already opened its datagram endpoint");
        }
        final int mtu = context.udMtu();
        if (maxDatagramLength > mtu)
        {
            throw new IOException("datagrams of " + maxDatagramLength + " bytes do not fit the UD path MTU of " +
                context.deviceName() + " (" + mtu + " bytes): set rivulet.ud.maxPayload to at most " +
                (mtu - DatagramSettings.DATA_HEADER_LENGTH));
        }
        datagramEndpoint = new UdDatagramEndpoint(
            context, maxDatagramLength, receiveSlots, sendSlots, DATAGRAM_QKEY, addressHandleExecutor());
        return datagramEndpoint;
    }

    /**
     * Opens a UD endpoint that also joins multicast groups ({@link UdMulticastEndpoint}), on a device context of its
     * own (the same provider and device as this driver's), because the SPI gives each multicast endpoint one thread (a
     * publisher's sender thread, a receiver's conductor) and a context's connection manager events, joins included,
     * belong to one owner thread: the endpoint's polls take them. The endpoint closes that context; this driver closes
     * the endpoint at the latest when it closes. Its queue pair's Q_Key is {@code RDMA_UDP_QKEY}, as groups joined
     * through RDMA CM require. On the soft provider the context is another soft device on the same fabric (one more NIC
     * thread); groups work within one process only.
     */
    @Override
    public MulticastEndpoint openMulticastEndpoint(final int maxDatagramLength, final int receiveSlots,
        final int sendSlots) throws IOException
    {
        if (closed)
        {
            throw new IOException("the RDMA driver is closed");
        }
        final int mtu = context.udMtu();
        if (maxDatagramLength > mtu)
        {
            throw new IOException("multicast datagrams of " + maxDatagramLength + " bytes do not fit the UD path MTU of " +
                context.deviceName() + " (" + mtu + " bytes)");
        }
        final VerbsContext own = contextOpener.open();
        final UdMulticastEndpoint endpoint;
        try
        {
            endpoint = new UdMulticastEndpoint(own, maxDatagramLength, receiveSlots, sendSlots,
                own instanceof SoftVerbsContext ? Runnable::run : addressHandleExecutor(), true);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(own);
            throw ex;
        }
        multicastEndpoints.add(endpoint);
        return endpoint;
    }

    /**
     * The soft provider's round trips include thread wake-ups of milliseconds, as for the per-path protocol
     * ({@link SoftDatagramDefaults}): its multicast timers are scaled the same way ({@link SoftDatagramDefaults#adjust(
     * MulticastSettings)}); hardware keeps the defaults.
     */
    @Override
    public MulticastSettings defaultMulticastSettings(final MulticastSettings defaults)
    {
        return context instanceof SoftVerbsContext ? SoftDatagramDefaults.adjust(defaults) : defaults.validate();
    }

    /** One daemon thread for a hardware provider's address handles; the calling thread for soft. */
    private Executor addressHandleExecutor()
    {
        final Executor executor;
        if (context instanceof SoftVerbsContext)
        {
            executor = Runnable::run;
        }
        else
        {
            if (null == addressHandleExecutor)
            {
                // One daemon thread, gone when idle: the disni context's bookkeeping of address handles is not
                // thread-safe, so they are made one at a time (a peer whose neighbour does not answer delays the
                // next by about a second, on the control plane only).
                final String name = "rivulet-rdma-address-handles-" + context.deviceName() + "-";
                final AtomicInteger threads = new AtomicInteger();
                final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), task ->
                    {
                        final Thread thread = new Thread(task, name + threads.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
                pool.allowCoreThreadTimeOut(true);
                addressHandleExecutor = pool;
            }
            executor = addressHandleExecutor;
        }
        return executor;
    }

    /**
     * Datagrams no longer than the device's UD path MTU (RoCE over 1500-byte Ethernet carries 1024 bytes), unless
     * {@code rivulet.ud.maxPayload} was set; and on the soft provider, whose round trips take milliseconds on a busy
     * machine, its own timers ({@link SoftDatagramDefaults}).
     */
    @Override
    public DatagramSettings defaultDatagramSettings(final DatagramSettings defaults)
    {
        try
        {
            final int mtu = context.udMtu();
            if (System.getProperty("rivulet.ud.maxPayload") == null && defaults.maxDatagramLength() > mtu)
            {
                defaults.maxPayload(mtu - DatagramSettings.DATA_HEADER_LENGTH);
            }
        }
        catch (final IOException ex)
        {
            // Not knowable here (no JNI extension): opening the endpoint fails with the reason.
        }
        return context instanceof SoftVerbsContext ? SoftDatagramDefaults.adjust(defaults) : defaults.validate();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Closes listeners, connectors and links (their queue pairs and completion queues), then the memory
     * pool, the protection domain and the device context.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;

        for (int i = listeners.size() - 1; i >= 0; i--)
        {
            listeners.get(i).close();
        }
        for (int i = connectors.size() - 1; i >= 0; i--)
        {
            connectors.get(i).close();
        }
        for (int i = links.size() - 1; i >= 0; i--)
        {
            links.get(i).close();
        }
        listeners.clear();
        connectors.clear();
        links.clear();
        oneSided.close();
        if (datagramEndpoint != null)
        {
            datagramEndpoint.close();
        }
        for (int i = multicastEndpoints.size() - 1; i >= 0; i--)
        {
            multicastEndpoints.get(i).close(); // idempotent: most were closed by their owners already
        }
        multicastEndpoints.clear();
        if (addressHandleExecutor != null)
        {
            addressHandleExecutor.shutdown(); // a daemon thread: one stuck in ibv_create_ah does not hold the JVM
        }

        closeQuietly(memoryPool);
        liveRegionsCounter.close();
        registeredBytesCounter.close();
        closeQuietly(pd);
        closeQuietly(context);
        transport.onDriverClosed(this);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Each region is page-aligned memory registered on its own with exactly the remote access asked for (plus
     * local write where ibverbs requires it for remote write and atomics); revoking deregisters it.
     */
    @Override
    public ExposedMemory expose(final int length, final int access) throws IOException
    {
        return oneSided.expose(length, access);
    }

    @Override
    public int maxOperationLength()
    {
        return RdmaOneSidedPath.SLOT_LENGTH;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A listener of its own on the link's local address, apart from the messaging listeners, so that the
     * one-sided queue pairs peers open never reach the engine as connections.
     */
    @Override
    public String oneSidedEndpoint(final ReliableLink link) throws IOException
    {
        ensureOpen();
        return oneSided.endpoint(link);
    }

    @Override
    public OneSidedPath openPath(final ReliableLink link, final String endpoint) throws IOException
    {
        ensureOpen();
        return oneSided.openPath(endpoint);
    }

    /** @return peers' one-sided queue pairs open to this node now; conductor thread. */
    public int oneSidedQueuePairs()
    {
        return oneSided.acceptedCount();
    }

    @Override
    public String toString()
    {
        return "RdmaTransportDriver{provider=" + providerName + ", links=" + links.size() + (closed ? ", closed}" : "}");
    }

    /** Creates an RC connection's queue pair for a new link. */
    @FunctionalInterface
    interface ConnectionFactory
    {
        CmConnection create(QueuePairConfig config) throws IOException;
    }

    /**
     * Sets up a link: borrows its memory, creates its completion queues, has the factory create the
     * queue pair (connect or accept), and posts the receives. All or nothing.
     */
    RdmaLink newLink(final ConnectionFactory factory) throws IOException
    {
        ensureOpen();
        final MemoryPool.Stripe stripe = memoryPool.borrow();
        CompletionQueue sendCq = null;
        CompletionQueue receiveCq = null;
        CmConnection connection = null;
        try
        {
            // Every send may complete with an error when the queue pair fails, signalled or not.
            sendCq = context.createCompletionQueue(layout.maxSendWorkRequests());
            receiveCq = context.createCompletionQueue(layout.receiveCount());
            final QueuePairConfig config = new QueuePairConfig(pd, sendCq, receiveCq,
                layout.maxSendWorkRequests(), layout.receiveCount(), 0, RETRY_COUNT, RNR_RETRY_COUNT, 0);
            connection = factory.create(config);

            final RdmaLink link = new RdmaLink(this, connection, sendCq, receiveCq, stripe, layout, nowNs);
            link.postInitialReceives();
            links.add(link);

            return link;
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(connection);
            closeQuietly(sendCq);
            closeQuietly(receiveCq);
            memoryPool.release(stripe);
            throw ex;
        }
    }

    void onLinkClosed(final RdmaLink link, final MemoryPool.Stripe stripe)
    {
        links.remove(link);
        memoryPool.release(stripe);
    }

    void onListenerClosed(final RdmaLinkListener listener)
    {
        listeners.remove(listener);
    }

    void onConnectorDone(final RdmaLinkConnector connector)
    {
        connectors.remove(connector);
    }

    long nowNs()
    {
        return nowNs;
    }

    static void closeQuietly(final AutoCloseable closeable)
    {
        if (null != closeable)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignore)
            {
                // Closing is best effort; the resource is unusable either way.
            }
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("RdmaTransportDriver is closed");
        }
    }
}
