package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Completions polled into native memory by one {@code ibv_poll_cq} call ({@code C_*} in {@code rivulet_verbs.h})
 * and copied into the caller's reusable {@link WorkCompletion}s: one crossing into C per batch, no allocation.
 * An error completion keeps only what ibverbs defines for it (wr_id, status, qp_num, vendor_err).
 *
 * <p>Not thread-safe: one per completion queue, used by its polling thread.
 */
public final class CompletionBatch
{
    static final int WR_ID = 0;
    static final int STATUS = 8;
    static final int OPCODE = 12;
    static final int VENDOR_ERR = 16;
    static final int BYTE_LEN = 20;
    static final int IMM_DATA = 24;
    static final int QP_NUM = 28;
    static final int SRC_QP = 32;
    static final int WC_FLAGS = 36;
    static final int SLID = 40;
    /** Bytes of one record. */
    public static final int SIZE = 48;

    private final int capacity;
    private final UnsafeBuffer buffer;

    /** @param capacity the most completions one poll takes. */
    public CompletionBatch(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity * SIZE).order(ByteOrder.nativeOrder()));
    }

    public int capacity()
    {
        return capacity;
    }

    /**
     * Polls {@code cq} for up to {@code max} completions (and at most the batch's capacity) into
     * {@code completions[0..n)}.
     *
     * @return n, 0 when none, or -errno when polling failed.
     */
    public int poll(final long cq, final WorkCompletion[] completions, final int max)
    {
        final int want = Math.min(Math.min(max, completions.length), capacity);
        if (want <= 0)
        {
            return 0;
        }
        final int polled = Verbs.pollCq(cq, want, buffer.addressOffset());
        for (int i = 0; i < polled; i++)
        {
            read(i, completions[i]);
        }
        return polled;
    }

    /** Copies record {@code index} into {@code into}. */
    void read(final int index, final WorkCompletion into)
    {
        final int base = index * SIZE;
        final WcStatus status = WcStatus.of(buffer.getInt(base + STATUS));
        final long wrId = buffer.getLong(base + WR_ID);
        final int qpNumber = buffer.getInt(base + QP_NUM);
        if (status != WcStatus.SUCCESS)
        {
            into.setError(wrId, status, qpNumber, buffer.getInt(base + VENDOR_ERR));
            return;
        }
        final int flags = buffer.getInt(base + WC_FLAGS);
        final boolean hasImm = (flags & WorkRequests.IBV_WC_WITH_IMM) != 0;
        into.set(
            wrId,
            status,
            WorkRequests.wcOpcode(buffer.getInt(base + OPCODE)),
            buffer.getInt(base + BYTE_LEN),
            hasImm,
            hasImm ? buffer.getInt(base + IMM_DATA) : 0,
            qpNumber,
            buffer.getInt(base + SRC_QP),
            (flags & WorkRequests.IBV_WC_GRH) != 0,
            buffer.getInt(base + SLID) & 0xffff,
            0);
    }

    /** @return the native address of record 0, for tests that write records as C would. */
    long address()
    {
        return buffer.addressOffset();
    }

    UnsafeBuffer buffer()
    {
        return buffer;
    }
}
