package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A listening RDMA CM id ({@code rdma_bind_addr} + {@code rdma_listen}), polled without blocking.
 * Incoming CONNECT_REQUESTs queue as {@link DisniRequest}s; the ones still unanswered when the
 * listener closes are rejected.
 *
 * <p>Not thread-safe.
 */
final class DisniListener implements CmListener, CmDispatcher.Handler
{
    private final DisniVerbsContext context;
    private final RdmaCmId id;
    private final InetSocketAddress localAddress;
    private final ArrayDeque<DisniRequest> pending = new ArrayDeque<>();
    private final List<DisniRequest> unanswered = new ArrayList<>();
    private String failure;
    private boolean closed;

    private DisniListener(final DisniVerbsContext context, final RdmaCmId id, final InetSocketAddress localAddress)
    {
        this.context = context;
        this.id = id;
        this.localAddress = localAddress;
    }

    static DisniListener open(final DisniVerbsContext context, final InetSocketAddress address, final int backlog)
        throws IOException
    {
        if (null == address || address.isUnresolved())
        {
            throw new VerbsException("cannot listen on unresolved address " + address);
        }
        final InetSocketAddress bindTo = address.getAddress().isAnyLocalAddress() ?
            new InetSocketAddress(context.localAddress(), address.getPort()) : address;
        DisniVerbsContext.checkLocalAddress(bindTo.getAddress());
        if (backlog < 1)
        {
            throw new VerbsException("listen backlog must be positive: " + backlog);
        }

        final RdmaCmId id = context.createId();
        try
        {
            id.bindAddr(bindTo);
            context.checkSameDevice(id, bindTo);
            id.listen(backlog);
            final InetSocketAddress bound = DisniConnection.sourceOf(id);
            final DisniListener listener = new DisniListener(
                context, id, null != bound && bound.getPort() != 0 ? bound : bindTo);
            context.register(id, listener);
            return listener;
        }
        catch (final IOException | RuntimeException ex)
        {
            DisniVerbsContext.destroyQuietly(id);
            throw new VerbsException("cannot listen for RDMA connections on " + bindTo + ": " +
                DisniAvailability.text(ex), ex);
        }
    }

    @Override
    public CmRequest poll() throws IOException
    {
        if (closed)
        {
            throw new VerbsException("RDMA listener on " + localAddress + " is closed");
        }
        context.pollConnectionEvents();
        if (null != failure)
        {
            throw new VerbsException(failure);
        }
        return pending.poll();
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    /** Rejects unanswered requests and destroys the listening id. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final DisniRequest request : new ArrayList<>(unanswered))
        {
            request.reject();
        }
        pending.clear();
        context.unregister(id);
        DisniVerbsContext.destroyQuietly(id);
        context.forget(this);
    }

    @Override
    public void onCmEvent(final RdmaCmEvent.EventType type, final Object eventId)
    {
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST && eventId instanceof RdmaCmId)
        {
            final RdmaCmId requestId = (RdmaCmId)eventId;
            final DisniRequest request = new DisniRequest(
                context, this, requestId, DisniConnection.destinationOf(requestId));
            context.register(requestId, request);
            if (closed)
            {
                request.reject();
                return;
            }
            unanswered.add(request);
            pending.add(request);
        }
        else if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL)
        {
            failure = "RDMA device removed under the listener on " + localAddress;
        }
    }

    void answered(final DisniRequest request)
    {
        unanswered.remove(request);
        pending.remove(request);
    }

    @Override
    public String toString()
    {
        return "DisniListener{" + localAddress + "}";
    }
}
