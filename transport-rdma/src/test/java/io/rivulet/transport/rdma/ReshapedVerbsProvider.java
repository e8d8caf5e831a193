package io.rivulet.transport.rdma;

import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsProvider;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * Another provider's devices (soft's, in the tests) as a device with other {@link DeviceAttributes} would show them,
 * for what the engine decides from them: a target that serves fewer READs at once, a device without atomics. It
 * also watches the RC queue pairs it connects: the most READs and atomics any of them had posted and not yet seen
 * complete, an upper bound of what the target had to serve at once.
 */
final class ReshapedVerbsProvider implements VerbsProvider
{
    private final VerbsProvider delegate;
    private final UnaryOperator<DeviceAttributes> reshape;
    private final AtomicInteger mostReadAtomicsOutstanding = new AtomicInteger();
    private final AtomicLong readAtomicsPosted = new AtomicLong();

    /**
     * @param delegate the provider whose devices these are.
     * @param reshape  what its devices' attributes become.
     */
    ReshapedVerbsProvider(final VerbsProvider delegate, final UnaryOperator<DeviceAttributes> reshape)
    {
        this.delegate = delegate;
        this.reshape = reshape;
    }

    /** @return the attributes with other READ/atomic limits each way. */
    static UnaryOperator<DeviceAttributes> reads(final int responderReads, final int initiatorReads)
    {
        return attributes -> new DeviceAttributes(attributes.maxQpWorkRequests(), attributes.maxSge(),
            attributes.maxCqEntries(), responderReads, initiatorReads, attributes.atomics());
    }

    /** @return the attributes of a device that executes no atomics. */
    static UnaryOperator<DeviceAttributes> noAtomics()
    {
        return attributes -> new DeviceAttributes(attributes.maxQpWorkRequests(), attributes.maxSge(),
            attributes.maxCqEntries(), attributes.maxResponderReads(), attributes.maxInitiatorReads(),
            DeviceAttributes.AtomicCapability.NONE);
    }

    /** @return the device under a reshaped one, for its own counters. */
    static VerbsContext delegateOf(final VerbsContext context)
    {
        return context instanceof Context reshaped ? reshaped.delegate : context;
    }

    /** @return the most READs and atomics one connected queue pair had outstanding at once. */
    int mostReadAtomicsOutstanding()
    {
        return mostReadAtomicsOutstanding.get();
    }

    /** @return READs and atomics posted on connected queue pairs. */
    long readAtomicsPosted()
    {
        return readAtomicsPosted.get();
    }

    @Override
    public String name()
    {
        return delegate.name();
    }

    @Override
    public Availability availability()
    {
        return delegate.availability();
    }

    @Override
    public VerbsContext open(final InetAddress localAddress) throws IOException
    {
        return new Context(delegate.open(localAddress));
    }

    private static QueuePairConfig unwrap(final QueuePairConfig config)
    {
        return new QueuePairConfig(config.pd(), unwrap(config.sendCq()), unwrap(config.receiveCq()),
            config.maxSendWr(), config.maxReceiveWr(), config.maxInlineData(), config.retryCount(),
            config.rnrRetryCount(), config.qkey());
    }

    private static CompletionQueue unwrap(final CompletionQueue cq)
    {
        return cq instanceof TrackedCompletionQueue tracked ? tracked.delegate : cq;
    }

    private final class Context extends ForwardingVerbsContext
    {

        Context(final VerbsContext delegate)
        {
            super(delegate);
        }

        @Override
        public DeviceAttributes attributes()
        {
            return reshape.apply(delegate.attributes());
        }

        @Override
        public CompletionQueue createCompletionQueue(final int entries) throws IOException
        {
            return new TrackedCompletionQueue(delegate.createCompletionQueue(entries));
        }

