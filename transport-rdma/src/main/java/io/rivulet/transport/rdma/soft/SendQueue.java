package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ScatterGatherEntry;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A queue pair's bounded send queue: posted work requests copied into preallocated slots.
 *
 * <p>Posting threads (serialised by a lock) write slots and publish {@code tail}; the NIC thread reads
 * them and publishes {@code free}. As on hardware, a slot comes back when its request completes with a
 * completion: an unsignaled request's slot is reclaimed only when a later signaled one completes (or any
 * request fails), so a queue fed only unsignaled requests fills up.
 */
final class SendQueue
{
    /** One posted send work request; written by the poster before publication, then read by the NIC. */
    static final class Slot
    {
        long wrId;
        Opcode opcode;
        int flags;
        int sgeCount;
        final long[] sgeAddress = new long[SendWorkRequest.MAX_SGE];
        final int[] sgeLength = new int[SendWorkRequest.MAX_SGE];
        final int[] sgeLkey = new int[SendWorkRequest.MAX_SGE];
        int imm;
        long remoteAddress;
        int rkey;
        long compareAdd;
        long swap;
        SoftAddressHandle addressHandle;
        int remoteQpNumber;
        int remoteQkey;
        long totalLength;
        boolean inline;
        long inlineAddress;

        boolean isSignaled()
        {
            return (flags & SendWorkRequest.SIGNALED) != 0;
        }

        boolean hasImm()
        {
            return opcode == Opcode.SEND_WITH_IMM || opcode == Opcode.RDMA_WRITE_WITH_IMM;
        }

        boolean isReadOrAtomic()
        {
            return opcode == Opcode.RDMA_READ || opcode == Opcode.ATOMIC_CMP_AND_SWP ||
                opcode == Opcode.ATOMIC_FETCH_AND_ADD;
        }
    }

    private final int capacity;
    private final Slot[] slots;
    private final int maxInline;
    private final ByteBuffer inlineStorage;
    private final long inlineBase;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong free = new AtomicLong();

    SendQueue(final int capacity, final int maxInline)
    {
        this.capacity = capacity;
        this.maxInline = maxInline;
        slots = new Slot[capacity];
        for (int i = 0; i < capacity; i++)
        {
            slots[i] = new Slot();
        }
        if (maxInline > 0)
        {
            inlineStorage = BufferUtil.allocateDirectAligned(
                BitUtil.align(capacity * maxInline, 64), 64);
            inlineBase = BufferUtil.address(inlineStorage);
        }
        else
        {
            inlineStorage = null;
            inlineBase = 0;
        }
    }

    /**
     * Copies a request into the next slot and publishes it. The caller validated the request.
     *
     * @throws VerbsException when every slot is taken.
     */
    synchronized void post(final SendWorkRequest request, final long totalLength, final boolean inline)
        throws VerbsException
    {
        final long t = tail.get();
        if (t - free.get() >= capacity)
        {
            throw new VerbsException("send queue full (" + capacity + " outstanding requests)");
        }
        final int index = (int)(t % capacity);
        final Slot slot = slots[index];
        slot.wrId = request.wrId();
        slot.opcode = request.opcode();
        slot.flags = request.flags();
        slot.imm = request.immData();
        slot.remoteAddress = request.remoteAddress();
        slot.rkey = request.rkey();
        slot.compareAdd = request.compareAdd();
        slot.swap = request.swap();
        slot.addressHandle = (SoftAddressHandle)request.addressHandle();
        slot.remoteQpNumber = request.remoteQpNumber();
        slot.remoteQkey = request.remoteQkey();
        slot.totalLength = totalLength;
        slot.inline = inline;
        final int sgeCount = request.sgeCount();
        slot.sgeCount = sgeCount;
        for (int i = 0; i < sgeCount; i++)
        {
            final ScatterGatherEntry sge = request.sge(i);
            slot.sgeAddress[i] = sge.address();
            slot.sgeLength[i] = sge.length();
            slot.sgeLkey[i] = sge.lkey();
        }
        if (inline)
        {
            // The driver copies inline data at post time: the caller may reuse its buffer at once.
            long destination = inlineBase + (long)index * maxInline;
            slot.inlineAddress = destination;
            for (int i = 0; i < sgeCount; i++)
            {
                Memory.copy(slot.sgeAddress[i], destination, slot.sgeLength[i]);
                destination += slot.sgeLength[i];
            }
        }
        tail.lazySet(t + 1);
    }

    /** @return the index after the last published request. */
    long tail()
    {
        return tail.get();
    }

    Slot slot(final long index)
    {
        return slots[(int)(index % capacity)];
    }

    /** NIC thread: slots below {@code index} may be reused. */
    void freeTo(final long index)
    {
        if (index > free.get())
        {
            free.lazySet(index);
        }
    }
}
