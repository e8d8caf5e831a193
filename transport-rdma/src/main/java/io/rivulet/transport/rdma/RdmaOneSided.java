package io.rivulet.transport.rdma;

import io.rivulet.spi.ExposedMemory;
import io.rivulet.spi.OneSidedPath;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;

/**
 * One-sided remote memory for an {@link RdmaTransportDriver}: registers exposed regions, accepts peers' one-sided
 * queue pairs (target side), and opens {@link RdmaOneSidedPath}s to peers (requester side).
 *
 * <p>READs and atomics in flight: a requester must never have more outstanding on a queue pair than the target's
 * device serves at once (its responder resources, {@code max_qp_rd_atom}), or the target refuses the excess and the
 * queue pair fails. RDMA CM is meant to agree on it at set-up, but not every provider can (DiSNI 2.1 offers the local
 * device's maximum on both sides and cannot be told otherwise), so the target advertises its device's limit and
 * whether it executes atomics in its {@link Endpoint}, and each path keeps within the smaller of the two ends' limits
 * ({@link RdmaOneSidedPath}), whatever the provider.
 *
 * <p>One-sided queue pairs are apart from the messaging links on purpose: a one-sided access error moves an RC
 * queue pair to ERROR, and that must fail one operation, never the connection. The target's queue pairs post
 * nothing and receive nothing; the target's NIC serves them without its CPU, and the target only notices that a
 * queue pair failed or disconnected, and closes it.
 *
 * <p>Threading: {@link #expose} and memory closing from any thread (synchronized on this); the rest on the
 * driver's conductor.
 */
final class RdmaOneSided implements AutoCloseable
{
    private final VerbsContext context;
    private final ProtectionDomain pd;
    private final MemoryPool memoryPool;
    private final HashSet<RdmaExposedMemory> exposed = new HashSet<>();

    // Conductor.
    private final Map<String, Acceptor> acceptorsByHost = new HashMap<>();
    /** The same acceptors, iterated by index each duty cycle without allocating. */
    private final ArrayList<Acceptor> acceptors = new ArrayList<>();
    private boolean closed;

    RdmaOneSided(final VerbsContext context, final ProtectionDomain pd, final MemoryPool memoryPool)
    {
        this.context = context;
        this.pd = pd;
        this.memoryPool = memoryPool;
    }

    synchronized ExposedMemory expose(final int length, final int access) throws IOException
    {
        if (closed)
        {
            throw new IOException("the RDMA transport is closed");
        }
        final RdmaExposedMemory memory = RdmaExposedMemory.register(this, pd, length, access);
        exposed.add(memory);
        return memory;
    }

    /** Called with this locked. */
    void onClosed(final RdmaExposedMemory memory)
    {
        exposed.remove(memory);
    }

    /**
     * Conductor: the endpoint on the link's local host, listening from the first call.
     *
     * @return the {@link Endpoint} text: the listener's address, with what this node's device serves.
     */
    String endpoint(final ReliableLink link) throws IOException
    {
        final InetSocketAddress local = SocketAddresses.resolve(link.localAddress());
        final String host = local.getAddress().getHostAddress();
        Acceptor acceptor = acceptorsByHost.get(host);
        if (acceptor == null)
        {
            acceptor = new Acceptor(context.listen(new InetSocketAddress(local.getAddress(), 0),
                RdmaTransportDriver.LISTEN_BACKLOG), context.attributes());
            acceptorsByHost.put(host, acceptor);
            acceptors.add(acceptor);
        }
        return acceptor.endpoint;
    }

