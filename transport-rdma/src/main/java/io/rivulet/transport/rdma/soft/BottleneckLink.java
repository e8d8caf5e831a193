package io.rivulet.transport.rdma.soft;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A device's simulated egress link for UD datagrams ({@link SoftFaults#bottleneck(long, int)}): each datagram
 * occupies the link for {@code length / rate} and leaves when its serialisation ends; datagrams that
 * arrive while the link is busy wait in a FIFO queue of bounded length, which is what turns excess load
 * into queueing delay; a datagram that finds the queue full is dropped (tail drop, counted). Without a
 * bottleneck datagrams pass straight through. NIC thread only; slot buffers are allocated once per
 * configuration, so the data path does not allocate.
 */
final class BottleneckLink
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final SoftVerbsContext context;
    private final DatagramPort port;
    private final int maxDatagram;
    private long bytesPerSecond;
    private int capacity;
    private UnsafeBuffer[] data = new UnsafeBuffer[0];
    private Object[] route = new Object[0];
    private int[] length = new int[0];
    private long[] departNs = new long[0];
    private int head;
    private int count;
    private long linkFreeAtNs;

    BottleneckLink(final SoftVerbsContext context, final DatagramPort port, final int maxDatagram)
    {
        this.context = context;
        this.port = port;
        this.maxDatagram = maxDatagram;
    }

    /** Applies a new shape; datagrams already queued leave at once (a reconfiguration is control plane). */
    void configure(final SoftFaults faults)
    {
        if (faults.bottleneckBytesPerSecond() == bytesPerSecond && faults.bottleneckQueueDatagrams() == capacity)
        {
            return;
        }
        while (count > 0)
        {
            transmitHead();
        }
        bytesPerSecond = faults.bottleneckBytesPerSecond();
        capacity = faults.bottleneckQueueDatagrams();
        head = 0;
        linkFreeAtNs = 0;
        if (capacity > data.length)
        {
            final UnsafeBuffer[] grown = new UnsafeBuffer[capacity];
            System.arraycopy(data, 0, grown, 0, data.length);
            for (int i = data.length; i < capacity; i++)
            {
                grown[i] = new UnsafeBuffer(BufferUtil.allocateDirectAligned(maxDatagram, 64));
            }
            data = grown;
            route = new Object[capacity];
            length = new int[capacity];
            departNs = new long[capacity];
        }
    }

    /** Puts a datagram on the link, or in its queue, or drops it when the queue is full. */
    void send(final Object destination, final UnsafeBuffer buffer, final int datagramLength, final long nowNs)
    {
        if (bytesPerSecond == 0)
        {
            transmit(destination, buffer, datagramLength);
            return;
        }
        if (count == capacity)
        {
            context.onBottleneckDrop();
            return;
        }
        final long startNs = linkFreeAtNs - nowNs > 0 ? linkFreeAtNs : nowNs;
        final long departureNs = startNs + Math.max(1, datagramLength * NANOS_PER_SECOND / bytesPerSecond);
        linkFreeAtNs = departureNs;
        context.onBottleneckQueued(startNs - nowNs);
        final int slot = (head + count) % capacity;
        data[slot].putBytes(0, buffer, 0, datagramLength);
        route[slot] = destination;
        length[slot] = datagramLength;
        departNs[slot] = departureNs;
        count++;
    }

    /** Sends the datagrams whose serialisation has ended; asks the NIC to come back for the next. */
    int doWork(final long nowNs, final SoftNic nic)
    {
        int work = 0;
        while (count > 0 && departNs[head] - nowNs <= 0)
        {
            transmitHead();
            work++;
        }
        if (count > 0)
        {
            nic.deadline(departNs[head]);
        }
        return work;
    }

    /** @return datagrams waiting for the link. */
    int queued()
    {
        return count;
    }

    void clear()
    {
        for (int i = 0; i < route.length; i++)
        {
            route[i] = null;
        }
        count = 0;
        head = 0;
    }

    private void transmitHead()
    {
        transmit(route[head], data[head], length[head]);
        route[head] = null;
        head = (head + 1) % capacity;
        count--;
    }

    private void transmit(final Object destination, final UnsafeBuffer buffer, final int datagramLength)
    {
        if (!port.send(destination, buffer, datagramLength))
        {
            context.onDatagramLost();
        }
    }
}
