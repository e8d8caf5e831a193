package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatObject;
import io.rivulet.transport.rdma.RdmaDevices;
import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.jni.CmEvent;
import io.rivulet.transport.rdma.jni.CmIdInfo;
import io.rivulet.transport.rdma.jni.CmMulticast;
import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.jni.NativeLibrary;
import io.rivulet.transport.rdma.jni.UdPort;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.collections.Long2ObjectHashMap;

/**
 * One RDMA device opened through DiSNI: the device is the one RDMA CM binds the local address to
 * ({@code rdma_bind_addr} + {@code getVerbs()}: DiSNI has no device list), with one RDMA CM event
 * channel for all the context's listeners and connections (polled without blocking, paced by
 * {@link DisniSettings#cmPollIntervalNs()}) and one completion channel for all its CQs (required by
 * DiSNI's {@code createCQ}, never waited on: CQs are busy-polled).
 *
 * <p>Connection management progresses only in {@link #pollConnectionEvents()} (and the {@code poll} methods of
 * listeners and connections, which call it), on the thread that owns the context.
 *
 * <p>Not thread-safe: one thread (the engine's conductor) uses a context and everything created from it, except that
 * a queue pair may post and its completion queues be polled from one other thread (the sender), and
 * {@link DisniConnection#isDisconnected()} may be asked from any thread.
 */
final class DisniVerbsContext implements VerbsContext, CmMulticast.Owner
{
    private static final System.Logger LOG = System.getLogger(DisniVerbsContext.class.getName());
    private static final int MAX_CM_EVENTS_PER_POLL = 64;
    /** Routers a datagram may cross (RoCE v2); InfiniBand ignores it within a subnet. */
    private static final int AH_HOP_LIMIT = 64;

    private final DisniSettings settings;
    private final InetAddress localAddress;
    private final RdmaEventChannel channel;
    private final RdmaCmId deviceId;
    private final IbvContext verbs;
    private final long verbsHandle;
    private final String deviceName;
    private final CmDispatcher dispatcher = new CmDispatcher();
    private final List<DisniConnection> connections = new ArrayList<>();
    private final List<DisniListener> listeners = new ArrayList<>();
    private final List<DisniCompletionQueue> completionQueues = new ArrayList<>();
    private final List<DisniProtectionDomain> protectionDomains = new ArrayList<>();
    private final List<DisniUdQueuePair> udQueuePairs = new ArrayList<>();
    private final List<DisniAddressHandle> addressHandles = new ArrayList<>();
    /**
     * Multicast memberships: UD ids on librivulet-verbs' own RDMA CM event channel (DiSNI's channel makes TCP-space ids
     * only), polled with DiSNI's in {@link #pollConnectionEvents()}; made on the first join.
     */
    private final Long2ObjectHashMap<CmMulticast> memberships = new Long2ObjectHashMap<>();
    private final CmEvent multicastEvent = new CmEvent();
    private long multicastChannel;
    private UdPort udPort;
    private DeviceAttributes attributes;
    private final AtomicLong registrations = new AtomicLong();
    private IbvCompChannel compChannel;
    private boolean cmPolled;
    private long lastCmPollNs;
    private boolean closed;

    private DisniVerbsContext(
        final DisniSettings settings,
        final InetAddress localAddress,
        final RdmaEventChannel channel,
        final RdmaCmId deviceId,
        final IbvContext verbs,
        final String deviceName)
    {
        this.settings = settings;
        this.localAddress = localAddress;
        this.channel = channel;
        this.deviceId = deviceId;
        this.verbs = verbs;
        this.verbsHandle = handleOf(verbs);
        this.deviceName = deviceName;
    }

