package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.cm.CmEventType;
import io.rivulet.transport.rdma.jni.CmEvent;
import io.rivulet.transport.rdma.jni.CmIdInfo;
import io.rivulet.transport.rdma.jni.RdmaCm;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.CmListener;
import io.rivulet.transport.rdma.verbs.CmRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A listening RDMA CM id ({@code rdma_bind_addr} + {@code rdma_listen}), polled without blocking. Incoming
 * CONNECT_REQUESTs queue as {@link IbverbsRequest}s; the ones still unanswered when the listener closes are
 * rejected.
 *
 * <p>Not thread-safe.
 */
final class IbverbsListener implements CmListener, IbverbsContext.CmHandler
{
    private final IbverbsContext context;
    private final long id;
    private final InetSocketAddress localAddress;
    private final ArrayDeque<IbverbsRequest> pending = new ArrayDeque<>();
    private final List<IbverbsRequest> unanswered = new ArrayList<>();
    private String failure;
    private boolean closed;

    private IbverbsListener(final IbverbsContext context, final long id, final InetSocketAddress localAddress)
    {
        this.context = context;
        this.id = id;
        this.localAddress = localAddress;
    }

    static IbverbsListener open(final IbverbsContext context, final InetSocketAddress address, final int backlog)
        throws IOException
    {
        if (null == address || address.isUnresolved())
        {
            throw new VerbsException("cannot listen on unresolved address " + address);
        }
        final InetSocketAddress bindTo = address.getAddress().isAnyLocalAddress() ?
            new InetSocketAddress(context.localAddress(), address.getPort()) : address;
        if (backlog < 1)
        {
            throw new VerbsException("listen backlog must be positive: " + backlog);
        }
        final long id = context.createId();
        try
        {
            Verbs.check("rdma_bind_addr", RdmaCm.bindAddr(id, RdmaCm.family(bindTo.getAddress()),
                RdmaCm.high(bindTo.getAddress()), RdmaCm.low(bindTo.getAddress()), bindTo.getPort()));
            context.checkSameDevice(id, bindTo);
            Verbs.check("rdma_listen", RdmaCm.listen(id, backlog));
            final InetSocketAddress bound = CmIdInfo.of(id).local();
            final IbverbsListener listener = new IbverbsListener(
                context, id, null != bound && bound.getPort() != 0 ? bound : bindTo);
            context.register(id, listener);
            return listener;
        }
        catch (final IOException | RuntimeException ex)
        {
            RdmaCm.destroyId(id);
            throw new VerbsException("cannot listen for RDMA connections on " + bindTo + ": " + ex.getMessage(), ex);
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
        for (final IbverbsRequest request : new ArrayList<>(unanswered))
        {
            request.reject();
        }
        pending.clear();
        context.unregister(id);
        IbverbsContext.warnOnFailure("rdma_destroy_id", RdmaCm.destroyId(id));
        context.forget(this);
    }

    @Override
    public void onCmEvent(final CmEventType type, final CmEvent event)
    {
        if (type == CmEventType.CONNECT_REQUEST)
        {
            final long requestId = event.id();
            InetSocketAddress remote = null;
            try
            {
                remote = CmIdInfo.of(requestId).remote();
            }
            catch (final VerbsException ex)
            {
                // the address is for messages only
            }
            final IbverbsRequest request = new IbverbsRequest(
                context, this, requestId, remote, event.responderResources(), event.initiatorDepth());
            context.register(requestId, request);
            if (closed)
            {
                request.reject();
                return;
            }
            unanswered.add(request);
            pending.add(request);
        }
        else if (type == CmEventType.DEVICE_REMOVAL)
        {
            failure = "RDMA device removed under the listener on " + localAddress;
        }
    }

    void answered(final IbverbsRequest request)
    {
        unanswered.remove(request);
        pending.remove(request);
    }

    @Override
    public String toString()
    {
        return "IbverbsListener{" + localAddress + "}";
    }
}
