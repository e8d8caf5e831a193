package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ibv_cq} through DiSNI, busy-polled with one prebuilt {@code SVCPollCq} (one JNI call per
 * poll, no allocation) sized to the caller's completion array; a differently sized array rebuilds it.
 *
 * <p>Error completions: DiSNI copies only wr_id, status and opcode for them, so they report the
 * queue pair number only when a single queue pair uses this CQ (otherwise 0): a transport sharing a
 * CQ between queue pairs should encode the queue pair in the wr_id.
 *
 * <p>Overflow: a CQ must hold every completion its queue pairs can have outstanding; on hardware an
 * overrun moves them all to the error state.
 *
 * <p>Not thread-safe.
 */
final class DisniCompletionQueue implements CompletionQueue
{
    private static final IbvWC[] NO_WCS = new IbvWC[0];

    private final DisniVerbsContext context;
    private final IbvCQ cq;
    private final int entries;
    private final List<CompletionQueueUser> queuePairs = new ArrayList<>(2);
    private IbvWC[] wcs = NO_WCS;
    private SVCPollCq pollCall;
    private int attachedWorkRequests;
    private boolean overrunWarned;
    private boolean closed;

    DisniCompletionQueue(final DisniVerbsContext context, final IbvCQ cq, final int entries)
    {
        this.context = context;
        this.cq = cq;
        this.entries = entries;
    }

    DisniVerbsContext context()
    {
        return context;
    }

    IbvCQ ibvCq()
    {
        return cq;
    }

    boolean isOpen()
    {
        return !closed;
    }

    @Override
    public int poll(final WorkCompletion[] completions) throws IOException
    {
        if (closed)
        {
            throw new VerbsException("completion queue closed");
        }
        final int capacity = completions.length;
        if (capacity == 0)
        {
            return 0;
        }
        if (null == pollCall || wcs.length != capacity)
        {
            rebuildPollCall(capacity);
        }

        final int polled;
        try
        {
            polled = pollCall.execute().getPolls();
        }
        catch (final IOException ex)
        {
            throw new VerbsException("ibv_poll_cq failed: " + DisniAvailability.text(ex), ex);
        }

        final CompletionQueueUser soleQueuePair = queuePairs.size() == 1 ? queuePairs.get(0) : null;
        final int qpNumberIfUnknown = null == soleQueuePair ? 0 : soleQueuePair.qpNumber();
        for (int i = 0; i < polled; i++)
        {
            WorkCompletion completion = completions[i];
            if (null == completion)
            {
                completion = new WorkCompletion();
                completions[i] = completion;
            }
            DisniWorkRequests.toCompletion(wcs[i], completion, qpNumberIfUnknown);
            if (completion.status() != WcStatus.SUCCESS && null != soleQueuePair)
            {
                soleQueuePair.onError();
            }
        }
        return polled;
    }

    /** Frees the poll call and destroys the CQ (fails with EBUSY while queue pairs use it). Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (null != pollCall)
        {
            pollCall.free();
            pollCall = null;
        }
        try
        {
            final int rc = cq.destroyCQ();
            if (rc != 0)
            {
                DisniVerbsContext.warn("ibv_destroy_cq", new IOException("error " + rc +
                    " (queue pairs still use the completion queue? close them first)"));
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            DisniVerbsContext.warn("ibv_destroy_cq", ex);
        }
        context.forget(this);
    }

    /** A queue pair uses this CQ for sends or receives (called once for each role). */
    void attach(final CompletionQueueUser queuePair, final int workRequests)
    {
        if (!queuePairs.contains(queuePair))
        {
            queuePairs.add(queuePair);
        }
        attachedWorkRequests += workRequests;
        if (attachedWorkRequests > entries && !overrunWarned)
        {
            overrunWarned = true;
            System.getLogger(DisniCompletionQueue.class.getName()).log(System.Logger.Level.WARNING,
                "rivulet rdma disni: completion queue of " + entries + " entries serves queue pairs with up to " +
                attachedWorkRequests + " outstanding work requests; if they all complete signalled, the CQ " +
                "overruns and the device moves its queue pairs to the error state");
        }
    }

    void detach(final CompletionQueueUser queuePair, final int workRequests)
    {
        queuePairs.remove(queuePair);
        attachedWorkRequests -= workRequests;
    }

    @Override
    public String toString()
    {
        return "DisniCompletionQueue{entries=" + entries + ", queuePairs=" + queuePairs.size() + "}";
    }

    private void rebuildPollCall(final int capacity) throws IOException
    {
        if (null != pollCall)
        {
            pollCall.free();
            pollCall = null;
        }
        final IbvWC[] fresh = new IbvWC[capacity];
        for (int i = 0; i < capacity; i++)
        {
            fresh[i] = new IbvWC();
        }
        try
        {
            pollCall = cq.poll(fresh, capacity);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("cannot prepare ibv_poll_cq: " + DisniAvailability.text(ex), ex);
        }
        wcs = fresh;
    }
}
