package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.cm.ConnectionSetup;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * An RC connection through RDMA CM, on either side, driven by {@link ConnectionSetup}.
 *
 * <p>The queue pair exists from the start ({@code rdma_create_qp} right after the id is bound to the
 * device, as librdmacm allows), so receives can be posted before the peer can send: the active side
 * sends its connect request, and the passive side its accept, only from a later {@link #poll()}.
 *
 * <p>Not thread-safe, except {@link #isDisconnected()}, which any thread may call: events are taken only by the
 * context's owner thread ({@link DisniVerbsContext#pollConnectionEvents()}); it only reads what they left.
 */
final class DisniConnection implements CmConnection, CmDispatcher.Handler, ConnectionSetup.Actions
{
    private final DisniVerbsContext context;
    private final RdmaCmId id;
    private final InetSocketAddress remote;
    private final RdmaConnParam connParam;
    private final int timeoutMs;
    private DisniQueuePair queuePair;
    private ConnectionSetup setup;
    private volatile InetSocketAddress local;
    private volatile boolean lost;
    private volatile boolean closed;

    private DisniConnection(final DisniVerbsContext context, final RdmaCmId id, final InetSocketAddress remote,
        final QueuePairConfig config) throws IOException
    {
        this.context = context;
        this.id = id;
        this.remote = remote;
        this.connParam = DisniWorkRequests.connParam(config);
        this.timeoutMs = context.settings().connectTimeoutMsInt();
    }

    /**
     * Binds an id to the context's device, creates the queue pair and starts address resolution.
     *
     * @throws IOException naming the peer when the set-up cannot start.
     */
    static DisniConnection connect(
        final DisniVerbsContext context, final InetSocketAddress remote, final QueuePairConfig config) throws IOException
    {
        DisniVerbsContext.checkRemoteAddress(remote);
        final DisniProtectionDomain pd = context.protectionDomainOf(config.pd());
        final DisniCompletionQueue sendCq = context.completionQueueOf(config.sendCq());
        final DisniCompletionQueue receiveCq = context.completionQueueOf(config.receiveCq());

        final RdmaCmId id = context.createId();
        DisniConnection connection = null;
        try
        {
            final InetSocketAddress source = new InetSocketAddress(context.localAddress(), 0);
            id.bindAddr(source);
            context.checkSameDevice(id, source);
            connection = new DisniConnection(context, id, remote, config);
            connection.createQueuePair(pd, sendCq, receiveCq, config);
            connection.setup = ConnectionSetup.active(
                remote, context.nowNs(), context.settings().connectTimeoutNs(), connection);
            context.register(id, connection);
            context.track(connection);
            id.resolveAddr(null, remote, connection.timeoutMs);
            return connection;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (null != connection)
            {
                connection.close();
            }
            else
            {
                DisniVerbsContext.destroyQuietly(id);
            }
            throw new VerbsException("RDMA connect to " + remote + " failed: " + DisniAvailability.text(ex), ex);
        }
    }

    /**
     * Creates the queue pair of an incoming request; the accept goes out on the first {@link #poll()}.
     * On failure the caller destroys the id, which rejects the request.
     */
    static DisniConnection accept(
        final DisniVerbsContext context, final RdmaCmId id, final InetSocketAddress remote, final QueuePairConfig config)
        throws IOException
    {
        final DisniProtectionDomain pd = context.protectionDomainOf(config.pd());
        final DisniCompletionQueue sendCq = context.completionQueueOf(config.sendCq());
        final DisniCompletionQueue receiveCq = context.completionQueueOf(config.receiveCq());
        final DisniConnection connection = new DisniConnection(context, id, remote, config);
        connection.createQueuePair(pd, sendCq, receiveCq, config);
        connection.setup = ConnectionSetup.passive(
            remote, context.nowNs(), context.settings().connectTimeoutNs(), connection);
        context.register(id, connection);
        context.track(connection);
        return connection;
    }

    @Override
    public QueuePair poll() throws IOException
    {
        if (closed)
        {
            throw new VerbsException("RDMA connection with " + remote + " is closed");
        }
        context.pollConnectionEvents();
        return setup.poll(context.nowNs()) ? queuePair : null;
    }

    @Override
    public QueuePair queuePair()
    {
        return queuePair;
    }

    /**
     * Reads what the context's connection manager events left ({@link #onLost()}), never takes events itself: the
     * sender thread asks this after a failed post or an error completion, while the conductor owns the event channel
     * ({@link DisniVerbsContext#pollConnectionEvents()}).
     */
    @Override
    public boolean isDisconnected()
    {
        return closed || lost;
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        InetSocketAddress known = local;
        if (null == known && !closed)
        {
            known = sourceOf(id);
            local = known;
        }
        return null == known ? new InetSocketAddress(context.localAddress(), 0) : known;
    }

    /** {@code rdma_disconnect}, then destroys the queue pair and the id. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        context.unregister(id);
        if (null != setup && setup.needsDisconnect())
        {
            try
            {
                id.disconnect();
            }
            catch (final IOException | RuntimeException ex)
            {
                DisniVerbsContext.warn("rdma_disconnect", ex);
            }
        }
        if (null != queuePair)
        {
            queuePair.release();
            try
            {
                id.destroyQP();
            }
            catch (final IOException | RuntimeException ex)
            {
                DisniVerbsContext.warn("rdma_destroy_qp", ex);
            }
        }
        DisniVerbsContext.destroyQuietly(id);
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "DisniConnection{remote=" + remote + ", " + (null == setup ? "new" : setup.phase()) +
            (closed ? ", closed" : "") + "}";
    }

    // ---------------------------------------------------------------- CM events and actions

    @Override
    public void onCmEvent(final RdmaCmEvent.EventType type, final Object eventId)
    {
        final CmEventType event = CmEventType.of(type.ordinal());
        if (null != event)
        {
            setup.onEvent(event);
        }
    }

    @Override
    public void resolveRoute() throws IOException
    {
        id.resolveRoute(timeoutMs);
    }

    @Override
    public void connect() throws IOException
    {
        id.connect(connParam);
    }

    @Override
    public void accept() throws IOException
    {
        id.accept(connParam);
    }

    @Override
    public void onEstablished()
    {
        queuePair.onEstablished();
        local = sourceOf(id);
    }

    @Override
    public void onLost()
    {
        lost = true;
        queuePair.onError();
    }

    private void createQueuePair(
        final DisniProtectionDomain pd,
        final DisniCompletionQueue sendCq,
        final DisniCompletionQueue receiveCq,
        final QueuePairConfig config) throws IOException
    {
        final IbvQPInitAttr attr = DisniWorkRequests.rcInitAttr(config);
        attr.setSend_cq(sendCq.ibvCq());
        attr.setRecv_cq(receiveCq.ibvCq());
        final IbvQP qp;
        try
        {
            qp = id.createQP(pd.ibvPd(), attr);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("rdma_create_qp (maxSendWr " + config.maxSendWr() + ", maxReceiveWr " +
                config.maxReceiveWr() + ", maxInlineData " + config.maxInlineData() + ") failed: " +
                DisniAvailability.text(ex) + " (limits above the device's?)", ex);
        }
        if (null == qp)
        {
            throw new VerbsException("rdma_create_qp failed");
        }
        try
        {
            queuePair = new DisniQueuePair(this, qp, config, sendCq, receiveCq, context.settings().immCacheSize(),
                context.attributes().supportsAtomics());
        }
        catch (final IOException | RuntimeException ex)
        {
            try
            {
                id.destroyQP();
            }
            catch (final IOException | RuntimeException destroyFailure)
            {
                ex.addSuppressed(destroyFailure);
            }
            throw ex;
        }
    }

    static InetSocketAddress destinationOf(final RdmaCmId id)
    {
        try
        {
            final SocketAddress address = id.getDestination();
            return address instanceof InetSocketAddress ? (InetSocketAddress)address : null;
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    static InetSocketAddress sourceOf(final RdmaCmId id)
    {
        try
        {
            final SocketAddress address = id.getSource();
            return address instanceof InetSocketAddress ? (InetSocketAddress)address : null;
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }
}
