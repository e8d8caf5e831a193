package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvCQ;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.io.IOException;
import java.util.Arrays;

/**
 * {@code ibv_cq} through DiSNI, busy-polled with prebuilt {@code SVCPollCq}s (one JNI call per poll, no
 * allocation once warm): DiSNI fixes the count of a poll call when it builds it, so one call is kept per count
 * asked for, over one array of DiSNI completions ({@link PollCqCalls}).
 *
 * <p>Error completions: DiSNI copies only wr_id, status and opcode of them into Java (see
 * {@link DisniWorkRequests#toCompletion}), so they report opcode UNKNOWN, no vendor detail, and the queue pair
 * number only when a single queue pair uses this CQ (otherwise 0), which is then marked ERROR: a transport sharing
 * a CQ between queue pairs should encode the queue pair in the wr_id.
 *
 * <p>Overflow: a CQ must hold every completion its queue pairs can have outstanding; on hardware an
 * overrun moves them all to the error state.
 *
 * <p>Polled by one thread at a time (the sender's, for a link's send CQ); queue pairs attach and detach from the
 * owner thread.
 */
final class DisniCompletionQueue implements CompletionQueue
{
    private static final CompletionQueueUser[] NO_USERS = new CompletionQueueUser[0];

    private final DisniVerbsContext context;
    private final IbvCQ cq;
    private final int entries;
    /** Copied on change (the owner thread attaches and detaches), read by the polling thread: usually one. */
    private volatile CompletionQueueUser[] queuePairs = NO_USERS;
    private final PollCqCalls pollCalls;
    private int attachedWorkRequests;
    private boolean overrunWarned;
    private volatile boolean closed;

    DisniCompletionQueue(final DisniVerbsContext context, final IbvCQ cq, final int entries)
    {
        this.context = context;
        this.cq = cq;
        this.entries = entries;
        this.pollCalls = new PollCqCalls(cq::poll);
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
    public int poll(final WorkCompletion[] completions, final int max) throws IOException
    {
        if (closed)
        {
            throw new VerbsException("completion queue closed");
        }
        final int count = Math.min(max, completions.length);
        if (count <= 0)
        {
            return 0;
        }
        final int polled;
        try
        {
            polled = pollCalls.poll(count, completions.length);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("ibv_poll_cq failed: " + DisniAvailability.text(ex), ex);
        }

        final CompletionQueueUser[] users = queuePairs;
        final CompletionQueueUser soleQueuePair = users.length == 1 ? users[0] : null;
        final int qpNumberIfUnknown = null == soleQueuePair ? 0 : soleQueuePair.qpNumber();
        for (int i = 0; i < polled; i++)
        {
            WorkCompletion completion = completions[i];
            if (null == completion)
            {
                completion = new WorkCompletion();
                completions[i] = completion;
            }
            DisniWorkRequests.toCompletion(pollCalls.wc(i), completion, qpNumberIfUnknown);
            if (completion.status() != WcStatus.SUCCESS && null != soleQueuePair)
            {
                soleQueuePair.onError();
            }
        }
        return polled;
    }

    /** Frees the poll calls and destroys the CQ (fails with EBUSY while queue pairs use it). Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        pollCalls.close();
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
        final CompletionQueueUser[] current = queuePairs;
        if (indexOf(current, queuePair) < 0)
        {
            final CompletionQueueUser[] next = Arrays.copyOf(current, current.length + 1);
            next[current.length] = queuePair;
            queuePairs = next;
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
        final CompletionQueueUser[] current = queuePairs;
        final int index = indexOf(current, queuePair);
        if (index >= 0)
        {
            final CompletionQueueUser[] next = new CompletionQueueUser[current.length - 1];
            System.arraycopy(current, 0, next, 0, index);
            System.arraycopy(current, index + 1, next, index, current.length - index - 1);
            queuePairs = next;
        }
        attachedWorkRequests -= workRequests;
    }

    private static int indexOf(final CompletionQueueUser[] users, final CompletionQueueUser user)
    {
        for (int i = 0; i < users.length; i++)
        {
            if (users[i] == user)
            {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString()
    {
        return "DisniCompletionQueue{entries=" + entries + ", queuePairs=" + queuePairs.length + "}";
    }
}
