package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostSend;
import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ScatterGatherEntry;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;

import java.io.IOException;
import java.util.List;

/**
 * One queue pair's prebuilt {@code ibv_post_send} calls (DiSNI stateful verb calls).
 *
 * <p>DiSNI serialises a work request list off-heap once, when the call is built; between executions
 * only wr_id, send flags, remote address/rkey and SGE addr/length/lkey can be modified in place.
 * Opcode, SGE count and imm_data are fixed. So calls are cached by shape:
 * <ul>
 *     <li>without immediate data, one call per (opcode, SGE count), built on first use and then only
 *     modified: a post is a handful of off-heap stores plus one JNI call, no allocation;</li>
 *     <li>with immediate data (SEND_WITH_IMM, RDMA_WRITE_WITH_IMM), one call per (opcode, SGE count,
 *     imm value), up to {@code immCacheSize} values per shape with least-recently-used eviction. A
 *     hit costs the same as above; a miss frees the evicted call and builds a new one (a few
 *     microseconds and about 1 KiB of garbage). A protocol that puts a small cycling value in the
 *     immediate (a ring slot, a credit count) should keep it under the cache size; one that sends a
 *     fresh value each time (a sequence number) pays a rebuild per post.</li>
 * </ul>
 *
 * <p>Reusing a call right after {@code execute()} is safe: {@code ibv_post_send} copies the request
 * (and inline payload) into the send queue before returning.
 *
 * <p>Not thread-safe: used by the thread that posts on the queue pair.
 */
final class PostSendCalls implements AutoCloseable
{
    /** Builds a call; production uses {@code qp.postSend(wrs, null)}. */
    @FunctionalInterface
    interface Factory
    {
        SVCPostSend create(List<IbvSendWR> wrs) throws IOException;
    }

    private final Factory factory;
    private final int immCacheSize;
    private final SVCPostSend[] plainCalls = new SVCPostSend[DisniWorkRequests.SHAPES];
    private final ImmCalls[] immCalls = new ImmCalls[DisniWorkRequests.SHAPES];
    private long builds;
    private long useClock;
    private boolean closed;

    /**
     * @param factory      builds a call for a one-element work request list.
     * @param immCacheSize prebuilt calls kept per immediate-data shape, at least 1.
     */
    PostSendCalls(final Factory factory, final int immCacheSize)
    {
        if (immCacheSize < 1)
        {
            throw new IllegalArgumentException("immCacheSize must be positive: " + immCacheSize);
        }
        this.factory = factory;
        this.immCacheSize = immCacheSize;
    }

    /**
     * @param request a validated request ({@link DisniWorkRequests#validateSend}).
     * @return the call, modified to carry the request; execute it before the next {@code prepare}.
     */
    SVCPostSend prepare(final SendWorkRequest request) throws IOException
    {
        if (closed)
        {
            throw new IllegalStateException("post-send calls freed");
        }
        final Opcode opcode = request.opcode();
        final int shape = DisniWorkRequests.shape(opcode, request.sgeCount());
        final SVCPostSend call;
        if (DisniWorkRequests.hasImmData(opcode))
        {
            ImmCalls calls = immCalls[shape];
            if (null == calls)
            {
                calls = new ImmCalls(immCacheSize);
                immCalls[shape] = calls;
            }
            call = calls.get(request);
        }
        else
        {
            SVCPostSend plain = plainCalls[shape];
            if (null == plain)
            {
                plain = build(request);
                plainCalls[shape] = plain;
            }
            call = plain;
        }
        modify(call, request);
        return call;
    }

    /** @return how many calls were built: grows only on first use of a shape or an imm cache miss. */
    long builds()
    {
        return builds;
    }

    /** Frees every call's off-heap memory. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int i = 0; i < plainCalls.length; i++)
        {
            if (null != plainCalls[i])
            {
                plainCalls[i].free();
                plainCalls[i] = null;
            }
            if (null != immCalls[i])
            {
                immCalls[i].freeAll();
                immCalls[i] = null;
            }
        }
    }

    private SVCPostSend build(final SendWorkRequest request) throws IOException
    {
        final SVCPostSend call = factory.create(List.of(DisniWorkRequests.toIbvSendWr(request)));
        builds++;
        return call;
    }

    private static void modify(final SVCPostSend call, final SendWorkRequest request) throws IOException
    {
        final SVCPostSend.SendWRMod wr = call.getWrMod(0);
        wr.setWr_id(request.wrId());
        wr.setSend_flags(WorkRequests.ibvSendFlags(request.flags()));
        if (DisniWorkRequests.targetsRemoteMemory(request.opcode()))
        {
            final SVCPostSend.RdmaMod rdma = wr.getRdmaMod();
            rdma.setRemote_addr(request.remoteAddress());
            rdma.setRkey(request.rkey());
        }
        for (int i = 0, n = request.sgeCount(); i < n; i++)
        {
            final ScatterGatherEntry entry = request.sge(i);
            final SVCPostSend.SgeMod sge = wr.getSgeMod(i);
            sge.setAddr(entry.address());
            sge.setLength(entry.length());
            sge.setLkey(entry.lkey());
        }
    }

    /** Calls of one immediate-data shape, keyed by imm value, least recently used evicted. */
    private final class ImmCalls
    {
        private final int[] immData;
        private final SVCPostSend[] calls;
        private final long[] lastUse;

        ImmCalls(final int capacity)
        {
            immData = new int[capacity];
            calls = new SVCPostSend[capacity];
            lastUse = new long[capacity];
        }

        SVCPostSend get(final SendWorkRequest request) throws IOException
        {
            final int imm = request.immData();
            int empty = -1;
            int leastRecent = -1;
            for (int i = 0; i < calls.length; i++)
            {
                if (null == calls[i])
                {
                    empty = empty < 0 ? i : empty;
                }
                else if (immData[i] == imm)
                {
                    lastUse[i] = ++useClock;
                    return calls[i];
                }
                else if (leastRecent < 0 || lastUse[i] < lastUse[leastRecent])
                {
                    leastRecent = i;
                }
            }
            final int slot = empty >= 0 ? empty : leastRecent;
            if (null != calls[slot])
            {
                calls[slot].free();
                calls[slot] = null;
            }
            calls[slot] = build(request);
            immData[slot] = imm;
            lastUse[slot] = ++useClock;
            return calls[slot];
        }

        void freeAll()
        {
            for (int i = 0; i < calls.length; i++)
            {
                if (null != calls[i])
                {
                    calls[i].free();
                    calls[i] = null;
                }
            }
        }
    }
}
