package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An open soft device: RDMA verbs in user space on a loopback address. Its NIC thread (one per
 * device) executes work requests, applies remote READ, WRITE and atomics to registered memory and
 * produces completions; see {@link SoftVerbsProvider} for the two fabrics it can run on.
 *
 * <p>Beyond {@link VerbsContext} it exposes counters that tests and the transport read:
 * {@link #registrations()} (live memory registrations) and {@link #totalRegistrations()} (ever made)
 * prove that registrations stay constant after start-up; the datagram and RNR counters make drops
 * and retries visible.
 *
 * <p>Thread-safe: every method may be called from any thread. Memory keys are unique per device and
 * never reused (a counter from a random start), so a stale rkey cannot reach a newer region.
 */
public final class SoftVerbsContext implements VerbsContext
{
    /** Largest send or receive queue. */
    public static final int MAX_WORK_REQUESTS = 1 << 16;
    /** Largest {@code maxInlineData}. */
    public static final int MAX_INLINE_DATA = 1024;
    /** Largest completion queue. */
    public static final int MAX_CQ_ENTRIES = 1 << 22;

    private static final AtomicInteger DEVICES = new AtomicInteger();
    private static final DeviceAttributes ATTRIBUTES = new DeviceAttributes(MAX_WORK_REQUESTS, SendWorkRequest.MAX_SGE,
        MAX_CQ_ENTRIES, SoftRcQueuePair.MAX_RD_ATOMIC, SoftRcQueuePair.MAX_RD_ATOMIC,
        DeviceAttributes.AtomicCapability.HCA);

    private final SoftVerbsProvider provider;
    private final InetAddress localAddress;
    private final SoftFabric fabric;
    private final String deviceName;
    private final SoftNic nic;
    private final AtomicInteger nextQpNumber = new AtomicInteger(0x100 + ThreadLocalRandom.current().nextInt(0x7FFF00));
    private final ArrayList<SoftProtectionDomain> protectionDomains = new ArrayList<>();
    /** Joins asked for and not yet answered, and joined memberships; under {@code memberships}. */
    private final ArrayList<SoftMulticastMembership> pendingJoins = new ArrayList<>();
    private final ArrayList<SoftMulticastMembership> memberships = new ArrayList<>();
    /** Joins waiting for an answer: read without the lock on every poll. */
    private volatile int pendingJoinCount;
    private int nextKey = ThreadLocalRandom.current().nextInt();
    private SoftDatagrams datagrams;
    private volatile SoftFaults faults;
    private volatile boolean closed;
    private volatile Throwable nicFailure;

    private final AtomicLong registrations = new AtomicLong();
    private final AtomicLong totalRegistrations = new AtomicLong();
    private final AtomicLong rnrNaksSent = new AtomicLong();
    private final AtomicLong rnrNaksReceived = new AtomicLong();
    private final AtomicLong datagramsDroppedNoReceive = new AtomicLong();
    private final AtomicLong datagramsDroppedBadQkey = new AtomicLong();
    private final AtomicLong datagramsDroppedNoQueuePair = new AtomicLong();
    private final AtomicLong datagramsMalformed = new AtomicLong();
    private final AtomicLong datagramsLost = new AtomicLong();
    private final AtomicLong faultDrops = new AtomicLong();
    private final AtomicLong faultDuplicates = new AtomicLong();
    private final AtomicLong faultReorders = new AtomicLong();
    private final AtomicLong faultDelays = new AtomicLong();
    private final AtomicLong bottleneckDrops = new AtomicLong();
    private final AtomicLong bottleneckDatagrams = new AtomicLong();
    private final AtomicLong bottleneckQueueDelayNs = new AtomicLong();
    private final AtomicLong bottleneckMaxQueueDelayNs = new AtomicLong();
    private final AtomicLong remoteAccessViolations = new AtomicLong();
    private final AtomicLong protocolErrors = new AtomicLong();
    private final AtomicLong queuePairErrors = new AtomicLong();
    private final AtomicLong completionQueueOverruns = new AtomicLong();

    SoftVerbsContext(final SoftVerbsProvider provider, final InetAddress localAddress) throws IOException
    {
        this.provider = provider;
        this.localAddress = localAddress;
        this.fabric = provider.fabric();
        this.faults = provider.faults();
        this.deviceName = "soft" + DEVICES.getAndIncrement();
        final Selector selector = fabric == null ? Selector.open() : null;
        nic = new SoftNic(this, selector);
        nic.start();
    }

    // ------------------------------------------------------------------ VerbsContext

    @Override
    public String providerName()
    {
        return SoftVerbsProvider.NAME;
    }

    @Override
    public String deviceName()
    {
        return deviceName;
    }

    /** Its limits; READs and atomics outstanding per queue pair are {@code SoftRcQueuePair}'s 16, both ways. */
    @Override
    public DeviceAttributes attributes()
    {
        return ATTRIBUTES;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() throws IOException
    {
        checkOpen();
        final SoftProtectionDomain pd = new SoftProtectionDomain(this);
        synchronized (protectionDomains)
        {
            protectionDomains.add(pd);
        }
        return pd;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int entries) throws IOException
    {
        checkOpen();
        if (entries < 1 || entries > MAX_CQ_ENTRIES)
        {
            throw new VerbsException("completion queue entries must be within [1, " + MAX_CQ_ENTRIES + "]: " +
                entries);
        }
        return new SoftCompletionQueue(this, entries);
    }

    @Override
    public CmListener listen(final InetSocketAddress address, final int backlog) throws IOException
    {
        checkOpen();
        Addresses.checkLoopback(address.getAddress(), "listen address");
        final int queued = backlog > 0 ? backlog : 128;
        return fabric != null ?
            SoftListener.inMemory(this, fabric, address, queued) :
            SoftListener.socket(this, address, queued);
    }

    @Override
    public CmConnection connect(final InetSocketAddress remote, final QueuePairConfig config) throws IOException
    {
        checkOpen();
        Addresses.checkLoopback(remote.getAddress(), "remote address");
        checkConfig(config);
        if (fabric != null)
        {
            final InetSocketAddress local = new InetSocketAddress(localAddress, fabric.ephemeralPort());
            final SoftConnection connection = SoftConnection.active(this, config, local, remote);
            final SoftListener listener = fabric.listener(remote);
            final MemoryWire[] wires = MemoryWire.pair();
            if (listener == null)
            {
                nic.execute(() -> connection.startFailed(
                    new ConnectException("connection refused: no soft listener at " + remote + " on this fabric")));
            }
            else if (!listener.offerIncoming(wires[1], local))
            {
                nic.execute(() -> connection.startFailed(
                    new ConnectException("connection refused: soft listener at " + remote + " is full or closed")));
            }
            else
            {
                nic.execute(() -> connection.startActive(wires[0]));
            }
            return connection;
        }

        final SocketChannel channel = SocketChannel.open();
        try
        {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.connect(remote);
        }
        catch (final IOException ex)
        {
            channel.close();
            final ConnectException refused = new ConnectException(
                "soft RC connection to " + remote + " failed: " + ex.getMessage());
            refused.initCause(ex);
            throw refused;
        }
        final SoftConnection connection = SoftConnection.active(this, config, null, remote);
        nic.execute(() -> connection.startActive(new TcpWire(channel)));
        return connection;
    }

    @Override
    public QueuePair createUdQueuePair(final QueuePairConfig config) throws IOException
    {
        checkOpen();
        checkConfig(config);
        final SoftDatagrams engine = datagrams();
        final SoftUdQueuePair queuePair = new SoftUdQueuePair(this, config, nextQpNumber(), engine.gid());
        // Synchronous, so the queue pair receives as soon as anyone can know its address.
        nic.runSync(() -> nic.addUdQueuePair(queuePair));
        return queuePair;
    }

    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final UdAddress remote) throws IOException
    {
        checkOpen();
        if (!(pd instanceof SoftProtectionDomain) || ((SoftProtectionDomain)pd).context() != this)
        {
            throw new VerbsException("protection domain of another device");
        }
        return new SoftAddressHandle(this, remote, Addresses.parseGid(remote.gid()));
    }

    /**
     * Asks to join; the answer comes with the next {@link #pollConnectionEvents()}, as an RDMA CM event would. On the
     * in-memory fabric the group is the fabric's (every device of the fabric that attaches a queue pair receives what is
     * sent to it); across processes (UD over UDP sockets) the join fails: the soft provider has no IP multicast.
     */
    @Override
    public MulticastMembership joinMulticast(final InetAddress group) throws IOException
    {
        checkOpen();
        MulticastMembership.checkGroup(group);
        final SoftMulticastMembership membership = new SoftMulticastMembership(this, group);
        synchronized (memberships)
        {
            pendingJoins.add(membership);
            pendingJoinCount = pendingJoins.size();
        }
        return membership;
    }

    /** Answers the joins asked for since the last call: JOINED on the in-memory fabric, else FAILED with the reason. */
    @Override
    public int pollConnectionEvents()
    {
        if (pendingJoinCount == 0)
        {
            return 0;
        }
        final SoftMulticastMembership[] answered;
        synchronized (memberships)
        {
            answered = pendingJoins.toArray(new SoftMulticastMembership[0]);
            pendingJoins.clear();
            pendingJoinCount = 0;
        }
        for (final SoftMulticastMembership membership : answered)
        {
            if (membership.state() != MulticastMembership.State.JOINING)
            {
                continue; // left before the answer
            }
            if (null == fabric)
            {
                membership.fail("soft multicast works within one process: a soft device on UDP sockets (across " +
                    "processes) has no multicast groups, so " + membership.group().getHostAddress() + " cannot be joined");
                continue;
            }
            try
            {
                final SoftMulticastGroup group = fabric.join(membership.group());
                synchronized (memberships)
                {
                    memberships.add(membership);
                }
                membership.joined(group);
            }
            catch (final IOException ex)
            {
                membership.fail("cannot join " + membership.group().getHostAddress() + ": " + ex.getMessage());
            }
        }
        return answered.length;
    }

    /** A route to a joined group of the in-memory fabric: a send reaches every attached queue pair but the sender's. */
    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final MulticastMembership group)
        throws IOException
    {
        checkOpen();
        if (!(pd instanceof SoftProtectionDomain) || ((SoftProtectionDomain)pd).context() != this)
        {
            throw new VerbsException("protection domain of another device");
        }
        if (!(group instanceof SoftMulticastMembership) || ((SoftMulticastMembership)group).context() != this)
        {
            throw new VerbsException("not a multicast membership of this device: " + group);
        }
        final SoftMulticastGroup fabricGroup = ((SoftMulticastMembership)group).fabricGroup();
        if (null == fabricGroup)
        {
            throw new VerbsException("the membership of " + group.group().getHostAddress() + " is " + group.state() +
                ", not JOINED");
        }
        return new SoftAddressHandle(this, group.destination(), fabricGroup);
    }

    /** {@link SoftMulticastMembership#close()}: leaves the fabric's group. Idempotent. */
    void leave(final SoftMulticastMembership membership)
    {
        synchronized (memberships)
        {
            pendingJoins.remove(membership);
            pendingJoinCount = pendingJoins.size();
            memberships.remove(membership);
        }
        final SoftMulticastGroup group = membership.markLeft();
        if (null != group)
        {
            fabric.leave(group);
        }
    }

    /** @return memberships joined and not left (for tests). */
    public int multicastMemberships()
    {
        synchronized (memberships)
        {
            return memberships.size();
        }
    }

    SoftFabric fabric()
    {
        return fabric;
    }

    /**
     * A soft gid is {@code host:port}; the GRH of its datagrams carries the 16-byte GID of the host alone (IPv4-mapped
     * for IPv4, in an IPv6-style GRH: see {@link SoftDatagrams}), so devices on one loopback address share it.
     */
    @Override
    public Gid udSourceOf(final UdAddress remote) throws VerbsException
    {
        final InetSocketAddress address;
        try
        {
            address = Addresses.parseGid(null == remote ? null : remote.gid());
        }
        catch (final IOException ex)
        {
            throw new VerbsException(ex.getMessage(), ex);
        }
        final byte[] gid = Addresses.gidBytes(address.getAddress());
        final ByteBuffer bytes = ByteBuffer.wrap(gid).order(ByteOrder.BIG_ENDIAN);
        return new Gid(bytes.getLong(0), bytes.getLong(8), 0);
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final SoftMulticastMembership[] joined;
        synchronized (memberships)
        {
            joined = memberships.toArray(new SoftMulticastMembership[0]);
        }
        for (final SoftMulticastMembership membership : joined)
        {
            leave(membership);
        }
        nic.stop();
        final ArrayList<SoftProtectionDomain> domains;
        synchronized (protectionDomains)
        {
            domains = new ArrayList<>(protectionDomains);
        }
        for (final SoftProtectionDomain pd : domains)
        {
            pd.close();
        }
    }

    // ------------------------------------------------------------------ soft-specific, public

    /** @return the loopback address the device was opened on. */
    public InetAddress localAddress()
    {
        return localAddress;
    }

    /** @return true on an in-memory {@link SoftFabric}, false over TCP and UDP sockets. */
    public boolean isInProcess()
    {
        return fabric != null;
    }

    /** @return the largest UD payload, without the 40-byte GRH. */
    public int mtu()
    {
        return provider.mtu();
    }

    @Override
    public int udMtu()
    {
        return mtu();
    }

    /** @return the faults applied to UD datagrams leaving this device. */
    public SoftFaults faults()
    {
        return faults;
    }

    /**
     * Replaces the UD faults of this device from the next datagram on; the random sequence restarts
     * from the new configuration's seed.
     */
    public SoftVerbsContext faults(final SoftFaults faults)
    {
        this.faults = faults == null ? SoftFaults.NONE : faults;
        return this;
    }

    /** @return memory registrations currently live on this device. */
    public long registrations()
    {
        return registrations.get();
    }

    /** @return memory registrations ever made on this device. */
    @Override
    public long totalRegistrations()
    {
        return totalRegistrations.get();
    }

    /** @return RNR NAKs this device sent (a SEND or WRITE_WITH_IMM found no posted receive). */
    public long rnrNaksSent()
    {
        return rnrNaksSent.get();
    }

    /** @return RNR NAKs this device received; each is a retry or, past the limit, an error. */
    public long rnrNaksReceived()
    {
        return rnrNaksReceived.get();
    }

    /** @return UD datagrams dropped on arrival because no receive was posted. */
    public long datagramsDroppedNoReceive()
    {
        return datagramsDroppedNoReceive.get();
    }

    /** @return UD datagrams dropped on arrival because of a wrong qkey. */
    public long datagramsDroppedBadQkey()
    {
        return datagramsDroppedBadQkey.get();
    }

    /** @return UD datagrams dropped on arrival for an unknown, closed or failed queue pair. */
    public long datagramsDroppedNoQueuePair()
    {
        return datagramsDroppedNoQueuePair.get();
    }

    /** @return UD datagrams dropped on the way out: destination missing or medium full. */
    public long datagramsLost()
    {
        return datagramsLost.get();
    }

    /** @return datagrams that were not soft UD datagrams. */
    public long datagramsMalformed()
    {
        return datagramsMalformed.get();
    }

    /** @return every datagram dropped on arrival, whatever the reason. */
    public long datagramsDropped()
    {
        return datagramsDroppedNoReceive.get() + datagramsDroppedBadQkey.get() + datagramsDroppedNoQueuePair.get() +
            datagramsMalformed.get();
    }

    public long faultDrops()
    {
        return faultDrops.get();
    }

    public long faultDuplicates()
    {
        return faultDuplicates.get();
    }

    public long faultReorders()
    {
        return faultReorders.get();
    }

    public long faultDelays()
    {
        return faultDelays.get();
    }

    /** @return UD datagrams the bottleneck dropped because its queue was full. */
    public long bottleneckDrops()
    {
        return bottleneckDrops.get();
    }

    /** @return UD datagrams that went through the bottleneck (queued or sent at once). */
    public long bottleneckDatagrams()
    {
        return bottleneckDatagrams.get();
    }

    /** @return total time datagrams waited in the bottleneck queue for the link, in ns. */
    public long bottleneckQueueDelayNs()
    {
        return bottleneckQueueDelayNs.get();
    }

    /** @return the longest wait in the bottleneck queue, in ns, since the device opened or the last reset. */
    public long bottleneckMaxQueueDelayNs()
    {
        return bottleneckMaxQueueDelayNs.get();
    }

    /**
     * Starts a new maximum for {@link #bottleneckMaxQueueDelayNs()}, so a test can read the longest wait of
     * one phase (after a warm-up, say) rather than of the device's whole life.
     *
     * @return the maximum until now.
     */
    public long resetBottleneckMaxQueueDelayNs()
    {
        return bottleneckMaxQueueDelayNs.getAndSet(0);
    }

    /** @return remote requests refused for a bad rkey, bounds or permissions. */
    public long remoteAccessViolations()
    {
        return remoteAccessViolations.get();
    }

    /** @return connections dropped because the peer sent something malformed or out of order. */
    public long protocolErrors()
    {
        return protocolErrors.get();
    }

    /** @return queue pairs that went to ERROR. */
    public long queuePairErrors()
    {
        return queuePairErrors.get();
    }

    /** @return completions lost to full completion queues. */
    public long completionQueueOverruns()
    {
        return completionQueueOverruns.get();
    }

    /** @return what stopped the NIC thread, or null while it runs. */
    public Throwable nicFailure()
    {
        return nicFailure;
    }

    @Override
    public String toString()
    {
        return "SoftVerbsContext{" + deviceName + ", " + localAddress.getHostAddress() + ", " +
            (fabric != null ? "in-process" : "sockets") + ", registrations=" + registrations() + "}";
    }

    // ------------------------------------------------------------------ package

    SoftNic nic()
    {
        return nic;
    }

    long rnrDelayNs()
    {
        return provider.rnrDelayNs();
    }

    long connectTimeoutNs()
    {
        return provider.connectTimeoutNs();
    }

    int nextQpNumber()
    {
        while (true)
        {
            final int qpn = nextQpNumber.getAndIncrement() & 0xFFFFFF;
            if (qpn > 1 && qpn != MulticastMembership.QP_NUMBER)
            {
                return qpn; // 0 and 1 are the special QPs on hardware, 0xffffff the multicast destination
            }
        }
    }

    synchronized int nextKey()
    {
        while (true)
        {
            final int key = nextKey++;
            if (key != 0 && SoftProtectionDomain.remoteKeyOf(key) != 0)
            {
                return key;
            }
        }
    }

    void checkConfig(final QueuePairConfig config) throws VerbsException
    {
        if (!(config.pd() instanceof SoftProtectionDomain) || ((SoftProtectionDomain)config.pd()).context() != this)
        {
            throw new VerbsException("protection domain missing or of another device");
        }
        if (!(config.sendCq() instanceof SoftCompletionQueue) ||
            ((SoftCompletionQueue)config.sendCq()).context() != this ||
            !(config.receiveCq() instanceof SoftCompletionQueue) ||
            ((SoftCompletionQueue)config.receiveCq()).context() != this)
        {
            throw new VerbsException("completion queue missing or of another device");
        }
        if (config.maxSendWr() > MAX_WORK_REQUESTS || config.maxReceiveWr() > MAX_WORK_REQUESTS)
        {
            throw new VerbsException("at most " + MAX_WORK_REQUESTS + " work requests per queue");
        }
        if (config.maxInlineData() < 0 || config.maxInlineData() > MAX_INLINE_DATA)
        {
            throw new VerbsException("maxInlineData must be within [0, " + MAX_INLINE_DATA + "]: " +
                config.maxInlineData());
        }
    }

    private synchronized SoftDatagrams datagrams() throws IOException
    {
        if (datagrams == null)
        {
            final DatagramPort port;
            if (fabric != null)
            {
                port = new MemoryDatagramPort(fabric, nic, localAddress);
            }
            else
            {
                port = new UdpDatagramPort(localAddress);
            }
            final SoftDatagrams engine = new SoftDatagrams(this, nic, port, provider.mtu());
            final IOException[] failure = new IOException[1];
            nic.runSync(() ->
            {
                try
                {
                    if (port instanceof UdpDatagramPort)
                    {
                        ((UdpDatagramPort)port).register(nic);
                    }
                    nic.datagrams(engine);
                }
                catch (final IOException ex)
                {
                    failure[0] = ex;
                }
            });
            if (failure[0] != null)
            {
                port.close();
                throw failure[0];
            }
            datagrams = engine;
        }
        return datagrams;
    }

    private void checkOpen() throws VerbsException
    {
        if (closed)
        {
            throw new VerbsException("soft device " + deviceName + " closed");
        }
        if (nicFailure != null)
        {
            throw new VerbsException("soft device " + deviceName + " failed: " + nicFailure, nicFailure);
        }
    }

    void onProtectionDomainClosed(final SoftProtectionDomain pd)
    {
        synchronized (protectionDomains)
        {
            protectionDomains.remove(pd);
        }
    }

    void onRegistered()
    {
        registrations.incrementAndGet();
        totalRegistrations.incrementAndGet();
    }

    void onDeregistered()
    {
        registrations.decrementAndGet();
    }

    void onRnrNakSent()
    {
        rnrNaksSent.incrementAndGet();
    }

    void onRnrNakReceived()
    {
        rnrNaksReceived.incrementAndGet();
    }

    void onDatagramNoReceive()
    {
        datagramsDroppedNoReceive.incrementAndGet();
    }

    void onDatagramBadQkey()
    {
        datagramsDroppedBadQkey.incrementAndGet();
    }

    void onDatagramNoQueuePair()
    {
        datagramsDroppedNoQueuePair.incrementAndGet();
    }

    void onDatagramMalformed()
    {
        datagramsMalformed.incrementAndGet();
    }

    void onDatagramLost()
    {
        datagramsLost.incrementAndGet();
    }

    void onFaultDrop()
    {
        faultDrops.incrementAndGet();
    }

    void onFaultDuplicate()
    {
        faultDuplicates.incrementAndGet();
    }

    void onFaultReorder()
    {
        faultReorders.incrementAndGet();
    }

    void onFaultDelay()
    {
        faultDelays.incrementAndGet();
    }

    void onBottleneckDrop()
    {
        bottleneckDrops.incrementAndGet();
    }

    /** NIC thread; the maximum is a CAS loop because {@link #resetBottleneckMaxQueueDelayNs()} may race it. */
    void onBottleneckQueued(final long queueDelayNs)
    {
        bottleneckDatagrams.incrementAndGet();
        bottleneckQueueDelayNs.addAndGet(queueDelayNs);
        long max = bottleneckMaxQueueDelayNs.get();
        while (queueDelayNs > max && !bottleneckMaxQueueDelayNs.compareAndSet(max, queueDelayNs))
        {
            max = bottleneckMaxQueueDelayNs.get();
        }
    }

    void onRemoteAccessViolation()
    {
        remoteAccessViolations.incrementAndGet();
    }

    void onProtocolError()
    {
        protocolErrors.incrementAndGet();
    }

    void onQueuePairError()
    {
        queuePairErrors.incrementAndGet();
    }

    void onCompletionQueueOverrun()
    {
        completionQueueOverruns.incrementAndGet();
    }

    void onCommandFailure(final RuntimeException failure)
    {
        System.getLogger(SoftVerbsContext.class.getName()).log(
            System.Logger.Level.WARNING, "soft device " + deviceName + ": task failed", failure);
    }

    void onNicFailure(final Throwable failure)
    {
        if (nicFailure == null)
        {
            nicFailure = failure;
        }
        System.getLogger(SoftVerbsContext.class.getName()).log(
            System.Logger.Level.ERROR, "soft device " + deviceName + ": NIC failure", failure);
    }
}
