package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.CompletionBatch;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.util.Arrays;

/**
 * {@code ibv_cq} without a completion channel, busy-polled: one {@code ibv_poll_cq} of up to
 * {@link Verbs#MAX_CHAIN} completions per {@link #poll}, through native memory this object owns, so that polling
 * allocates nothing.
 *
 * <p>An error completion names its queue pair (ibverbs defines {@code qp_num} in it), which is then marked
 * {@link io.rivulet.transport.rdma.verbs.QpState#ERROR}, as the device has moved it there.
 *
 * <p>Overflow: a CQ must hold every completion its queue pairs can have outstanding; on hardware an overrun moves
 * them all to the error state.
 *
 * <p>Polled by one thread at a time; queue pairs attach and detach from the owner thread.
 */
final class IbverbsCompletionQueue implements CompletionQueue
{
    /** A queue pair told when one of its work requests completed in error. */
    interface User
    {
        int qpNumber();

        void onErrorCompletion();
    }

    private static final User[] NO_USERS = new User[0];

    private final IbverbsContext context;
    private final long cq;
    private final int entries;
    private final CompletionBatch batch = new CompletionBatch(Verbs.MAX_CHAIN);
    /** Copied on change, read by the polling thread: usually one queue pair, never many. */
    private volatile User[] users = NO_USERS;
    private volatile boolean closed;

    IbverbsCompletionQueue(final IbverbsContext context, final long cq, final int entries)
    {
        this.context = context;
        this.cq = cq;
        this.entries = entries;
    }

    IbverbsContext context()
    {
        return context;
    }

    long handle()
    {
        return cq;
    }

    boolean isOpen()
    {
        return !closed;
    }

    @Override
    public int poll(final WorkCompletion[] completions, final int max) throws VerbsException
    {
        if (closed)
        {
            throw new VerbsException("completion queue closed");
        }
        final int polled = batch.poll(cq, completions, max);
        if (polled < 0)
        {
            throw Verbs.failure("ibv_poll_cq", polled);
        }
        for (int i = 0; i < polled; i++)
        {
            final WorkCompletion completion = completions[i];
            // A flush only follows the error that moved the queue pair to ERROR (or a disconnect, reported by the
            // connection): a stale one, polled after a UD queue pair was recovered, must not mark it again.
            final WcStatus status = completion.status();
            if (status != WcStatus.SUCCESS && status != WcStatus.WR_FLUSH_ERROR)
            {
                onError(completion.qpNumber());
            }
        }
        return polled;
    }

    void attach(final User user)
    {
        final User[] current = users;
        final User[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = user;
        users = next;
    }

    void detach(final User user)
    {
        final User[] current = users;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i] == user)
            {
                final User[] next = new User[current.length - 1];
                System.arraycopy(current, 0, next, 0, i);
                System.arraycopy(current, i + 1, next, i, current.length - i - 1);
                users = next;
                return;
            }
        }
    }

    /** {@code ibv_destroy_cq} (EBUSY while queue pairs use it: close them first). Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        IbverbsContext.warnOnFailure("ibv_destroy_cq (queue pairs still use it?)", Verbs.destroyCq(cq));
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "IbverbsCompletionQueue{entries=" + entries + ", queuePairs=" + users.length + "}";
    }

    private void onError(final int qpNumber)
    {
        final User[] current = users;
        for (final User user : current)
        {
            if (user.qpNumber() == qpNumber)
            {
                user.onErrorCompletion();
            }
        }
    }
}
