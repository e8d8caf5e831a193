package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.jni.CmEvent;
import io.rivulet.transport.rdma.jni.RdmaCm;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * An incoming CONNECT_REQUEST, answered once: accepted ({@link IbverbsConnection#accept}) or rejected with
 * {@code rdma_reject}, so the peer sees REJECTED at once rather than a timeout.
 *
 * <p>Not thread-safe.
 */
final class IbverbsRequest implements CmRequest, IbverbsContext.CmHandler
{
    private final IbverbsContext context;
    private final IbverbsListener listener;
    private final long id;
    private final InetSocketAddress remote;
    private final int peerResponderResources;
    private final int peerInitiatorDepth;
    private String abandoned;
    private boolean answered;

    IbverbsRequest(
        final IbverbsContext context,
        final IbverbsListener listener,
        final long id,
        final InetSocketAddress remote,
        final int peerResponderResources,
        final int peerInitiatorDepth)
    {
        this.context = context;
        this.listener = listener;
        this.id = id;
        this.remote = remote;
        this.peerResponderResources = peerResponderResources;
        this.peerInitiatorDepth = peerInitiatorDepth;
    }

    /** @return the peer's address, or null when RDMA CM did not report it. */
    @Override
    public InetSocketAddress remoteAddress()
    {
        return remote;
    }

    /**
     * Creates the queue pair now; the accept itself goes out on the connection's first
     * {@link CmConnection#poll()}, so receives posted in between are ready before the peer can send.
     */
    @Override
    public CmConnection accept(final QueuePairConfig config) throws IOException
    {
        if (answered)
        {
            throw new VerbsException("the connection request from " + remote + " was already answered");
        }
        answer();
        if (null != abandoned)
        {
            context.unregister(id);
            RdmaCm.destroyId(id);
            throw new VerbsException(abandoned);
        }
        try
        {
            return IbverbsConnection.accept(context, id, remote, config, peerResponderResources, peerInitiatorDepth);
        }
        catch (final IOException | RuntimeException ex)
        {
            context.unregister(id);
            RdmaCm.reject(id, 0, 0);
            RdmaCm.destroyId(id);
            throw new VerbsException("cannot accept the RDMA connection from " + remote + ": " + ex.getMessage(), ex);
        }
    }

    /** {@code rdma_reject}, then destroys the id. Idempotent; ignored after an accept. */
    @Override
    public void reject()
    {
        if (answered)
        {
            return;
        }
        answer();
        context.unregister(id);
        if (null == abandoned)
        {
            IbverbsContext.warnOnFailure("rdma_reject", RdmaCm.reject(id, 0, 0));
        }
        IbverbsContext.warnOnFailure("rdma_destroy_id", RdmaCm.destroyId(id));
    }

    @Override
    public void onCmEvent(final CmEventType type, final CmEvent event)
    {
        switch (type)
        {
            case DISCONNECTED:
            case CONNECT_ERROR:
            case UNREACHABLE:
            case REJECTED:
            case DEVICE_REMOVAL:
                abandoned = "the RDMA connection request from " + remote + " was abandoned before it was accepted (" +
                    type + ")";
                break;

            default:
                break;
        }
    }

    @Override
    public String toString()
    {
        return "IbverbsRequest{from " + remote + (answered ? ", answered" : "") + "}";
    }

    private void answer()
    {
        answered = true;
        listener.answered(this);
    }
}