    /**
     * Conductor: starts connecting a path to a peer's endpoint.
     *
     * @param endpoint the text of the peer's {@link Endpoint} (or, from an older peer, its bare address).
     * @throws IllegalArgumentException when the endpoint is malformed.
     */
    OneSidedPath openPath(final String endpoint) throws IOException
    {
        final Endpoint target = Endpoint.parse(endpoint);
        final InetSocketAddress remote = target.address();
        final DeviceAttributes local = context.attributes();
        final int readAtomicLimit = readAtomicLimit(local, target);
        final String atomicsRefusal = atomicsRefusal(local, context.providerName() + " device " + context.deviceName(),
            target);
        final RegisteredBuffer staging;
        try
        {
            staging = memoryPool.allocate(RdmaOneSidedPath.STAGING_LENGTH);
        }
        catch (final IllegalStateException ex)
        {
            throw new IOException("no registered staging memory for a one-sided path: " + ex.getMessage(), ex);
        }
        CompletionQueue sendCq = null;
        CompletionQueue receiveCq = null;
        try
        {
            sendCq = context.createCompletionQueue(RdmaOneSidedPath.SLOTS);
            receiveCq = context.createCompletionQueue(1);
            final QueuePairConfig config = new QueuePairConfig(pd, sendCq, receiveCq, RdmaOneSidedPath.SLOTS, 1, 0,
                RdmaTransportDriver.RETRY_COUNT, RdmaTransportDriver.RNR_RETRY_COUNT, 0);
            final CmConnection connection = context.connect(remote, config);
            return new RdmaOneSidedPath(SocketAddresses.format(remote), connection, sendCq, receiveCq, staging,
                readAtomicLimit, readAtomicLimit == 0 ? noReadsRefusal(local, target) : null, atomicsRefusal);
        }
        catch (final IOException | RuntimeException ex)
        {
            RdmaTransportDriver.closeQuietly(sendCq);
            RdmaTransportDriver.closeQuietly(receiveCq);
            staging.close();
            throw ex;
        }
    }

    /**
     * @return READs and atomics a path may keep in flight: within what this device issues, what the target serves
     *         (when it says) and the path's slots.
     */
    static int readAtomicLimit(final DeviceAttributes local, final Endpoint target)
    {
        final int served = target.responderReads() == Endpoint.NOT_ADVERTISED ?
            RdmaOneSidedPath.SLOTS : target.responderReads();
        return Math.min(RdmaOneSidedPath.SLOTS, Math.min(local.maxInitiatorReads(), served));
    }

    /**
     * @param localDevice the provider and device this node's attributes are from, for the message: a provider may
     *                    report no atomics because it cannot tell (disni without librivulet-verbs).
     * @return why atomics cannot run between the two devices, or null when they can.
     */
    static String atomicsRefusal(final DeviceAttributes local, final String localDevice, final Endpoint target)
    {
        if (!local.supportsAtomics())
        {
            return "this node's RDMA device executes no atomics (its " + localDevice + " reports atomic_cap " +
                "IBV_ATOMIC_NONE)";
        }
        if (!target.atomics())
        {
            return "the target's RDMA device executes no atomics (its one-sided endpoint " + target.format() +
                " says so)";
        }
        return null;
    }

    private static String noReadsRefusal(final DeviceAttributes local, final Endpoint target)
    {
        return "no READ or atomic can be in flight to " + SocketAddresses.format(target.address()) + ": this node's " +
            "RDMA device issues " + local.maxInitiatorReads() + " at once (max_qp_init_rd_atom) and the target's serves " +
            (target.responderReads() == Endpoint.NOT_ADVERTISED ? "an unknown number" :
            String.valueOf(target.responderReads())) + " (max_qp_rd_atom)";
    }

    /**
     * Conductor: accepts peers' one-sided queue pairs and closes those that failed or disconnected.
     *
     * @return events handled.
     */
    int doWork()
    {
        int work = 0;
        for (int i = 0; i < acceptors.size(); i++)
        {
            work += acceptors.get(i).doWork();
        }
        return work;
    }

    /** @return one-sided queue pairs peers hold open to this node now; conductor. */
    int acceptedCount()
    {
        int count = 0;
        for (int i = 0; i < acceptors.size(); i++)
        {
            count += acceptors.get(i).accepted.size();
        }
        return count;
    }

