package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * An incoming CONNECT_REQUEST, answered once.
 *
 * <p>DiSNI 2.1 has no {@code rdma_reject}: {@link #reject()} destroys the request's id, on which the
 * kernel's connection manager rejects the request (the peer sees REJECTED). For the same reason a
 * rejection carries no private data.
 *
 * <p>Not thread-safe.
 */
final class DisniRequest implements CmRequest, CmDispatcher.Handler
{
    private final DisniVerbsContext context;
    private final DisniListener listener;
    private final RdmaCmId id;
    private final InetSocketAddress remote;
    private String abandoned;
    private boolean answered;

    DisniRequest(
        final DisniVerbsContext context, final DisniListener listener, final RdmaCmId id, final InetSocketAddress remote)
    {
        this.context = context;
        this.listener = listener;
        this.id = id;
        this.remote = remote;
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
            DisniVerbsContext.destroyQuietly(id);
            throw new VerbsException(abandoned);
        }
        try
        {
            return DisniConnection.accept(context, id, remote, config);
        }
        catch (final IOException | RuntimeException ex)
        {
            context.unregister(id);
            DisniVerbsContext.destroyQuietly(id);
            throw new VerbsException("cannot accept the RDMA connection from " + remote + ": " +
                DisniAvailability.text(ex), ex);
        }
    }

    /** Destroys the request's id, which rejects it. Idempotent; ignored after an accept. */
    @Override
    public void reject()
    {
        if (answered)
        {
            return;
        }
        answer();
        context.unregister(id);
        DisniVerbsContext.destroyQuietly(id);
    }

    @Override
    public void onCmEvent(final RdmaCmEvent.EventType type, final Object eventId)
    {
        switch (type)
        {
            case RDMA_CM_EVENT_DISCONNECTED:
            case RDMA_CM_EVENT_CONNECT_ERROR:
            case RDMA_CM_EVENT_UNREACHABLE:
            case RDMA_CM_EVENT_REJECTED:
            case RDMA_CM_EVENT_DEVICE_REMOVAL:
                abandoned = "the RDMA connection request from " + remote + " was abandoned before it was " +
                    "accepted (" + type + ")";
                break;

            default:
                break;
        }
    }

    @Override
    public String toString()
    {
        return "DisniRequest{from " + remote + (answered ? ", answered" : "") + "}";
    }

    private void answer()
    {
        answered = true;
        listener.answered(this);
    }
}
