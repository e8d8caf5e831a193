package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A queue pair's bounded receive queue. Posting threads (serialised by a lock) publish {@code tail}; the
 * NIC thread consumes from the head and publishes it, freeing the slot.
 */
final class ReceiveQueue
{
    private final int capacity;
    private final long[] wrIds;
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();

    ReceiveQueue(final int capacity)
    {
        this.capacity = capacity;
        wrIds = new long[capacity];
        addresses = new long[capacity];
        lengths = new int[capacity];
        lkeys = new int[capacity];
    }

    synchronized void post(final ReceiveWorkRequest request) throws VerbsException
    {
        final long t = tail.get();
        if (t - head.get() >= capacity)
        {
            throw new VerbsException("receive queue full (" + capacity + " posted receives)");
        }
        final int i = (int)(t % capacity);
        wrIds[i] = request.wrId();
        addresses[i] = request.sge().address();
        lengths[i] = request.sge().length();
        lkeys[i] = request.sge().lkey();
        tail.lazySet(t + 1);
    }

    /** NIC thread. */
    boolean isEmpty()
    {
        return head.get() == tail.get();
    }

    /** NIC thread: fields of the oldest posted receive; check {@link #isEmpty()} first. */
    long headWrId()
    {
        return wrIds[(int)(head.get() % capacity)];
    }

    long headAddress()
    {
        return addresses[(int)(head.get() % capacity)];
    }

    int headLength()
    {
        return lengths[(int)(head.get() % capacity)];
    }

    int headLkey()
    {
        return lkeys[(int)(head.get() % capacity)];
    }

    /** NIC thread: removes the oldest posted receive. */
    void consume()
    {
        head.lazySet(head.get() + 1);
    }

    /** NIC thread: forgets every posted receive, without completions (a queue pair reset). */
    void discardAll()
    {
        head.lazySet(tail.get());
    }
}
