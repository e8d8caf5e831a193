package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.cm.ConnectionSetup;
import io.rivulet.transport.rdma.jni.CmEvent;
import io.rivulet.transport.rdma.jni.CmIdInfo;
import io.rivulet.transport.rdma.jni.RdmaCm;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An RC connection through RDMA CM, on either side, driven by {@link ConnectionSetup}.
 *
 * <p>The queue pair exists from the start ({@code rdma_create_qp} right after the id is bound to the device), so
 * receives can be posted before the peer can send: the active side sends its connect request, and the passive side
 * its accept, only from a later step.
 *
 * <p>READs and atomics in flight: each side offers what its device allows (responder resources: what it serves;
 * initiator depth: what it issues), and the passive side accepts with the smaller of each pair, so neither end
 * ever has more outstanding than the other serves (the InfiniBand rule librdmacm leaves to the application).
 *
 * <p>Not thread-safe, except {@link #isDisconnected()}, which any thread may call: events are taken only by the
 * context's owner thread ({@link IbverbsContext#pollConnectionEvents()}); this only reads what they left.
 */
final class IbverbsConnection implements CmConnection, IbverbsContext.CmHandler, ConnectionSetup.Actions
{
    private static final int MAX_RD_ATOMIC = 255;

    private final IbverbsContext context;
    private final long id;
    private final InetSocketAddress remote;
    private final int retryCount;
    private final int rnrRetryCount;
    private final int responderResources;
    private final int initiatorDepth;
    private IbverbsQueuePair queuePair;
    private ConnectionSetup setup;
    private volatile InetSocketAddress local;
    private volatile boolean lost;
    private volatile boolean closed;

    private IbverbsConnection(
        final IbverbsContext context,
        final long id,
        final InetSocketAddress remote,
        final QueuePairConfig config,
        final int responderResources,
        final int initiatorDepth)
    {
        this.context = context;
        this.id = id;
        this.remote = remote;
        this.retryCount = config.retryCount();
        this.rnrRetryCount = config.rnrRetryCount();
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
    }

    /**
     * Binds an id to the context's device, creates the queue pair and starts address resolution.
     *
     * @throws IOException naming the peer when the set-up cannot start.
     */
    static IbverbsConnection connect(
        final IbverbsContext context, final InetSocketAddress remote, final QueuePairConfig config) throws IOException
    {
        IbverbsContext.checkRemoteAddress(remote);
        final DeviceAttributes attributes = context.attributes();
        final long id = context.createId();
        IbverbsConnection connection = null;
        try
        {
            final InetSocketAddress source = new InetSocketAddress(context.localAddress(), 0);
            Verbs.check("rdma_bind_addr to " + source, RdmaCm.bindAddr(id, RdmaCm.family(source.getAddress()),
                RdmaCm.high(source.getAddress()), RdmaCm.low(source.getAddress()), 0));
            context.checkSameDevice(id, source);
            connection = new IbverbsConnection(context, id, remote, config,
                Math.min(MAX_RD_ATOMIC, attributes.maxResponderReads()),
                Math.min(MAX_RD_ATOMIC, attributes.maxInitiatorReads()));
            connection.createQueuePair(config);
            connection.setup = ConnectionSetup.active(
                remote, context.nowNs(), context.settings().connectTimeoutNs(), connection);
            context.register(id, connection);
            context.track(connection);
            Verbs.check("rdma_resolve_addr", RdmaCm.resolveAddr(id, RdmaCm.family(remote.getAddress()),
                RdmaCm.high(remote.getAddress()), RdmaCm.low(remote.getAddress()), remote.getPort(),
                context.settings().connectTimeoutMs()));
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
                RdmaCm.destroyId(id);
            }
            throw new VerbsException("RDMA connect to " + remote + " failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * Creates the queue pair of an incoming request; the accept goes out on the first {@link #poll()}. On failure
     * the caller rejects the request.
     *
     * @param peerResponderResources READs and atomics the peer offered to serve.
     * @param peerInitiatorDepth     READs and atomics the peer wants to issue.
     */
    static IbverbsConnection accept(
        final IbverbsContext context,
        final long id,
        final InetSocketAddress remote,
        final QueuePairConfig config,
        final int peerResponderResources,
        final int peerInitiatorDepth) throws IOException
    {
        final DeviceAttributes attributes = context.attributes();
        final IbverbsConnection connection = new IbverbsConnection(context, id, remote, config,
            Math.min(Math.min(MAX_RD_ATOMIC, attributes.maxResponderReads()), Math.max(0, peerInitiatorDepth)),
            Math.min(Math.min(MAX_RD_ATOMIC, attributes.maxInitiatorReads()), Math.max(0, peerResponderResources)));
        connection.createQueuePair(config);
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
        final InetSocketAddress known = local;
        return null == known ? new InetSocketAddress(context.localAddress(), 0) : known;
    }

    /** @return READs and atomics this side may have in flight on the connection: what the two ends agreed. */
    int initiatorDepth()
    {
        return initiatorDepth;
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
            IbverbsContext.warnOnFailure("rdma_disconnect", RdmaCm.disconnect(id));
        }
        if (null != queuePair)
        {
            queuePair.release();
            RdmaCm.destroyQp(id);
        }
        IbverbsContext.warnOnFailure("rdma_destroy_id", RdmaCm.destroyId(id));
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "IbverbsConnection{remote=" + remote + ", " + (null == setup ? "new" : setup.phase()) +
            (closed ? ", closed" : "") + "}";
    }

    // ---------------------------------------------------------------- CM events and actions

    @Override
    public void onCmEvent(final CmEventType type, final CmEvent event)
    {
        setup.onEvent(type);
    }

    @Override
    public void resolveRoute() throws IOException
    {
        Verbs.check("rdma_resolve_route", RdmaCm.resolveRoute(id, context.settings().connectTimeoutMs()));
    }

    @Override
    public void connect() throws IOException
    {
        Verbs.check("rdma_connect", RdmaCm.connect(id, responderResources, initiatorDepth, retryCount, rnrRetryCount,
            0, 0));
    }

    @Override
    public void accept() throws IOException
    {
        Verbs.check("rdma_accept", RdmaCm.accept(id, responderResources, initiatorDepth, rnrRetryCount, 0, 0));
    }

    @Override
    public void onEstablished()
    {
        queuePair.onEstablished();
        try
        {
            local = CmIdInfo.of(id).local();
        }
        catch (final VerbsException ex)
        {
            // the address is for messages only; the connection works without it
        }
    }

    @Override
    public void onLost()
    {
        lost = true;
        queuePair.onLost();
    }

    private void createQueuePair(final QueuePairConfig config) throws IOException
    {
        final IbverbsProtectionDomain pd = context.protectionDomainOf(config.pd());
        final IbverbsCompletionQueue sendCq = context.completionQueueOf(config.sendCq());
        final IbverbsCompletionQueue receiveCq = context.completionQueueOf(config.receiveCq());
        final ByteBuffer caps = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        final long qp = RdmaCm.createQp(id, pd.handle(), sendCq.handle(), receiveCq.handle(), config.maxSendWr(),
            config.maxReceiveWr(), SendWorkRequest.MAX_SGE, 1, Math.max(0, config.maxInlineData()),
            Verbs.addressOf(caps));
        if (qp < 0)
        {
            throw new VerbsException("rdma_create_qp (maxSendWr " + config.maxSendWr() + ", maxReceiveWr " +
                config.maxReceiveWr() + ", maxInlineData " + config.maxInlineData() + ") failed: " +
                Verbs.errorText(qp) + " (limits above the device's? max_qp_wr " +
                context.attributes().maxQpWorkRequests() + ")");
        }
        queuePair = new IbverbsQueuePair(this, qp, caps.getInt(0), config.maxSendWr(), config.maxReceiveWr(),
            caps.getInt(20), context.attributes(), sendCq, receiveCq);
    }
}