        @Override
        public CmListener listen(final InetSocketAddress address, final int backlog) throws IOException
        {
            final CmListener listener = delegate.listen(address, backlog);
            return new CmListener()
            {
                @Override
                public CmRequest poll() throws IOException
                {
                    final CmRequest request = listener.poll();
                    return null == request ? null : new CmRequest()
                    {
                        @Override
                        public InetSocketAddress remoteAddress()
                        {
                            return request.remoteAddress();
                        }

                        @Override
                        public CmConnection accept(final QueuePairConfig config) throws IOException
                        {
                            return request.accept(unwrap(config));
                        }

                        @Override
                        public void reject()
                        {
                            request.reject();
                        }
                    };
                }

                @Override
                public InetSocketAddress localAddress()
                {
                    return listener.localAddress();
                }

                @Override
                public void close()
                {
                    listener.close();
                }
            };
        }

        @Override
        public CmConnection connect(final InetSocketAddress remote, final QueuePairConfig config) throws IOException
        {
            final CmConnection connection = delegate.connect(remote, unwrap(config));
            final TrackedCompletionQueue sendCq = (TrackedCompletionQueue)config.sendCq();
            return new CmConnection()
            {
                private TrackedQueuePair queuePair;

                @Override
                public QueuePair poll() throws IOException
                {
                    return null == connection.poll() ? null : queuePair();
                }

                @Override
                public QueuePair queuePair()
                {
                    if (null == queuePair && null != connection.queuePair())
                    {
                        queuePair = new TrackedQueuePair(connection.queuePair(), sendCq);
                    }
                    return queuePair;
                }

                @Override
                public boolean isDisconnected()
                {
                    return connection.isDisconnected();
                }

                @Override
                public InetSocketAddress remoteAddress()
                {
                    return connection.remoteAddress();
                }

                @Override
                public InetSocketAddress localAddress()
                {
                    return connection.localAddress();
                }

                @Override
                public void close()
                {
                    connection.close();
                }
            };
        }

        @Override
        public QueuePair createUdQueuePair(final QueuePairConfig config) throws IOException
        {
            return delegate.createUdQueuePair(unwrap(config));
        }

        @Override
        public void close()
        {
            delegate.close();
        }
    }

    /** Forgets a READ or atomic once its completion has been polled. */
    private static final class TrackedCompletionQueue implements CompletionQueue
    {
        final CompletionQueue delegate;
        final Set<Long> outstanding = ConcurrentHashMap.newKeySet();

        TrackedCompletionQueue(final CompletionQueue delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public int poll(final WorkCompletion[] completions, final int max) throws IOException
        {
            final int polled = delegate.poll(completions, max);
            for (int i = 0; i < polled; i++)
            {
                outstanding.remove(completions[i].wrId());
            }
            return polled;
        }

        @Override
        public void close()
        {
            delegate.close();
        }
    }

    /** Counts the READs and atomics posted and not yet seen complete on its send completion queue. */
    private final class TrackedQueuePair implements QueuePair
    {
        private final QueuePair delegate;
        private final TrackedCompletionQueue sendCq;

        TrackedQueuePair(final QueuePair delegate, final TrackedCompletionQueue sendCq)
        {
            this.delegate = delegate;
            this.sendCq = sendCq;
        }

        @Override
        public QpType type()
        {
            return delegate.type();
        }

        @Override
        public QpState state()
        {
            return delegate.state();
        }

        @Override
        public int qpNumber()
        {
            return delegate.qpNumber();
        }

        @Override
        public void postSend(final SendWorkRequest request) throws IOException
        {
            final boolean readOrAtomic = switch (request.opcode())
            {
                case RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> true;
                default -> false;
            };
            if (readOrAtomic)
            {
                sendCq.outstanding.add(request.wrId());
                mostReadAtomicsOutstanding.accumulateAndGet(sendCq.outstanding.size(), Math::max);
                readAtomicsPosted.incrementAndGet();
            }
            try
            {
                delegate.postSend(request);
            }
            catch (final IOException | RuntimeException ex)
            {
                sendCq.outstanding.remove(request.wrId());
                throw ex;
            }
        }

        @Override
        public void postReceive(final ReceiveWorkRequest request) throws IOException
        {
            delegate.postReceive(request);
        }

        @Override
        public UdAddress udAddress()
        {
            return delegate.udAddress();
        }

        @Override
        public void close()
        {
            delegate.close();
        }
    }
}