    /**
     * @param localAddress an IPv4 address of an RDMA interface of this host.
     * @throws IOException naming the address and what is wrong with it.
     */
    static DisniVerbsContext open(final InetAddress localAddress, final DisniSettings settings, final RdmaDevices devices)
        throws IOException
    {
        checkLocalAddress(localAddress);
        RdmaEventChannel channel = null;
        RdmaCmId id = null;
        try
        {
            channel = RdmaEventChannel.createEventChannel();
            if (null == channel)
            {
                throw new VerbsException("rdma_create_event_channel failed");
            }
            id = channel.createId(RdmaCm.RDMA_PS_TCP);
            if (null == id)
            {
                throw new VerbsException("rdma_create_id failed");
            }
            try
            {
                id.bindAddr(new InetSocketAddress(localAddress, 0));
            }
            catch (final IOException ex)
            {
                throw new VerbsException("cannot bind RDMA CM to " + localAddress.getHostAddress() + " (" +
                    DisniAvailability.text(ex) + "): it must be an address of one of this host's RDMA interfaces " +
                    "(see 'rdma link show')", ex);
            }
            final IbvContext verbs = id.getVerbs();
            if (null == verbs)
            {
                throw new VerbsException(localAddress.getHostAddress() + " is not served by an RDMA device (RDMA CM " +
                    "bound it without a device): use the address of an RDMA interface (see 'rdma link show')");
            }
            return new DisniVerbsContext(
                settings, localAddress, channel, id, verbs, deviceNameOf(localAddress, devices));
        }
        catch (final IOException | RuntimeException | LinkageError ex)
        {
            destroyQuietly(id);
            destroyQuietly(channel);
            if (ex instanceof VerbsException)
            {
                throw (VerbsException)ex;
            }
            throw new VerbsException("cannot open the RDMA device for " + localAddress.getHostAddress() + ": " +
                DisniAvailability.text(ex), ex);
        }
    }

    @Override
    public String providerName()
    {
        return DisniVerbsProvider.NAME;
    }

    @Override
    public String deviceName()
    {
        return deviceName;
    }

    @Override
    public long totalRegistrations()
    {
        return registrations.get();
    }

    void onRegistration()
    {
        registrations.incrementAndGet();
    }

    InetAddress localAddress()
    {
        return localAddress;
    }

    DisniSettings settings()
    {
        return settings;
    }

    long nowNs()
    {
        return settings.nanoClock().getAsLong();
    }

