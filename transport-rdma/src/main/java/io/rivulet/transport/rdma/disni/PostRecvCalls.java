package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.SVCPostRecv;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.ScatterGatherEntry;
import org.agrona.collections.Long2ObjectHashMap;

import java.io.IOException;
import java.util.List;

/**
 * One queue pair's prebuilt {@code ibv_post_recv} calls.
 *
 * <p>DiSNI's receive calls cannot be modified at all ({@code RecvWRMod} only reads wr_id), so a call
 * is kept per wr_id, with the buffer it was built for: posting the same wr_id with the same buffer
 * again — what a receive ring does, one wr_id per slot — reuses the call (one JNI call, no
 * allocation). Another buffer under that wr_id rebuilds it. A new wr_id builds a call; when
 * {@code capacity} wr_ids are cached, all calls are freed and the cache starts over, so a protocol
 * that gives every receive a fresh wr_id pays a build (a few microseconds, about 1 KiB of garbage)
 * per post.
 *
 * <p>Not thread-safe: used by the thread that posts on the queue pair.
 */
final class PostRecvCalls implements AutoCloseable
{
    /** Builds a call; production uses {@code qp.postRecv(wrs, null)}. */
    @FunctionalInterface
    interface Factory
    {
        SVCPostRecv create(List<IbvRecvWR> wrs) throws IOException;
    }

    private final Factory factory;
    private final int capacity;
    private final Long2ObjectHashMap<Entry> calls = new Long2ObjectHashMap<>();
    private long builds;
    private long resets;
    private boolean closed;

    /**
     * @param factory  builds a call for a one-element work request list.
     * @param capacity wr_ids kept; twice the receive queue depth covers a ring.
     */
    PostRecvCalls(final Factory factory, final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.factory = factory;
        this.capacity = capacity;
    }

    /** @return the call for this request, built or reused; execute it before the next {@code prepare}. */
    SVCPostRecv prepare(final ReceiveWorkRequest request) throws IOException
    {
        if (closed)
        {
            throw new IllegalStateException("post-receive calls freed");
        }
        final long wrId = request.wrId();
        final ScatterGatherEntry sge = request.sge();
        Entry entry = calls.get(wrId);
        if (null != entry)
        {
            if (entry.address() == sge.address() && entry.length() == sge.length() && entry.lkey() == sge.lkey())
            {
                return entry.call();
            }
            calls.remove(wrId);
            entry.call().free();
        }
        else if (calls.size() >= capacity)
        {
            freeAll();
            resets++;
        }

        final SVCPostRecv call = factory.create(List.of(DisniWorkRequests.toIbvRecvWr(request)));
        builds++;
        entry = new Entry(call, sge.address(), sge.length(), sge.lkey());
        calls.put(wrId, entry);
        return call;
    }

    long builds()
    {
        return builds;
    }

    long resets()
    {
        return resets;
    }

    int size()
    {
        return calls.size();
    }

    /** Frees every call's off-heap memory. Idempotent. */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            freeAll();
        }
    }

    private void freeAll()
    {
        for (final Entry entry : calls.values())
        {
            entry.call().free();
        }
        calls.clear();
    }

    private record Entry(SVCPostRecv call, long address, int length, int lkey)
    {
    }
}
