package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded completion queue. Only its device's NIC thread adds completions; any thread may poll
 * (polls are serialised, so several pollers are safe but gain nothing).
 *
 * <p>Overrun, as on hardware, is an error: a completion that does not fit is lost, the queue pair that
 * produced it goes to ERROR, and once the entries already queued are polled {@link #poll} throws.
 */
final class SoftCompletionQueue implements CompletionQueue
{
    private static final WcStatus[] STATUSES = WcStatus.values();
    private static final WcOpcode[] OPCODES = WcOpcode.values();

    private final SoftVerbsContext context;
    private final int capacity;
    private final long[] wrIds;
    private final byte[] statuses;
    private final byte[] opcodes;
    private final int[] byteLengths;
    private final int[] immData;
    private final boolean[] hasImmData;
    private final int[] qpNumbers;
    private final int[] sourceQpNumbers;
    private final boolean[] grh;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();
    private volatile boolean overrun;
    private volatile boolean closed;

    SoftCompletionQueue(final SoftVerbsContext context, final int capacity)
    {
        this.context = context;
        this.capacity = capacity;
        wrIds = new long[capacity];
        statuses = new byte[capacity];
        opcodes = new byte[capacity];
        byteLengths = new int[capacity];
        immData = new int[capacity];
        hasImmData = new boolean[capacity];
        qpNumbers = new int[capacity];
        sourceQpNumbers = new int[capacity];
        grh = new boolean[capacity];
    }

    SoftVerbsContext context()
    {
        return context;
    }

    /**
     * Adds a completion; NIC thread only.
     *
     * @return false when the queue is full (overrun) or closed; the completion is lost.
     */
    boolean offer(
        final long wrId,
        final WcStatus status,
        final WcOpcode opcode,
        final int byteLength,
        final boolean hasImm,
        final int imm,
        final int qpNumber,
        final int sourceQpNumber)
    {
        return offer(wrId, status, opcode, byteLength, hasImm, imm, qpNumber, sourceQpNumber, false);
    }

    /**
     * Adds a completion, a UD receive's with {@code hasGrh}; NIC thread only.
     *
     * @return false when the queue is full (overrun) or closed; the completion is lost.
     */
    boolean offer(
        final long wrId,
        final WcStatus status,
        final WcOpcode opcode,
        final int byteLength,
        final boolean hasImm,
        final int imm,
        final int qpNumber,
        final int sourceQpNumber,
        final boolean hasGrh)
    {
        if (closed)
        {
            return false;
        }
        final long t = tail.get();
        if (t - head.get() >= capacity)
        {
            overrun = true;
            context.onCompletionQueueOverrun();
            return false;
        }
        final int i = (int)(t % capacity);
        wrIds[i] = wrId;
        statuses[i] = (byte)status.ordinal();
        opcodes[i] = (byte)opcode.ordinal();
        byteLengths[i] = byteLength;
        immData[i] = imm;
        hasImmData[i] = hasImm;
        qpNumbers[i] = qpNumber;
        sourceQpNumbers[i] = sourceQpNumber;
        grh[i] = hasGrh;
        tail.lazySet(t + 1);
        return true;
    }

    @Override
    public synchronized int poll(final WorkCompletion[] completions, final int max) throws IOException
    {
        if (closed)
        {
            throw new VerbsException("completion queue closed");
        }
        final long h = head.get();
        final int available = (int)Math.min(tail.get() - h, Math.min(max, completions.length));
        if (available == 0)
        {
            if (overrun)
            {
                throw new VerbsException("completion queue overrun (" + capacity +
                    " entries): completions were lost and their queue pairs moved to ERROR");
            }
            return 0;
        }
        for (int n = 0; n < available; n++)
        {
            final int i = (int)((h + n) % capacity);
            final WcStatus status = STATUSES[statuses[i]];
            if (status == WcStatus.SUCCESS)
            {
                completions[n].set(
                    wrIds[i],
                    status,
                    OPCODES[opcodes[i]],
                    byteLengths[i],
                    hasImmData[i],
                    immData[i],
                    qpNumbers[i],
                    sourceQpNumbers[i],
                    grh[i],
                    0,
                    0);
            }
            else
            {
                // As on hardware: an error completion defines only wr_id, status and qp_num.
                completions[n].setError(wrIds[i], status, qpNumbers[i], 0);
            }
        }
        head.lazySet(h + available);
        return available;
    }

    @Override
    public void close()
    {
        closed = true;
    }
}
