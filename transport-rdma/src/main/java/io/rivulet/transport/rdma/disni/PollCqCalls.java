package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;

import java.io.IOException;

/**
 * One completion queue's prebuilt {@code ibv_poll_cq} calls.
 *
 * <p>DiSNI fixes both the array of {@link IbvWC}s and the count of a poll call when it builds it
 * ({@code IbvCQ.poll(wcs, count)}, which also allocates the call's native buffer, as long as the array), and a call
 * cannot be modified. Callers poll with varying counts (the SPI's {@code poll(completions, max)}), so one call is
 * kept per count, all over one array of DiSNI completions: a count polled before costs one JNI call and no
 * allocation. A longer poll than the array holds replaces the array (at least as long as the caller's completion
 * array, so that counts up to it never replace it again) and frees every call built over the old one.
 *
 * <p>Not thread-safe: used by the thread that polls the completion queue.
 */
final class PollCqCalls implements AutoCloseable
{
    /** Builds a call; production uses {@code cq.poll(wcs, count)}. */
    @FunctionalInterface
    interface Factory
    {
        /**
         * @param wcs   the DiSNI completions the call fills, from index 0.
         * @param count the most it takes per execution.
         */
        SVCPollCq create(IbvWC[] wcs, int count) throws IOException;
    }

    private static final IbvWC[] NO_WCS = new IbvWC[0];
    private static final SVCPollCq[] NO_CALLS = new SVCPollCq[1];

    private final Factory factory;
    private IbvWC[] wcs = NO_WCS;
    /** Prebuilt calls by count (index 1..wcs.length), built when first asked for. */
    private SVCPollCq[] calls = NO_CALLS;
    private long builds;
    private boolean closed;

    PollCqCalls(final Factory factory)
    {
        this.factory = factory;
    }

    /**
     * Executes the call for {@code count}, building it (and a longer array) first if needed.
     *
     * @param count        the most completions to take, positive.
     * @param longestLikely how many the caller could ask for at most (its completion array's length).
     * @return how many were polled into {@link #wc(int)} 0..n-1.
     * @throws IOException when the call cannot be built or the poll fails.
     */
    int poll(final int count, final int longestLikely) throws IOException
    {
        if (closed)
        {
            throw new IllegalStateException("poll calls freed");
        }
        if (count < 1)
        {
            throw new IllegalArgumentException("poll count must be positive: " + count);
        }
        if (count > wcs.length)
        {
            grow(Math.max(count, longestLikely));
        }
        SVCPollCq call = calls[count];
        if (null == call)
        {
            call = factory.create(wcs, count);
            calls[count] = call;
            builds++;
        }
        return call.execute().getPolls();
    }

    /** @return DiSNI's completion {@code index} of the last poll. */
    IbvWC wc(final int index)
    {
        return wcs[index];
    }

    /** @return calls built so far, replaced ones included. */
    long builds()
    {
        return builds;
    }

    /** @return calls kept now. */
    int prepared()
    {
        int prepared = 0;
        for (final SVCPollCq call : calls)
        {
            prepared += null == call ? 0 : 1;
        }
        return prepared;
    }

    /** @return the length of the array of DiSNI completions the calls share. */
    int capacity()
    {
        return wcs.length;
    }

    /** Frees every call's native buffer. Idempotent. */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            freeAll();
            wcs = NO_WCS;
            calls = NO_CALLS;
        }
    }

    private void grow(final int capacity)
    {
        freeAll();
        final IbvWC[] fresh = new IbvWC[capacity];
        for (int i = 0; i < capacity; i++)
        {
            fresh[i] = new IbvWC();
        }
        wcs = fresh;
        calls = new SVCPollCq[capacity + 1];
    }

    private void freeAll()
    {
        for (int i = 0; i < calls.length; i++)
        {
            final SVCPollCq call = calls[i];
            if (null != call)
            {
                calls[i] = null;
                call.free();
            }
        }
    }
}