    /**
     * Through librivulet-verbs ({@code ibv_query_device} on DiSNI's {@code ibv_context}); without it DiSNI cannot
     * tell, and the answer is the most cautious one: one READ outstanding each way and no atomics (which need the
     * library anyway).
     */
    @Override
    public DeviceAttributes attributes()
    {
        if (null == attributes)
        {
            try
            {
                NativeLibrary.require("ibv_query_device through DiSNI");
                attributes = Verbs.deviceAttributes(verbsHandle);
            }
            catch (final VerbsException ex)
            {
                attributes = new DeviceAttributes(1024, 1, 1024, 1, 1, DeviceAttributes.AtomicCapability.NONE);
            }
        }
        return attributes;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() throws IOException
    {
        ensureOpen();
        final IbvPd pd;
        try
        {
            pd = verbs.allocPd();
        }
        catch (final IOException ex)
        {
            throw new VerbsException("ibv_alloc_pd on " + deviceName + " failed: " + DisniAvailability.text(ex), ex);
        }
        if (null == pd)
        {
            throw new VerbsException("ibv_alloc_pd on " + deviceName + " failed");
        }
        final DisniProtectionDomain domain = new DisniProtectionDomain(this, pd);
        protectionDomains.add(domain);
        return domain;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int entries) throws IOException
    {
        ensureOpen();
        if (entries < 1)
        {
            throw new VerbsException("completion queue entries must be positive: " + entries);
        }
        final IbvCQ cq;
        try
        {
            if (null == compChannel)
            {
                compChannel = verbs.createCompChannel();
            }
            cq = verbs.createCQ(compChannel, entries, 0);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("ibv_create_cq of " + entries + " entries on " + deviceName + " failed: " +
                DisniAvailability.text(ex), ex);
        }
        if (null == cq)
        {
            throw new VerbsException("ibv_create_cq of " + entries + " entries on " + deviceName + " failed");
        }
        final DisniCompletionQueue queue = new DisniCompletionQueue(this, cq, entries);
        completionQueues.add(queue);
        return queue;
    }

    /**
     * A wildcard address listens on this context's address: a context serves one device, and
     * requests arriving through another device could not use its protection domain.
     */
    @Override
    public CmListener listen(final InetSocketAddress address, final int backlog) throws IOException
    {
        ensureOpen();
        final DisniListener listener = DisniListener.open(this, address, backlog);
        listeners.add(listener);
        return listener;
    }

    @Override
    public CmConnection connect(final InetSocketAddress remote, final QueuePairConfig config) throws IOException
    {
        ensureOpen();
        return DisniConnection.connect(this, remote, config);
    }

    /**
     * Through the JNI extension (DiSNI 2.1 has no UD queue pairs: its {@code rdma_create_id} is hard-wired to
     * the TCP port space), on the config's DiSNI protection domain and CQs, on the port RDMA CM bound this
     * context's address to.
     */
    @Override
    public QueuePair createUdQueuePair(final QueuePairConfig config) throws IOException
    {
        ensureOpen();
        NativeLibrary.require("a UD queue pair through DiSNI");
        final DisniProtectionDomain pd = protectionDomainOf(config.pd());
        final DisniUdQueuePair queuePair = DisniUdQueuePair.create(
            this,
            config,
            DisniHandles.handleOf(pd.ibvPd(), "protection domain"),
            completionQueueOf(config.sendCq()),
            completionQueueOf(config.receiveCq()),
            udPort());
        udQueuePairs.add(queuePair);
        return queuePair;
    }

    /**
     * {@code ibv_create_ah} through the JNI extension, from the remote's GID text ({@link Gid}), this
     * context's port and source GID index, hop limit 64, the configured traffic class
     * ({@link DisniSettings#TRAFFIC_CLASS_PROP}) and service level 0.
     */
    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final UdAddress remote) throws IOException
    {
        ensureOpen();
        NativeLibrary.require("an address handle through DiSNI");
        if (null == remote)
        {
            throw new VerbsException("no remote UD address");
        }
        final Gid gid = Gid.parse(remote.gid());
        final DisniProtectionDomain domain = protectionDomainOf(pd);
        final UdPort port = udPort();
        final long handle = Verbs.check(
            "ibv_create_ah (to " + remote.gid() + " from port " + port.number() + ", GID index " + port.gidIndex() + ")",
            Verbs.createAh(DisniHandles.handleOf(domain.ibvPd(), "protection domain"), gid.high(), gid.low(),
                gid.lid(), port.number(), port.gidIndex(), AH_HOP_LIMIT, settings.trafficClass(), 0));
        final DisniAddressHandle addressHandle = new DisniAddressHandle(this, remote, handle);
        synchronized (addressHandles) // made on the driver's address-handle thread, freed on the conductor
        {
            addressHandles.add(addressHandle);
        }
        return addressHandle;
    }

    /**
     * Through librivulet-verbs' RDMA CM (DiSNI 2.1 cannot create UD ids): a UD id on the library's own event channel,
     * bound to this context's address, which librdmacm serves with the same {@code ibv_context} DiSNI got (one copy of
     * librdmacm per process; checked), and {@code rdma_join_multicast}. The event arrives through
     * {@link #pollConnectionEvents()}.
     */
    @Override
    public MulticastMembership joinMulticast(final InetAddress group) throws IOException
    {
        ensureOpen();
        MulticastMembership.checkGroup(group);
        NativeLibrary.require("multicast through DiSNI");
        if (multicastChannel == 0)
        {
            multicastChannel = Verbs.check("rdma_create_event_channel (for multicast)",
                io.rivulet.transport.rdma.jni.RdmaCm.createEventChannel());
        }
        final CmMulticast membership = CmMulticast.join(multicastChannel, localAddress, group,
            DisniHandles.handleOf(verbs, "device context"), deviceName, this);
        if (membership.id() != 0)
        {
            memberships.put(membership.id(), membership);
        }
        return membership;
    }