    @Override
    public void close()
    {
        for (int i = 0; i < acceptors.size(); i++)
        {
            acceptors.get(i).close();
        }
        acceptors.clear();
        acceptorsByHost.clear();
        final ArrayList<RdmaExposedMemory> live;
        synchronized (this)
        {
            closed = true;
            live = new ArrayList<>(exposed);
        }
        for (final RdmaExposedMemory memory : live)
        {
            memory.close();
        }
    }

    /** A listener for peers' one-sided queue pairs on one local address, and the queue pairs it accepted. */
    private final class Acceptor
    {
        final CmListener listener;
        final String endpoint;
        final ArrayList<Accepted> accepted = new ArrayList<>();
        private final WorkCompletion[] completions = { new WorkCompletion(), new WorkCompletion() };

        Acceptor(final CmListener listener, final DeviceAttributes attributes)
        {
            this.listener = listener;
            this.endpoint = new Endpoint(listener.localAddress(),
                Math.min(Endpoint.MAX_RESPONDER_READS, attributes.maxResponderReads()), attributes.supportsAtomics())
                .format();
        }

        int doWork()
        {
            int work = 0;
            try
            {
                CmRequest request;
                while ((request = listener.poll()) != null)
                {
                    work++;
                    accept(request);
                }
            }
            catch (final IOException ex)
            {
                // The listener failed: peers' lookups still name it, and their paths fail to connect cleanly.
                work++;
            }
            for (int i = accepted.size() - 1; i >= 0; i--)
            {
                final Accepted one = accepted.get(i);
                try
                {
                    if (one.queuePair == null)
                    {
                        one.queuePair = one.connection.poll();
                    }
                    // Nothing is posted on this side; a completion here would only be a flush.
                    while (one.sendCq.poll(completions) > 0 || one.receiveCq.poll(completions) > 0)
                    {
                        work++;
                    }
                    final QueuePair qp = one.queuePair;
                    final boolean handshakeExpired = qp == null &&
                        System.nanoTime() - one.createdNs > RdmaLinkListener.HANDSHAKE_TIMEOUT_NS;
                    if (handshakeExpired || one.connection.isDisconnected() || (qp != null && qp.state() == QpState.ERROR))
                    {
                        accepted.remove(i);
                        one.close();
                        work++;
                    }
                }
                catch (final IOException ex)
                {
                    accepted.remove(i);
                    one.close();
                    work++;
                }
            }
            return work;
        }

        private void accept(final CmRequest request)
        {
            CompletionQueue sendCq = null;
            CompletionQueue receiveCq = null;
            try
            {
                sendCq = context.createCompletionQueue(1);
                receiveCq = context.createCompletionQueue(1);
                final QueuePairConfig config = new QueuePairConfig(pd, sendCq, receiveCq, 1, 1, 0,
                    RdmaTransportDriver.RETRY_COUNT, RdmaTransportDriver.RNR_RETRY_COUNT, 0);
                accepted.add(new Accepted(request.accept(config), sendCq, receiveCq));
            }
            catch (final IOException | RuntimeException ex)
            {
                RdmaTransportDriver.closeQuietly(sendCq);
                RdmaTransportDriver.closeQuietly(receiveCq);
                try
                {
                    request.reject();
                }
                catch (final RuntimeException ignore)
                {
                    // Already gone; the peer's path fails to connect either way.
                }
            }
        }

        void close()
        {
            RdmaTransportDriver.closeQuietly(listener);
            for (final Accepted one : accepted)
            {
                one.close();
            }
            accepted.clear();
        }
    }

    /** A peer's one-sided queue pair on this node. */
    private static final class Accepted
    {
        final CmConnection connection;
        final CompletionQueue sendCq;
        final CompletionQueue receiveCq;
        final long createdNs = System.nanoTime();
        QueuePair queuePair;

        Accepted(final CmConnection connection, final CompletionQueue sendCq, final CompletionQueue receiveCq)
        {
            this.connection = connection;
            this.sendCq = sendCq;
            this.receiveCq = receiveCq;
        }

        void close()
        {
            RdmaTransportDriver.closeQuietly(connection);
            RdmaTransportDriver.closeQuietly(sendCq);
            RdmaTransportDriver.closeQuietly(receiveCq);
        }
    }

