package io.rivulet.transport.rdma.ud;

import io.rivulet.transport.rdma.ForwardingVerbsContext;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device (the soft provider's, in practice) with faults a test switches on, and counts of what a UD endpoint asked
 * of it: address handles that fail to be made, a send whose local key is spoiled so the device completes it in error
 * (and moves the queue pair to ERROR, as hardware does), and how receives were posted (one at a time, or chains).
 *
 * <p>Thread-safe where the endpoint needs it: address handles may be made on another thread.
 */
public final class FaultyVerbsContext extends ForwardingVerbsContext
{
    /** Threads that made address handles. */
    public final Set<Thread> addressHandleThreads = ConcurrentHashMap.newKeySet();
    public final AtomicInteger addressHandlesMade = new AtomicInteger();
    public volatile boolean failAddressHandles;
    /** When set, making an address handle waits for it (as ibv_create_ah waits for a neighbour), after {@link #holding}. */
    public volatile CountDownLatch hold;
    public final CountDownLatch holding = new CountDownLatch(1);
    /** The next sends posted carry a local key the device does not know. */
    public int spoilSends;
    public int singleReceivePosts;
    public int receiveChains;
    public int chainedReceives;
    public int recoveries;

    public FaultyVerbsContext(final VerbsContext delegate)
    {
        super(delegate);
    }

    @Override
    public CmListener listen(final InetSocketAddress address, final int backlog)
    {
        throw new AssertionError("a UD endpoint must not listen");
    }

    @Override
    public CmConnection connect(final InetSocketAddress remote, final QueuePairConfig config)
    {
        throw new AssertionError("a UD endpoint must not make RC connections");
    }

    @Override
    public QueuePair createUdQueuePair(final QueuePairConfig config) throws IOException
    {
        return new FaultyQueuePair(delegate.createUdQueuePair(config));
    }

    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final UdAddress remote) throws IOException
    {
        addressHandleThreads.add(Thread.currentThread());
        final CountDownLatch wait = hold;
        if (null != wait)
        {
            holding.countDown();
            try
            {
                if (!wait.await(30, TimeUnit.SECONDS))
                {
                    throw new VerbsException("ibv_create_ah (to " + remote.gid() + "): held too long (test)");
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new VerbsException("ibv_create_ah interrupted (test)");
            }
        }
        if (failAddressHandles)
        {
            throw new VerbsException("ibv_create_ah (to " + remote.gid() + "): No route to host (injected)");
        }
        final AddressHandle handle = delegate.createAddressHandle(pd, remote);
        addressHandlesMade.incrementAndGet();
        return handle;
    }

    /** The device's queue pair, counting receive posts and spoiling sends when asked. */
    private final class FaultyQueuePair implements QueuePair
    {
        private final QueuePair queuePair;

        FaultyQueuePair(final QueuePair queuePair)
        {
            this.queuePair = queuePair;
        }

        @Override
        public QpType type()
        {
            return queuePair.type();
        }

        @Override
        public QpState state()
        {
            return queuePair.state();
        }

        @Override
        public int qpNumber()
        {
            return queuePair.qpNumber();
        }

        @Override
        public void postSend(final SendWorkRequest request) throws IOException
        {
            if (spoilSends > 0)
            {
                spoilSends--;
                request.sge(0).set(request.sge(0).address(), request.sge(0).length(), request.sge(0).lkey() ^ 0x5A5A);
            }
            queuePair.postSend(request);
        }

        @Override
        public void postReceive(final ReceiveWorkRequest request) throws IOException
        {
            singleReceivePosts++;
            queuePair.postReceive(request);
        }

        @Override
        public void postReceive(final ReceiveWorkRequest[] requests, final int count) throws IOException
        {
            receiveChains++;
            chainedReceives += count;
            for (int i = 0; i < count; i++)
            {
                queuePair.postReceive(requests[i]);
            }
        }

        @Override
        public UdAddress udAddress()
        {
            return queuePair.udAddress();
        }

        @Override
        public void recover() throws IOException
        {
            recoveries++;
            queuePair.recover();
        }

        @Override
        public void close()
        {
            queuePair.close();
        }
    }
}
