package io.rivulet.transport.rdma;

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
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A verbs context that passes every call to another: tests extend it and override only what they count, refuse,
 * reshape or break.
 */
public abstract class ForwardingVerbsContext implements VerbsContext
{
    protected final VerbsContext delegate;

    protected ForwardingVerbsContext(final VerbsContext delegate)
    {
        this.delegate = delegate;
    }

    @Override
    public String providerName()
    {
        return delegate.providerName();
    }

    @Override
    public String deviceName()
    {
        return delegate.deviceName();
    }

    @Override
    public DeviceAttributes attributes()
    {
        return delegate.attributes();
    }

    @Override
    public int pollConnectionEvents() throws IOException
    {
        return delegate.pollConnectionEvents();
    }

    @Override
    public long totalRegistrations()
    {
        return delegate.totalRegistrations();
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() throws IOException
    {
        return delegate.allocateProtectionDomain();
    }

    @Override
    public CompletionQueue createCompletionQueue(final int entries) throws IOException
    {
        return delegate.createCompletionQueue(entries);
    }

    @Override
    public CmListener listen(final InetSocketAddress address, final int backlog) throws IOException
    {
        return delegate.listen(address, backlog);
    }

    @Override
    public CmConnection connect(final InetSocketAddress remote, final QueuePairConfig config) throws IOException
    {
        return delegate.connect(remote, config);
    }

    @Override
    public QueuePair createUdQueuePair(final QueuePairConfig config) throws IOException
    {
        return delegate.createUdQueuePair(config);
    }

    @Override
    public int udMtu() throws IOException
    {
        return delegate.udMtu();
    }

    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final UdAddress remote) throws IOException
    {
        return delegate.createAddressHandle(pd, remote);
    }

    @Override
    public Gid udSourceOf(final UdAddress remote) throws VerbsException
    {
        return delegate.udSourceOf(remote);
    }

    @Override
    public void close()
    {
        delegate.close();
    }

    @Override
    public MulticastMembership joinMulticast(final InetAddress group) throws IOException
    {
        return delegate.joinMulticast(group);
    }

    @Override
    public AddressHandle createAddressHandle(final ProtectionDomain pd, final MulticastMembership group)
        throws IOException
    {
        return delegate.createAddressHandle(pd, group);
    }
}