    /** From the join event's {@code ah_attr}, on the DiSNI protection domain, through the JNI extension. */
    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final MulticastMembership group)
        throws IOException
    {
        ensureOpen();
        final CmMulticast membership = membershipOf(group);
        final DisniProtectionDomain domain = protectionDomainOf(pd);
        final long handle = membership.createAddressHandle(DisniHandles.handleOf(domain.ibvPd(), "protection domain"));
        final DisniAddressHandle addressHandle = new DisniAddressHandle(this, group.destination(), handle);
        synchronized (addressHandles)
        {
            addressHandles.add(addressHandle);
        }
        return addressHandle;
    }

    @Override
    public void forget(final CmMulticast membership)
    {
        memberships.remove(membership.id());
    }

    CmMulticast membershipOf(final MulticastMembership group) throws VerbsException
    {
        if (group instanceof CmMulticast && memberships.get(((CmMulticast)group).id()) == group)
        {
            return (CmMulticast)group;
        }
        throw new VerbsException("the membership " + group + " is not a live membership of " + this);
    }

    private int pollMulticastEvents() throws IOException
    {
        int handled = 0;
        for (int i = 0; i < MAX_CM_EVENTS_PER_POLL && multicastEvent.take(multicastChannel); i++)
        {
            handled++;
            final CmMulticast membership = memberships.get(multicastEvent.id());
            final CmEventType type = multicastEvent.type();
            if (null != membership)
            {
                membership.onCmEvent(type, multicastEvent);
            }
            else
            {
                LOG.log(System.Logger.Level.DEBUG, "rivulet rdma disni: dropped {0} for an unknown UD id",
                    multicastEvent);
            }
        }
        return handled;
    }

    /** Frees what is left: connections and listeners, then CQs, regions and PDs, then the CM. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final DisniConnection connection : new ArrayList<>(connections))
        {
            connection.close();
        }
        for (final DisniListener listener : new ArrayList<>(listeners))
        {
            listener.close();
        }
        for (final DisniUdQueuePair queuePair : new ArrayList<>(udQueuePairs))
        {
            queuePair.close();
        }
        for (final CmMulticast membership : new ArrayList<>(memberships.values()))
        {
            membership.close();
        }
        if (multicastChannel != 0)
        {
            final int rc = io.rivulet.transport.rdma.jni.RdmaCm.destroyEventChannel(multicastChannel);
            multicastChannel = 0;
            if (rc < 0)
            {
                warn("rdma_destroy_event_channel (multicast)", Verbs.failure("rdma_destroy_event_channel", rc));
            }
        }
        final List<DisniAddressHandle> handles;
        synchronized (addressHandles)
        {
            handles = new ArrayList<>(addressHandles);
        }
        for (final DisniAddressHandle handle : handles)
        {
            handle.close();
        }
        for (final DisniCompletionQueue queue : new ArrayList<>(completionQueues))
        {
            queue.close();
        }
        for (final DisniProtectionDomain domain : new ArrayList<>(protectionDomains))
        {
            domain.close();
        }
        if (null != compChannel)
        {
            try
            {
                compChannel.destroyCompChannel();
            }
            catch (final IOException | RuntimeException ex)
            {
                warn("ibv_destroy_comp_channel", ex);
            }
        }
        destroyQuietly(deviceId);
        destroyQuietly(channel);
    }

    @Override
    public String toString()
    {
        return "DisniVerbsContext{" + deviceName + " for " + localAddress.getHostAddress() + "}";
    }

    // ---------------------------------------------------------------- for the context's resources

    /**
     * Takes pending RDMA CM events (at most every {@link DisniSettings#cmPollIntervalNs()}) and hands each to the
     * listener, request or connection it concerns. Never blocks: DiSNI's {@code getCmEvent(0)} polls the channel's
     * descriptor with a zero timeout and returns null when nothing is pending.
     *
     * <p>Only the context's owner thread (the engine's conductor, every duty cycle) may call it, directly or through
     * a listener's or connection's {@code poll()}: DiSNI's event channel looks ids up in, and adds the ids of new
     * requests to, a map that is not thread-safe, and the handlers queue requests and move set-ups on. Everything
     * other threads ask ({@link DisniConnection#isDisconnected()}) is read from what the events left.
     */
    @Override
    public int pollConnectionEvents() throws IOException
    {
        if (closed)
        {
            return 0;
        }
        final long nowNs = nowNs();
        if (cmPolled && nowNs - lastCmPollNs < settings.cmPollIntervalNs())
        {
            return 0;
        }
        cmPolled = true;
        lastCmPollNs = nowNs;
        int handled = multicastChannel == 0 ? 0 : pollMulticastEvents();
        for (int i = 0; i < MAX_CM_EVENTS_PER_POLL; i++)
        {
            final RdmaCmEvent event = channel.getCmEvent(0);
            if (null == event)
            {
                break;
            }
            handled++;
            final RdmaCmEvent.EventType type =
                dispatcher.dispatch(event.getEvent(), event.getListenIdPriv(), event.getConnIdPriv());
            if (null == type)
            {
                LOG.log(System.Logger.Level.DEBUG, "rivulet rdma disni: dropped RDMA CM event {0} for an unknown id",
                    event.getEvent());
                if (event.getEvent() == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal())
                {
                    // its listener is gone: destroying the new id rejects the request at once
                    destroyQuietly(event.getConnIdPriv());
                }
            }
        }
        return handled;
    }

    RdmaCmId createId() throws IOException
    {
        final RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        if (null == id)
        {
            throw new VerbsException("rdma_create_id failed");
        }
        return id;
    }

    void register(final RdmaCmId id, final CmDispatcher.Handler handler)
    {
        dispatcher.register(id, handler);
    }

    void unregister(final RdmaCmId id)
    {
        dispatcher.unregister(id);
    }

    void track(final DisniConnection connection)
    {
        connections.add(connection);
    }

    void forget(final DisniConnection connection)
    {
        connections.remove(connection);
    }

    void forget(final DisniListener listener)
    {
        listeners.remove(listener);
    }

    void forget(final DisniCompletionQueue queue)
    {
        completionQueues.remove(queue);
    }

    void forget(final DisniProtectionDomain domain)
    {
        protectionDomains.remove(domain);
    }

    void forget(final DisniUdQueuePair queuePair)
    {
        udQueuePairs.remove(queuePair);
    }

    void forget(final DisniAddressHandle handle)
    {
        synchronized (addressHandles)
        {
            addressHandles.remove(handle);
        }
    }

    /**
     * @param handle the destination of a UD send.
     * @return its {@code ibv_ah} pointer.
     * @throws VerbsException unless an open address handle of this context.
     */
    long addressHandleOf(final AddressHandle handle) throws VerbsException
    {
        if (handle instanceof DisniAddressHandle)
        {
            final DisniAddressHandle disniHandle = (DisniAddressHandle)handle;
            if (disniHandle.context() == this && disniHandle.handle() != 0)
            {
                return disniHandle.handle();
            }
        }
        throw new VerbsException("the address handle " + handle + " is not an open address handle of " + this);
    }

    /** The port's active MTU ({@code ibv_query_port}, through the JNI extension). */
    @Override
    public int udMtu() throws IOException
    {
        return udPort().activeMtu();
    }

    /** The UD port, resolved once: port number, GID index and GID. */
    private UdPort udPort() throws VerbsException
    {
        if (null == udPort)
        {
            NativeLibrary.require("the UD port through DiSNI");
            udPort = UdPort.resolve(
                DisniHandles.handleOf(verbs, "device context"),
                CmIdInfo.of(DisniHandles.handleOf(deviceId, "RDMA CM id")).port(),
                localAddress,
                settings.gidIndex(),
                DisniSettings.GID_INDEX_PROP);
        }
        return udPort;
    }

    /**
     * @throws VerbsException when the id is bound to no device or to another device than this
     *                        context's: its queue pair could not use this context's PD and CQs.
     */
    void checkSameDevice(final RdmaCmId id, final InetSocketAddress address) throws IOException
    {
        final IbvContext idVerbs = id.getVerbs();
        if (null == idVerbs)
        {
            throw new VerbsException(address + " is not served by an RDMA device");
        }
        if (handleOf(idVerbs) != verbsHandle)
        {
            throw new VerbsException(address + " is served by another RDMA device than " + deviceName + " (opened for " +
                localAddress.getHostAddress() + "): open a context on an address of that device");
        }
    }

    DisniProtectionDomain protectionDomainOf(final ProtectionDomain pd) throws VerbsException
    {
        if (pd instanceof DisniProtectionDomain)
        {
            final DisniProtectionDomain domain = (DisniProtectionDomain)pd;
            if (domain.context() == this && domain.isOpen())
            {
                return domain;
            }
        }
        throw new VerbsException("the protection domain " + pd + " is not an open protection domain of " + this);
    }

    DisniCompletionQueue completionQueueOf(final CompletionQueue cq) throws VerbsException
    {
        if (cq instanceof DisniCompletionQueue)
        {
            final DisniCompletionQueue queue = (DisniCompletionQueue)cq;
            if (queue.context() == this && queue.isOpen())
            {
                return queue;
            }
        }
        throw new VerbsException("the completion queue " + cq + " is not an open completion queue of " + this);
    }

    /**
     * @throws VerbsException unless an IPv4 address with a port (DiSNI 2.1's sockaddr handling is IPv4 only).
     */
    static void checkRemoteAddress(final InetSocketAddress remote) throws VerbsException
    {
        if (null == remote || remote.isUnresolved())
        {
            throw new VerbsException("unresolved RDMA peer address " + remote);
        }
        if (!(remote.getAddress() instanceof Inet4Address))
        {
            throw new VerbsException("DiSNI 2.1 supports IPv4 only: " + remote);
        }
        if (remote.getAddress().isAnyLocalAddress() || remote.getPort() == 0)
        {
            throw new VerbsException("an RDMA peer needs a specific address and port: " + remote);
        }
    }

    static void checkLocalAddress(final InetAddress address) throws VerbsException
    {
        if (null == address)
        {
            throw new VerbsException("no local address: the disni provider opens the RDMA device serving an address");
        }
        if (!(address instanceof Inet4Address))
        {
            throw new VerbsException("DiSNI 2.1 supports IPv4 only: " + address.getHostAddress());
        }
        if (address.isAnyLocalAddress())
        {
            throw new VerbsException("the disni provider needs the address of an RDMA interface, not the wildcard " +
                address.getHostAddress() + ": RDMA CM picks the device by address");
        }
    }

    static void warn(final String what, final Throwable ex)
    {
        LOG.log(System.Logger.Level.WARNING, "rivulet rdma disni: " + what + " failed: " + DisniAvailability.text(ex));
    }

    static void destroyQuietly(final RdmaCmId id)
    {
        if (null != id && id.isOpen())
        {
            try
            {
                id.destroyId();
            }
            catch (final IOException | RuntimeException ex)
            {
                warn("rdma_destroy_id", ex);
            }
        }
    }

    private void ensureOpen() throws VerbsException
    {
        if (closed)
        {
            throw new VerbsException(this + " is closed");
        }
    }

    private static void destroyQuietly(final RdmaEventChannel channel)
    {
        if (null != channel && channel.isOpen())
        {
            try
            {
                channel.destroyEventChannel();
            }
            catch (final IOException | RuntimeException ex)
            {
                warn("rdma_destroy_event_channel", ex);
            }
        }
    }

    private static long handleOf(final IbvContext context)
    {
        return context instanceof NatObject ? ((NatObject)context).getObjId() : System.identityHashCode(context);
    }

    private static String deviceNameOf(final InetAddress address, final RdmaDevices devices)
    {
        try
        {
            final NetworkInterface networkInterface = NetworkInterface.getByInetAddress(address);
            if (null == networkInterface)
            {
                return "rdma(" + address.getHostAddress() + ")";
            }
            final String name = networkInterface.getName();
            return devices.deviceFor(name).orElse("rdma(" + name + ")");
        }
        catch (final SocketException | RuntimeException ex)
        {
            return "rdma(" + address.getHostAddress() + ")";
        }
    }
}
