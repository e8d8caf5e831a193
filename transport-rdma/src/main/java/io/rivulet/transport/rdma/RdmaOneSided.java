package io.rivulet.transport.rdma;

import io.rivulet.spi.ExposedMemory;
import io.rivulet.spi.OneSidedPath;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.SocketAddresses;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
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

    /** Conductor: the endpoint on the link's local host, listening from the first call. */
    String endpoint(final ReliableLink link) throws IOException
    {
        final InetSocketAddress local = SocketAddresses.resolve(link.localAddress());
        final String host = local.getAddress().getHostAddress();
        Acceptor acceptor = acceptorsByHost.get(host);
        if (acceptor == null)
        {
            acceptor = new Acceptor(context.listen(new InetSocketAddress(local.getAddress(), 0),
                RdmaTransportDriver.LISTEN_BACKLOG));
            acceptorsByHost.put(host, acceptor);
            acceptors.add(acceptor);
        }
        return acceptor.endpoint;
    }

    /** Conductor: starts connecting a path to a peer's endpoint. */
    OneSidedPath openPath(final String endpoint) throws IOException
    {
        final InetSocketAddress remote = SocketAddresses.resolve(endpoint);
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
            return new RdmaOneSidedPath(endpoint, connection, sendCq, receiveCq, staging);
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

        Acceptor(final CmListener listener)
        {
            this.listener = listener;
            this.endpoint = SocketAddresses.format(listener.localAddress());
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
}
