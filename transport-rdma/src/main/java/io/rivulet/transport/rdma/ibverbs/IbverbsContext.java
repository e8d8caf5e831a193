package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.jni.CmEvent;
import io.rivulet.transport.rdma.jni.CmMulticast;
import io.rivulet.transport.rdma.jni.CmIdInfo;
import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.jni.RdmaCm;
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
import org.agrona.collections.Long2ObjectHashMap;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One RDMA device opened through rdma-core: the device RDMA CM binds the local address to ({@code rdma_bind_addr}
 * of an id kept for the context's life; its {@code verbs} is the device context librdmacm opened), with one
 * non-blocking event channel for every listener and connection of the context. Completion queues have no
 * completion channel: they are busy-polled.
 *
 * <p>Connection management progresses only in {@link #pollConnectionEvents()} (and the {@code poll} methods of
 * listeners and connections, which call it), on the thread that owns the context; an event is routed by the
 * native id it names to the listener, request or connection registered for it.
 *
 * <p>Not thread-safe: one thread (the engine's conductor) uses a context and what it creates, except that a queue
 * pair may post and its completion queue be polled from one other thread (the sender), as ibverbs allows.
 */
final class IbverbsContext implements VerbsContext, CmMulticast.Owner
{
    private static final System.Logger LOG = System.getLogger(IbverbsContext.class.getName());
    private static final int MAX_CM_EVENTS_PER_POLL = 64;
    /** Routers a datagram may cross (RoCE v2); InfiniBand ignores it within a subnet. */
    private static final int AH_HOP_LIMIT = 64;

    /** Receives the connection manager's events about one id. */
    interface CmHandler
    {
        /**
         * @param type  the event.
         * @param event its fields, valid during the call.
         */
        void onCmEvent(CmEventType type, CmEvent event);
    }

    private final IbverbsSettings settings;
    private final InetAddress localAddress;
    private final long channel;
    private final long deviceId;
    private final long verbs;
    private final int port;
    private final String deviceName;
    private final DeviceAttributes attributes;
    private final CmEvent event = new CmEvent();
    private final Long2ObjectHashMap<CmHandler> handlers = new Long2ObjectHashMap<>();
    private final List<IbverbsConnection> connections = new ArrayList<>();
    private final List<IbverbsListener> listeners = new ArrayList<>();
    private final List<IbverbsCompletionQueue> completionQueues = new ArrayList<>();
    private final List<IbverbsProtectionDomain> protectionDomains = new ArrayList<>();
    private final List<IbverbsUdQueuePair> udQueuePairs = new ArrayList<>();
    private final List<IbverbsAddressHandle> addressHandles = new ArrayList<>();
    private final List<CmMulticast> memberships = new ArrayList<>();
    private final AtomicLong registrations = new AtomicLong();
    private UdPort udPort;
    private boolean cmPolled;
    private long lastCmPollNs;
    /** Read by the address-handle thread too. */
    private volatile boolean closed;

    private IbverbsContext(
        final IbverbsSettings settings,
        final InetAddress localAddress,
        final long channel,
        final long deviceId,
        final CmIdInfo info,
        final String deviceName,
        final DeviceAttributes attributes)
    {
        this.settings = settings;
        this.localAddress = localAddress;
        this.channel = channel;
        this.deviceId = deviceId;
        this.verbs = info.verbs();
        this.port = info.port();
        this.deviceName = deviceName;
        this.attributes = attributes;
    }

    /**
     * @param localAddress an address of one of this host's RDMA interfaces.
     * @throws IOException naming the address and what is wrong with it.
     */
    static IbverbsContext open(final InetAddress localAddress, final IbverbsSettings settings) throws IOException
    {
        checkLocalAddress(localAddress);
        final long channel = Verbs.check("rdma_create_event_channel", RdmaCm.createEventChannel());
        long id = 0;
        try
        {
            id = Verbs.check("rdma_create_id", RdmaCm.createId(channel));
            final int bound = RdmaCm.bindAddr(id, RdmaCm.family(localAddress), RdmaCm.high(localAddress),
                RdmaCm.low(localAddress), 0);
            if (bound < 0)
            {
                throw new VerbsException("cannot bind RDMA CM to " + localAddress.getHostAddress() + " (" +
                    Verbs.errorText(bound) + "): it must be an address of one of this host's RDMA interfaces " +
                    "(see 'rdma link show')");
            }
            final CmIdInfo info = CmIdInfo.of(id);
            if (info.verbs() == 0)
            {
                throw new VerbsException(localAddress.getHostAddress() + " is not served by an RDMA device (RDMA CM " +
                    "bound it without a device): use the address of an RDMA interface (see 'rdma link show'); " +
                    "loopback addresses never are");
            }
            final String name = Verbs.deviceName(info.verbs());
            final DeviceAttributes attributes = Verbs.deviceAttributes(info.verbs());
            return new IbverbsContext(settings, localAddress, channel, id, info, null == name ? "rdma" : name,
                attributes);
        }
        catch (final IOException | RuntimeException ex)
        {
            if (id > 0)
            {
                RdmaCm.destroyId(id);
            }
            RdmaCm.destroyEventChannel(channel);
            throw ex;
        }
    }

    @Override
    public String providerName()
    {
        return IbverbsProvider.NAME;
    }

    @Override
    public String deviceName()
    {
        return deviceName;
    }

    @Override
    public DeviceAttributes attributes()
    {
        return attributes;
    }

    @Override
    public long totalRegistrations()
    {
        return registrations.get();
    }

    InetAddress localAddress()
    {
        return localAddress;
    }

    IbverbsSettings settings()
    {
        return settings;
    }

    long nowNs()
    {
        return settings.nanoClock().getAsLong();
    }

    long channel()
    {
        return channel;
    }

    long verbs()
    {
        return verbs;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() throws IOException
    {
        ensureOpen();
        final long pd = Verbs.check("ibv_alloc_pd on " + deviceName, Verbs.allocPd(verbs));
        final IbverbsProtectionDomain domain = new IbverbsProtectionDomain(this, pd);
        protectionDomains.add(domain);
        return domain;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int entries) throws IOException
    {
        ensureOpen();
        if (entries < 1 || entries > attributes.maxCqEntries())
        {
            throw new VerbsException("a completion queue of " + entries + " entries: " + deviceName + " allows 1 to " +
                attributes.maxCqEntries() + " (max_cqe)");
        }
        final long cq = Verbs.check("ibv_create_cq of " + entries + " entries on " + deviceName,
            Verbs.createCq(verbs, entries));
        final IbverbsCompletionQueue queue = new IbverbsCompletionQueue(this, cq, entries);
        completionQueues.add(queue);
        return queue;
    }

    /**
     * A wildcard address listens on this context's address: a context serves one device, and requests arriving
     * through another device could not use its protection domain.
     */
    @Override
    public CmListener listen(final InetSocketAddress address, final int backlog) throws IOException
    {
        ensureOpen();
        final IbverbsListener listener = IbverbsListener.open(this, address, backlog);
        listeners.add(listener);
        return listener;
    }

    @Override
    public CmConnection connect(final InetSocketAddress remote, final QueuePairConfig config) throws IOException
    {
        ensureOpen();
        return IbverbsConnection.connect(this, remote, config);
    }

    /** {@code ibv_create_qp} of type UD, moved to RTS on the port RDMA CM bound this context's address to. */
    @Override
    public QueuePair createUdQueuePair(final QueuePairConfig config) throws IOException
    {
        ensureOpen();
        final IbverbsUdQueuePair queuePair = IbverbsUdQueuePair.create(this, config, udPort());
        udQueuePairs.add(queuePair);
        return queuePair;
    }

    @Override
    public int udMtu() throws IOException
    {
        return udPort().activeMtu();
    }

    /**
     * {@code ibv_create_ah} from the remote's GID text ({@link Gid}), this context's port and source GID index, hop
     * limit 64, the configured traffic class and service level 0. May block while the kernel resolves a RoCE peer's
     * MAC address: not for the duty cycle.
     */
    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final UdAddress remote) throws IOException
    {
        ensureOpen();
        if (null == remote)
        {
            throw new VerbsException("no remote UD address");
        }
        final Gid gid = Gid.parse(remote.gid());
        final IbverbsProtectionDomain domain = protectionDomainOf(pd);
        final UdPort local = udPort();
        final long handle = Verbs.check(
            "ibv_create_ah (to " + remote.gid() + " from port " + local.number() + ", GID index " + local.gidIndex() +
            ")",
            Verbs.createAh(domain.handle(), gid.high(), gid.low(), gid.lid(), local.number(), local.gidIndex(),
                AH_HOP_LIMIT, settings.trafficClass(), 0));
        final IbverbsAddressHandle addressHandle = new IbverbsAddressHandle(this, remote, handle);
        synchronized (addressHandles)
        {
            addressHandles.add(addressHandle);
        }
        return addressHandle;
    }

    /**
     * A UD id ({@code RDMA_PS_UDP}) on this context's event channel, bound to its address, and
     * {@code rdma_join_multicast}: the MULTICAST_JOIN or MULTICAST_ERROR event arrives through
     * {@link #pollConnectionEvents()}, routed by the id like every other event.
     */
    @Override
    public MulticastMembership joinMulticast(final InetAddress group) throws IOException
    {
        ensureOpen();
        final CmMulticast membership = CmMulticast.join(channel, localAddress, group, verbs, deviceName, this);
        if (membership.id() != 0)
        {
            memberships.add(membership);
            register(membership.id(), membership::onCmEvent);
        }
        return membership;
    }

    /** From the join event's {@code ah_attr}, on this context's protection domain. */
    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final MulticastMembership group)
        throws IOException
    {
        ensureOpen();
        final long handle = membershipOf(group).createAddressHandle(protectionDomainOf(pd).handle());
        final IbverbsAddressHandle addressHandle = new IbverbsAddressHandle(this, group.destination(), handle);
        synchronized (addressHandles)
        {
            addressHandles.add(addressHandle);
        }
        return addressHandle;
    }

    @Override
    public void forget(final CmMulticast membership)
    {
        memberships.remove(membership);
        unregister(membership.id());
    }

    CmMulticast membershipOf(final MulticastMembership group) throws VerbsException
    {
        if (group instanceof CmMulticast && memberships.contains(group))
        {
            return (CmMulticast)group;
        }
        throw new VerbsException("the membership " + group + " is not a live membership of " + this);
    }

    /**
     * Takes pending connection manager events (at most every {@link IbverbsSettings#cmPollIntervalNs()}) and hands
     * each to the listener, request or connection whose id it names. Never blocks: the channel is non-blocking.
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
        int handled = 0;
        for (int i = 0; i < MAX_CM_EVENTS_PER_POLL && event.take(channel); i++)
        {
            handled++;
            dispatch();
        }
        return handled;
    }

    /** Frees what is left: connections and listeners, then UD queue pairs, address handles, CQs and PDs, then the CM. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        for (final IbverbsConnection connection : new ArrayList<>(connections))
        {
            connection.close();
        }
        for (final IbverbsListener listener : new ArrayList<>(listeners))
        {
            listener.close();
        }
        for (final IbverbsUdQueuePair queuePair : new ArrayList<>(udQueuePairs))
        {
            queuePair.close();
        }
        for (final CmMulticast membership : new ArrayList<>(memberships))
        {
            membership.close();
        }
        final List<IbverbsAddressHandle> handles;
        synchronized (addressHandles)
        {
            handles = new ArrayList<>(addressHandles);
        }
        for (final IbverbsAddressHandle handle : handles)
        {
            handle.close();
        }
        for (final IbverbsCompletionQueue queue : new ArrayList<>(completionQueues))
        {
            queue.close();
        }
        for (final IbverbsProtectionDomain domain : new ArrayList<>(protectionDomains))
        {
            domain.close();
        }
        closed = true;
        warnOnFailure("rdma_destroy_id", RdmaCm.destroyId(deviceId));
        warnOnFailure("rdma_destroy_event_channel", RdmaCm.destroyEventChannel(channel));
    }

    @Override
    public String toString()
    {
        return "IbverbsContext{" + deviceName + " for " + localAddress.getHostAddress() + "}";
    }

    // ---------------------------------------------------------------- for the context's resources

    /** @return a new id on this context's event channel. */
    long createId() throws VerbsException
    {
        ensureOpen();
        return Verbs.check("rdma_create_id", RdmaCm.createId(channel));
    }

    void onRegistration()
    {
        registrations.incrementAndGet();
    }

    void register(final long id, final CmHandler handler)
    {
        handlers.put(id, handler);
    }

    void unregister(final long id)
    {
        handlers.remove(id);
    }

    void forget(final IbverbsConnection connection)
    {
        connections.remove(connection);
    }

    void track(final IbverbsConnection connection)
    {
        if (!connections.contains(connection))
        {
            connections.add(connection);
        }
    }

    void forget(final IbverbsListener listener)
    {
        listeners.remove(listener);
    }

    void forget(final IbverbsCompletionQueue queue)
    {
        completionQueues.remove(queue);
    }

    void forget(final IbverbsProtectionDomain domain)
    {
        protectionDomains.remove(domain);
    }

    void forget(final IbverbsUdQueuePair queuePair)
    {
        udQueuePairs.remove(queuePair);
    }

    void forget(final IbverbsAddressHandle handle)
    {
        synchronized (addressHandles)
        {
            addressHandles.remove(handle);
        }
    }

    /**
     * @throws VerbsException when the id is bound to no device or to another device than this context's: its queue
     *                        pair could not use this context's PD and CQs.
     */
    void checkSameDevice(final long id, final InetSocketAddress address) throws VerbsException
    {
        final long idVerbs = CmIdInfo.of(id).verbs();
        if (idVerbs == 0)
        {
            throw new VerbsException(address + " is not served by an RDMA device");
        }
        if (idVerbs != verbs)
        {
            throw new VerbsException(address + " is served by another RDMA device than " + deviceName + " (opened for " +
                localAddress.getHostAddress() + "): open a context on an address of that device");
        }
    }

    IbverbsProtectionDomain protectionDomainOf(final ProtectionDomain pd) throws VerbsException
    {
        if (pd instanceof IbverbsProtectionDomain)
        {
            final IbverbsProtectionDomain domain = (IbverbsProtectionDomain)pd;
            if (domain.context() == this && domain.isOpen())
            {
                return domain;
            }
        }
        throw new VerbsException("the protection domain " + pd + " is not an open protection domain of " + this);
    }

    IbverbsCompletionQueue completionQueueOf(final CompletionQueue cq) throws VerbsException
    {
        if (cq instanceof IbverbsCompletionQueue)
        {
            final IbverbsCompletionQueue queue = (IbverbsCompletionQueue)cq;
            if (queue.context() == this && queue.isOpen())
            {
                return queue;
            }
        }
        throw new VerbsException("the completion queue " + cq + " is not an open completion queue of " + this);
    }

    /**
     * @return the {@code ibv_ah} pointer of a UD send's destination.
     * @throws VerbsException unless an open address handle of this context.
     */
    long addressHandleOf(final AddressHandle handle) throws VerbsException
    {
        if (handle instanceof IbverbsAddressHandle)
        {
            final IbverbsAddressHandle ibverbsHandle = (IbverbsAddressHandle)handle;
            final long pointer = ibverbsHandle.handle();
            if (ibverbsHandle.context() == this && pointer != 0)
            {
                return pointer;
            }
        }
        throw new VerbsException("the address handle " + handle + " is not an open address handle of " + this);
    }

    /** The UD port, resolved once: port number, GID index chosen by type, GID, active MTU. */
    UdPort udPort() throws VerbsException
    {
        if (null == udPort)
        {
            udPort = UdPort.resolve(verbs, port, localAddress, settings.gidIndex(), IbverbsSettings.GID_INDEX_PROP);
        }
        return udPort;
    }

    static void warnOnFailure(final String call, final long result)
    {
        if (result < 0)
        {
            LOG.log(System.Logger.Level.WARNING, "rivulet rdma ibverbs: " + call + " failed: " + Verbs.errorText(result));
        }
    }

    static void checkLocalAddress(final InetAddress address) throws VerbsException
    {
        if (null == address)
        {
            throw new VerbsException("no local address: the ibverbs provider opens the RDMA device serving an address");
        }
        if (address.isAnyLocalAddress())
        {
            throw new VerbsException("the ibverbs provider needs the address of an RDMA interface, not the wildcard " +
                address.getHostAddress() + ": RDMA CM picks the device by address");
        }
    }

    static void checkRemoteAddress(final InetSocketAddress remote) throws VerbsException
    {
        if (null == remote || remote.isUnresolved())
        {
            throw new VerbsException("unresolved RDMA peer address " + remote);
        }
        if (remote.getAddress().isAnyLocalAddress() || remote.getPort() == 0)
        {
            throw new VerbsException("an RDMA peer needs a specific address and port: " + remote);
        }
    }

    private void dispatch()
    {
        final CmEventType type = event.type();
        final boolean request = type == CmEventType.CONNECT_REQUEST;
        final CmHandler handler = handlers.get(request ? event.listenId() : event.id());
        if (null != handler && null != type)
        {
            handler.onCmEvent(type, event);
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "rivulet rdma ibverbs: dropped {0} for an unknown id", event);
        if (request)
        {
            // its listener is gone: refuse the new connection at once
            RdmaCm.reject(event.id(), 0, 0);
            RdmaCm.destroyId(event.id());
        }
    }

    private void ensureOpen() throws VerbsException
    {
        if (closed)
        {
            throw new VerbsException(this + " is closed");
        }
    }
}