    /**
     * Where peers open one-sided paths to, and what the target's device serves on them, as the text a target hands
     * out in {@code REGION_INFO} (opaque to everything outside the RDMA transport):
     * {@code host:port;reads=N;atomics=0|1}, the address of the one-sided listener ({@code [v6]:port} for IPv6),
     * the READs and atomics the device serves at once per queue pair ({@code max_qp_rd_atom}) and whether it executes
     * atomics. Keys a requester does not know are skipped, so a later version may add some; a bare {@code host:port}
     * (from a target before this format) says nothing about either.
     *
     * @param address        the one-sided listener's address.
     * @param responderReads READs and atomics served at once per queue pair, or {@link #NOT_ADVERTISED}.
     * @param atomics        false when the target's device executes no atomics.
     */
    record Endpoint(InetSocketAddress address, int responderReads, boolean atomics)
    {
        /** The target did not say (an old-format endpoint). */
        static final int NOT_ADVERTISED = -1;
        /** Above any device's {@code max_qp_rd_atom} (an 8-bit field in RDMA CM and InfiniBand's CM). */
        static final int MAX_RESPONDER_READS = 65535;

        private static final String READS = "reads=";
        private static final String ATOMICS = "atomics=";

        /**
         * @param text the endpoint as a target wrote it.
         * @return it, parsed; the host is resolved as {@link SocketAddresses#resolve} does (IP literals without a
         *         lookup).
         * @throws IllegalArgumentException naming the text when it is malformed.
         * @throws java.net.UnknownHostException when its host cannot be resolved.
         */
        static Endpoint parse(final String text) throws IOException
        {
            if (null == text)
            {
                throw new IllegalArgumentException("invalid one-sided endpoint null");
            }
            final int end = text.indexOf(';');
            final InetSocketAddress address;
            try
            {
                address = SocketAddresses.resolve(end < 0 ? text : text.substring(0, end));
            }
            catch (final IllegalArgumentException ex)
            {
                throw invalid(text, ex.getMessage());
            }
            if (end < 0)
            {
                return new Endpoint(address, NOT_ADVERTISED, true);
            }
            int reads = NOT_ADVERTISED;
            boolean atomics = true;
            int start = end + 1;
            while (start <= text.length())
            {
                int next = text.indexOf(';', start);
                next = next < 0 ? text.length() : next;
                final String field = text.substring(start, next);
                if (field.startsWith(READS))
                {
                    reads = number(text, field.substring(READS.length()), MAX_RESPONDER_READS);
                }
                else if (field.startsWith(ATOMICS))
                {
                    atomics = number(text, field.substring(ATOMICS.length()), 1) == 1;
                }
                else if (field.indexOf('=') < 1)
                {
                    throw invalid(text, "'" + field + "' is no key=value field");
                }
                start = next + 1;
            }
            return new Endpoint(address, reads, atomics);
        }

        /** @return the text {@link #parse} reads. */
        String format()
        {
            final String host = SocketAddresses.format(address);
            return responderReads == NOT_ADVERTISED ? host :
                host + ";" + READS + responderReads + ";" + ATOMICS + (atomics ? 1 : 0);
        }

        private static int number(final String text, final String value, final int max)
        {
            if (value.isEmpty() || value.length() > 5)
            {
                throw invalid(text, "'" + value + "' is no number from 0 to " + max);
            }
            int number = 0;
            for (int i = 0; i < value.length(); i++)
            {
                final char c = value.charAt(i);
                if (c < '0' || c > '9')
                {
                    throw invalid(text, "'" + value + "' is no number from 0 to " + max);
                }
                number = number * 10 + (c - '0');
            }
            if (number > max)
            {
                throw invalid(text, "'" + value + "' is no number from 0 to " + max);
            }
            return number;
        }

        private static IllegalArgumentException invalid(final String text, final String reason)
        {
            return new IllegalArgumentException("invalid one-sided endpoint '" + text + "': " + reason);
        }
    }
}
