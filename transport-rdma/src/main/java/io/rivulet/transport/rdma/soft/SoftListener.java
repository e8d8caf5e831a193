package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.OneToOneConcurrentArrayQueue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listening soft RC endpoint: a TCP server socket, or an address on the in-memory fabric. Connection
 * requests wait in a queue bounded by the backlog (more are rejected) until {@link #poll()} takes them.
 *
 * <p>{@link #poll()} and {@link #close()} may be called from any thread; accepting connections and
 * reading their requests happens on the NIC thread.
 */
final class SoftListener implements CmListener, Selectable
{
    private static final int ACCEPTS_PER_CYCLE = 16;

    private final SoftVerbsContext context;
    private final SoftNic nic;
    private final ServerSocketChannel serverChannel;
    private final SoftFabric fabric;
    private final int backlog;
    private final OneToOneConcurrentArrayQueue<SoftCmRequest> pending;
    private final AtomicInteger pendingCount = new AtomicInteger();
    private final ManyToOneConcurrentArrayQueue<Incoming> incoming;
    private volatile InetSocketAddress localAddress;
    private volatile boolean closed;
    private boolean acceptReady;

    /** An in-memory connection attempt handed over by the connecting device. */
    private static final class Incoming
    {
        final MemoryWire wire;
        final InetSocketAddress remoteAddress;

        Incoming(final MemoryWire wire, final InetSocketAddress remoteAddress)
        {
            this.wire = wire;
            this.remoteAddress = remoteAddress;
        }
    }

    private SoftListener(
        final SoftVerbsContext context, final ServerSocketChannel serverChannel, final SoftFabric fabric,
        final int backlog)
    {
        this.context = context;
        this.nic = context.nic();
        this.serverChannel = serverChannel;
        this.fabric = fabric;
        this.backlog = backlog;
        pending = new OneToOneConcurrentArrayQueue<>(backlog);
        incoming = fabric != null ? new ManyToOneConcurrentArrayQueue<>(backlog) : null;
    }

    /** Binds a TCP listener (application thread), then hands it to the NIC. */
    static SoftListener socket(final SoftVerbsContext context, final InetSocketAddress address, final int backlog)
        throws IOException
    {
        final ServerSocketChannel channel = ServerSocketChannel.open();
        try
        {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(address, backlog);
            channel.configureBlocking(false);
        }
        catch (final IOException ex)
        {
            channel.close();
            throw ex;
        }
        final SoftListener listener = new SoftListener(context, channel, null, backlog);
        listener.localAddress = (InetSocketAddress)channel.getLocalAddress();
        final IOException[] failure = new IOException[1];
        context.nic().runSync(() ->
        {
            try
            {
                context.nic().register(channel, SelectionKey.OP_ACCEPT, listener);
                context.nic().addListener(listener);
            }
            catch (final IOException ex)
            {
                failure[0] = ex;
            }
        });
        if (failure[0] != null)
        {
            channel.close();
            throw failure[0];
        }
        return listener;
    }

    /** Binds an address on the in-memory fabric. */
    static SoftListener inMemory(
        final SoftVerbsContext context, final SoftFabric fabric, final InetSocketAddress address, final int backlog)
        throws IOException
    {
        final SoftListener listener = new SoftListener(context, null, fabric, backlog);
        listener.localAddress = fabric.bindListener(address, listener);
        context.nic().runSync(() -> context.nic().addListener(listener));
        return listener;
    }

    // ------------------------------------------------------------------ CmListener (any thread)

    @Override
    public synchronized CmRequest poll() throws IOException
    {
        if (closed)
        {
            throw new IOException("listener closed: " + localAddress);
        }
        final SoftCmRequest request = pending.poll();
        if (request != null)
        {
            pendingCount.decrementAndGet();
        }
        return request;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            nic.runSync(this::closeOnNic);
        }
    }

    /**
     * In-memory connection attempt from another device (its application thread).
     *
     * @return false when closed or the backlog is full: the attempt is refused.
     */
    boolean offerIncoming(final MemoryWire wire, final InetSocketAddress remoteAddress)
    {
        if (closed || !incoming.offer(new Incoming(wire, remoteAddress)))
        {
            return false;
        }
        nic.wake();
        return true;
    }

    // ------------------------------------------------------------------ NIC thread

    @Override
    public void onSelected(final int readyOps)
    {
        if ((readyOps & SelectionKey.OP_ACCEPT) != 0)
        {
            acceptReady = true;
        }
    }

    int doWork(final SoftNic nic)
    {
        if (closed)
        {
            return 0;
        }
        int work = 0;
        if (incoming != null)
        {
            Incoming next;
            while ((next = incoming.poll()) != null)
            {
                final SoftConnection connection = SoftConnection.passive(
                    context, this, localAddress, next.remoteAddress);
                try
                {
                    connection.startPassive(next.wire);
                }
                catch (final IOException ex)
                {
                    next.wire.close();
                }
                work++;
            }
        }
        if (serverChannel != null && acceptReady)
        {
            acceptReady = false;
            for (int i = 0; i < ACCEPTS_PER_CYCLE; i++)
            {
                final SocketChannel channel;
                try
                {
                    channel = serverChannel.accept();
                }
                catch (final IOException ex)
                {
                    break;
                }
                if (channel == null)
                {
                    break;
                }
                work++;
                try
                {
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    final SoftConnection connection = SoftConnection.passive(context, this,
                        (InetSocketAddress)channel.getLocalAddress(), (InetSocketAddress)channel.getRemoteAddress());
                    connection.startPassive(new TcpWire(channel));
                }
                catch (final IOException ex)
                {
                    try
                    {
                        channel.close();
                    }
                    catch (final IOException ignore)
                    {
                        // dropping it anyway
                    }
                }
                if (i == ACCEPTS_PER_CYCLE - 1)
                {
                    acceptReady = true;
                }
            }
        }
        return work;
    }

    /** A request arrived on an accepted connection. @return false to refuse it. */
    boolean offerRequest(final SoftCmRequest request)
    {
        if (closed || pendingCount.get() >= backlog || !pending.offer(request))
        {
            return false;
        }
        pendingCount.incrementAndGet();
        return true;
    }

    void closeOnNic()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        nic.removeListener(this);
        if (serverChannel != null)
        {
            try
            {
                serverChannel.close();
            }
            catch (final IOException ignore)
            {
                // closing anyway
            }
        }
        if (fabric != null)
        {
            fabric.unbindListener(localAddress, this);
            Incoming next;
            while ((next = incoming.poll()) != null)
            {
                next.wire.close();
            }
        }
        SoftCmRequest request;
        while ((request = pending.poll()) != null)
        {
            request.reject();
        }
    }

    @Override
    public String toString()
    {
        return "SoftListener{" + localAddress + ", closed=" + closed + "}";
    }
}
