package io.rivulet.transport.rdma.soft;

import io.rivulet.tck.Await;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Devices, connected pairs and bounded polling for the soft provider's tests. */
final class SoftTestSupport
{
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    static final int ALL_REMOTE = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    private SoftTestSupport()
    {
    }

    /** The two fabrics every behaviour is checked on. */
    enum Mode
    {
        IN_PROCESS, SOCKETS;

        SoftVerbsProvider provider()
        {
            return this == IN_PROCESS ? new SoftVerbsProvider(new SoftFabric()) : new SoftVerbsProvider();
        }
    }

    static InetAddress loopback()
    {
        return InetAddress.getLoopbackAddress();
    }

    /** Polls until the condition holds; fails after {@link #TIMEOUT_NS}. */
    static void await(final BooleanSupplier condition, final String what)
    {
        Await.until(Duration.ofNanos(TIMEOUT_NS), condition::getAsBoolean, () -> what);
    }

    /** @return a copy of the next completion; fails after {@link #TIMEOUT_NS}. */
    static WorkCompletion pollOne(final CompletionQueue cq) throws IOException
    {
        final WorkCompletion[] completions = { new WorkCompletion() };
        return Await.value(Duration.ofNanos(TIMEOUT_NS), () -> cq.poll(completions) == 0 ? null : completions[0],
            () -> "a completion");
    }

    /** Polls for {@code waitNs} and fails if anything completes. */
    static void assertNoCompletion(final CompletionQueue cq, final long waitNs) throws IOException
    {
        final WorkCompletion[] completions = { new WorkCompletion() };
        final long deadlineNs = System.nanoTime() + waitNs;
        while (System.nanoTime() - deadlineNs < 0)
        {
            if (cq.poll(completions) > 0)
            {
                throw new AssertionError("unexpected completion " + completions[0]);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
    }

    /** A device with a protection domain and a send and a receive completion queue. */
    static final class Device implements AutoCloseable
    {
        final SoftVerbsContext context;
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue receiveCq;

        Device(final SoftVerbsProvider provider, final int cqEntries) throws IOException
        {
            context = provider.open(loopback());
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(cqEntries);
            receiveCq = context.createCompletionQueue(cqEntries);
        }

        MemoryRegion register(final int length, final int access) throws IOException
        {
            return pd.register(ByteBuffer.allocateDirect(length).order(ByteOrder.nativeOrder()), access);
        }

        QueuePairConfig config(final int maxWr, final int rnrRetryCount)
        {
            return new QueuePairConfig(pd, sendCq, receiveCq, maxWr, maxWr, 64, 7, rnrRetryCount, 0);
        }

        QueuePairConfig udConfig(final int maxWr, final int qkey)
        {
            return new QueuePairConfig(pd, sendCq, receiveCq, maxWr, maxWr, 64, 0, 0, qkey);
        }

        @Override
        public void close()
        {
            context.close();
        }
    }

    /** Two devices joined by an RC connection: a is the active side, b the passive. */
    static final class RcPair implements AutoCloseable
    {
        final Device a;
        final Device b;
        final CmListener listener;
        final CmConnection connectionA;
        final CmConnection connectionB;
        final QueuePair qpA;
        final QueuePair qpB;

        RcPair(final SoftVerbsProvider provider, final int maxWr, final int rnrRetryCount) throws IOException
        {
            this(provider, maxWr, rnrRetryCount, 1024);
        }

        RcPair(final SoftVerbsProvider provider, final int maxWr, final int rnrRetryCount, final int cqEntries)
            throws IOException
        {
            a = new Device(provider, cqEntries);
            b = new Device(provider, cqEntries);
            listener = b.context.listen(new InetSocketAddress(loopback(), 0), 8);
            connectionA = a.context.connect(listener.localAddress(), a.config(maxWr, rnrRetryCount));
            final CmRequest[] request = new CmRequest[1];
            await(() -> (request[0] = pollQuietly(listener)) != null, "connection request");
            connectionB = request[0].accept(b.config(maxWr, rnrRetryCount));
            final QueuePair[] qps = new QueuePair[2];
            await(() ->
            {
                try
                {
                    if (qps[0] == null)
                    {
                        qps[0] = connectionA.poll();
                    }
                    if (qps[1] == null)
                    {
                        qps[1] = connectionB.poll();
                    }
                }
                catch (final IOException ex)
                {
                    throw new AssertionError(ex);
                }
                return qps[0] != null && qps[1] != null;
            }, "connection established");
            qpA = qps[0];
            qpB = qps[1];
        }

        private static CmRequest pollQuietly(final CmListener listener)
        {
            try
            {
                return listener.poll();
            }
            catch (final IOException ex)
            {
                throw new AssertionError(ex);
            }
        }

        @Override
        public void close()
        {
            connectionA.close();
            connectionB.close();
            listener.close();
            a.close();
            b.close();
        }
    }
}
