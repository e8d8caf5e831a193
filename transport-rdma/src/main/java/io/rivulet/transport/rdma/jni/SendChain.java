package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.ScatterGatherEntry;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Send work requests in native memory, laid out as librivulet-verbs reads them (the offsets below mirror
 * {@code D_*} in {@code rivulet_verbs.h}; {@link NativeLibrary} refuses a library whose size differs): up to
 * {@link #capacity()} descriptors back to back, filled in place and posted as one chain with one call
 * ({@link #post}), so that posting allocates nothing and crosses into C once per batch.
 *
 * <p>Not thread-safe: one per queue pair, used by its posting thread.
 */
public final class SendChain
{
    static final int WR_ID = 0;
    static final int OPCODE = 8;
    static final int SEND_FLAGS = 12;
    static final int IMM_DATA = 16;
    static final int NUM_SGE = 20;
    static final int REMOTE_ADDR = 24;
    static final int RKEY = 32;
    static final int REMOTE_QPN = 36;
    static final int REMOTE_QKEY = 40;
    static final int COMPARE_ADD = 48;
    static final int SWAP = 56;
    static final int AH = 64;
    static final int SGE = 72;
    static final int SGE_SIZE = 16;
    /** Bytes of one descriptor. */
    public static final int SIZE = SGE + SendWorkRequest.MAX_SGE * SGE_SIZE;

    private final int capacity;
    private final UnsafeBuffer buffer;

    /** @param capacity the longest chain, 1 to {@link Verbs#MAX_CHAIN}. */
    public SendChain(final int capacity)
    {
        if (capacity < 1 || capacity > Verbs.MAX_CHAIN)
        {
            throw new IllegalArgumentException("a send chain holds 1 to " + Verbs.MAX_CHAIN + " requests: " + capacity);
        }
        this.capacity = capacity;
        this.buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity * SIZE).order(ByteOrder.nativeOrder()));
    }

    /** @return the most descriptors it holds. */
    public int capacity()
    {
        return capacity;
    }

    /** @return the native address of descriptor 0. */
    public long address()
    {
        return buffer.addressOffset();
    }

    /**
     * Writes descriptor {@code index} from a request: every field, the ones the opcode does not use zeroed, so
     * nothing stale reaches C.
     *
     * @param index    0 to capacity - 1.
     * @param request  a validated request ({@link WorkRequests#validateSend}).
     * @param ahHandle the {@code ibv_ah} pointer of a UD send, else 0.
     * @return this.
     */
    public SendChain fill(final int index, final SendWorkRequest request, final long ahHandle)
    {
        final int base = index * SIZE;
        buffer.putLong(base + WR_ID, request.wrId());
        buffer.putInt(base + OPCODE, WorkRequests.ibvOpcode(request.opcode()));
        buffer.putInt(base + SEND_FLAGS, WorkRequests.ibvSendFlags(request.flags()));
        buffer.putInt(base + IMM_DATA, request.immData());
        final int sgeCount = request.sgeCount();
        buffer.putInt(base + NUM_SGE, sgeCount);
        buffer.putLong(base + REMOTE_ADDR, request.remoteAddress());
        buffer.putInt(base + RKEY, request.rkey());
        buffer.putInt(base + REMOTE_QPN, 0 == ahHandle ? 0 : request.remoteQpNumber());
        buffer.putInt(base + REMOTE_QKEY, 0 == ahHandle ? 0 : request.remoteQkey());
        buffer.putInt(base + REMOTE_QKEY + 4, 0);
        buffer.putLong(base + COMPARE_ADD, request.compareAdd());
        buffer.putLong(base + SWAP, request.swap());
        buffer.putLong(base + AH, ahHandle);
        for (int i = 0; i < SendWorkRequest.MAX_SGE; i++)
        {
            final int offset = base + SGE + i * SGE_SIZE;
            if (i < sgeCount)
            {
                final ScatterGatherEntry entry = request.sge(i);
                buffer.putLong(offset, entry.address());
                buffer.putInt(offset + 8, entry.length());
                buffer.putInt(offset + 12, entry.lkey());
            }
            else
            {
                buffer.putLong(offset, 0);
                buffer.putLong(offset + 8, 0);
            }
        }
        return this;
    }

    /**
     * {@code ibv_post_send} of descriptors {@code [0, count)} as one chain.
     *
     * @return 0, or the negative result {@link Verbs#chainErrno} and {@link Verbs#chainFailedIndex} read.
     */
    public int post(final long qp, final int count)
    {
        return Verbs.postSend(qp, buffer.addressOffset(), count);
    }

    long getLong(final int offset)
    {
        return buffer.getLong(offset);
    }

    int getInt(final int offset)
    {
        return buffer.getInt(offset);
    }

    void putInt(final int offset, final int value)
    {
        buffer.putInt(offset, value);
    }
}
