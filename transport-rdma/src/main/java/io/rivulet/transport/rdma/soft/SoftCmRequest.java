package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/** An incoming RC connection request; answered once, by accept or reject. Thread-safe. */
final class SoftCmRequest implements CmRequest
{
    private final SoftConnection connection;
    private final AtomicBoolean answered = new AtomicBoolean();

    SoftCmRequest(final SoftConnection connection)
    {
        this.connection = connection;
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return connection.remoteAddress();
    }

    @Override
    public CmConnection accept(final QueuePairConfig config) throws IOException
    {
        connection.context().checkConfig(config);
        if (!answered.compareAndSet(false, true))
        {
            throw new VerbsException("connection request already answered");
        }
        return connection.accept(config);
    }

    @Override
    public void reject()
    {
        if (answered.compareAndSet(false, true))
        {
            connection.reject();
        }
    }

    @Override
    public String toString()
    {
        return "SoftCmRequest{from " + connection.remoteAddress() + "}";
    }
}
