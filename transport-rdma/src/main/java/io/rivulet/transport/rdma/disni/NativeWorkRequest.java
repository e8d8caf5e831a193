package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.verbs.ScatterGatherEntry;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * One send work request in off-heap memory, laid out as librivulet-verbs reads it (the offsets below
 * mirror {@code D_*} in {@code rivulet_verbs.c}; the library refuses to load when its descriptor size
 * differs). Filled in place before each post, so posting passes one address to C and allocates nothing.
 *
 * <p>Not thread-safe: one per queue pair, used by its posting thread.
 */
final class NativeWorkRequest
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
    static final int SIZE = SGE + SendWorkRequest.MAX_SGE * SGE_SIZE;

    private final ByteBuffer memory = ByteBuffer.allocateDirect(SIZE);
    private final UnsafeBuffer buffer = new UnsafeBuffer(memory);

    /** @return the descriptor's native address. */
    long address()
    {
        return buffer.addressOffset();
    }

    /**
     * Writes every field: the ones the opcode does not use are zeroed, so nothing stale reaches C.
     *
     * @param request      a validated request.
     * @param ibvOpcode    its {@code IBV_WR_*} opcode.
     * @param ibvSendFlags its {@code IBV_SEND_*} flags.
     * @param ahHandle     the {@code ibv_ah} pointer of a UD send, else 0.
     * @return this.
     */
    NativeWorkRequest fill(final SendWorkRequest request, final int ibvOpcode, final int ibvSendFlags, final long ahHandle)
    {
        buffer.putLong(WR_ID, request.wrId());
        buffer.putInt(OPCODE, ibvOpcode);
        buffer.putInt(SEND_FLAGS, ibvSendFlags);
        buffer.putInt(IMM_DATA, request.immData());
        final int sgeCount = request.sgeCount();
        buffer.putInt(NUM_SGE, sgeCount);
        buffer.putLong(REMOTE_ADDR, request.remoteAddress());
        buffer.putInt(RKEY, request.rkey());
        buffer.putInt(REMOTE_QPN, 0 == ahHandle ? 0 : request.remoteQpNumber());
        buffer.putInt(REMOTE_QKEY, 0 == ahHandle ? 0 : request.remoteQkey());
        buffer.putInt(REMOTE_QKEY + 4, 0);
        buffer.putLong(COMPARE_ADD, request.compareAdd());
        buffer.putLong(SWAP, request.swap());
        buffer.putLong(AH, ahHandle);
        for (int i = 0; i < SendWorkRequest.MAX_SGE; i++)
        {
            final int offset = SGE + i * SGE_SIZE;
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
