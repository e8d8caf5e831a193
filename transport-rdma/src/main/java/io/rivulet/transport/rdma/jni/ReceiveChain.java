package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Receive work requests of one scatter-gather entry each in native memory ({@code R_*} in
 * {@code rivulet_verbs.h}), posted as one chain with one call.
 *
 * <p>Not thread-safe: one per queue pair, used by its posting thread.
 */
public final class ReceiveChain
{
    static final int WR_ID = 0;
    static final int ADDR = 8;
    static final int LENGTH = 16;
    static final int LKEY = 20;
    /** Bytes of one descriptor. */
    public static final int SIZE = 24;

    private final int capacity;
    private final UnsafeBuffer buffer;

    /** @param capacity the longest chain, 1 to {@link Verbs#MAX_CHAIN}. */
    public ReceiveChain(final int capacity)
    {
        if (capacity < 1 || capacity > Verbs.MAX_CHAIN)
        {
            throw new IllegalArgumentException("a receive chain holds 1 to " + Verbs.MAX_CHAIN + " requests: " + capacity);
        }
        this.capacity = capacity;
        this.buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity * SIZE).order(ByteOrder.nativeOrder()));
    }

    public int capacity()
    {
        return capacity;
    }

    /** Writes descriptor {@code index}; returns this. */
    public ReceiveChain fill(final int index, final ReceiveWorkRequest request)
    {
        final int base = index * SIZE;
        buffer.putLong(base + WR_ID, request.wrId());
        buffer.putLong(base + ADDR, request.sge().address());
        buffer.putInt(base + LENGTH, request.sge().length());
        buffer.putInt(base + LKEY, request.sge().lkey());
        return this;
    }

    /**
     * {@code ibv_post_recv} of descriptors {@code [0, count)} as one chain.
     *
     * @return 0, or the negative result {@link Verbs#chainErrno} and {@link Verbs#chainFailedIndex} read.
     */
    public int post(final long qp, final int count)
    {
        return Verbs.postRecv(qp, buffer.addressOffset(), count);
    }
}
