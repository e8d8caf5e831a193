package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramEndpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.SplittableRandom;

/**
 * An in-memory datagram network for protocol tests, stepped by an injected clock ({@link #nowNs}):
 * seeded loss, duplication and reordering (a reordered datagram takes an extra random delay), a fixed
 * one-way delay, and optionally a bottleneck on each endpoint's egress (a rate in bytes per second and a
 * bounded queue that adds delay, tail drop when full). Each endpoint's inbox releases datagrams in
 * release-time order: a FIFO for those that arrive in order (the common case, O(1)) and a min-heap for the
 * rest. Single-threaded and allocation-free after construction.
 */
public final class LossyDatagramNetwork
{
    private final SplittableRandom random;
    private final int maxDatagram;
    private final int inboxCapacity;
    private final ArrayList<Endpoint> endpoints = new ArrayList<>();

    public long nowNs;
    double drop;
    double duplicate;
    double reorder;
    long oneWayDelayNs = 10_000;
    long reorderExtraNs = 8_000;
    long egressBytesPerSecond;
    long egressQueueLimitNs;

    public long dataSent;
    public long dataDrops;
    long controlSent;
    long controlDrops;
    long duplicated;
    long reordered;
    long inboxDrops;
    long bottleneckDrops;

    public LossyDatagramNetwork(final long seed, final int maxDatagram, final int inboxCapacity)
    {
        this.random = new SplittableRandom(seed);
        this.maxDatagram = maxDatagram;
        this.inboxCapacity = inboxCapacity;
    }

    /** @return the longest datagram an endpoint of this network carries. */
    public int maxDatagram()
    {
        return maxDatagram;
    }

    public LossyDatagramNetwork faults(final double drop, final double duplicate, final double reorder)
    {
        this.drop = drop;
        this.duplicate = duplicate;
        this.reorder = reorder;
        return this;
    }

    public Endpoint newEndpoint()
    {
        final Endpoint endpoint = new Endpoint(endpoints.size());
        endpoints.add(endpoint);
        return endpoint;
    }

    /** @return the earliest release time of any datagram in flight, or {@code Long.MAX_VALUE}. */
    long nextReleaseNs()
    {
        long next = Long.MAX_VALUE;
        for (int i = 0, n = endpoints.size(); i < n; i++)
        {
            final Endpoint endpoint = endpoints.get(i);
            final int head = endpoint.head();
            if (head >= 0)
            {
                next = Math.min(next, endpoint.releaseNs[head]);
            }
        }
        return next;
    }

    /** One endpoint; its handle (and address) is its index. */
    public final class Endpoint implements DatagramEndpoint
    {
        final int index;
        final UnsafeBuffer store;
        final int[] source;
        final int[] length;
        final long[] releaseNs;
        final long[] order;
        final int[] heap;
        final int[] fifo;
        final int[] free;
        int size;
        int fifoHead;
        int fifoTail;
        long fifoLastReleaseNs = Long.MIN_VALUE;
        int freeCount;
        long nextOrder;
        long egressFreeAtNs;
        long maxQueueDelayNs;
        long queueDelaySumNs;
        long queueDelaySamples;

        Endpoint(final int index)
        {
            this.index = index;
            store = new UnsafeBuffer(new byte[inboxCapacity * maxDatagram]);
            source = new int[inboxCapacity];
            length = new int[inboxCapacity];
            releaseNs = new long[inboxCapacity];
            order = new long[inboxCapacity];
            heap = new int[inboxCapacity];
            fifo = new int[inboxCapacity];
            free = new int[inboxCapacity];
            for (int i = 0; i < inboxCapacity; i++)
            {
                free[i] = inboxCapacity - 1 - i;
            }
            freeCount = inboxCapacity;
        }

        @Override
        public int maxDatagramLength()
        {
            return maxDatagram;
        }

        @Override
        public String localAddress()
        {
            return Integer.toString(index);
        }

        @Override
        public int resolve(final String address)
        {
            final int peer = Integer.parseInt(address);
            if (peer < 0 || peer >= endpoints.size())
            {
                throw new IllegalArgumentException("no endpoint " + address);
            }
            return peer;
        }

        @Override
        public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            if (length < 1 || length > maxDatagram)
            {
                throw new IllegalArgumentException("datagram length " + length);
            }
            final boolean data = DatagramHeader.type(buffer, offset) == DatagramHeader.TYPE_DATA;
            if (data)
            {
                dataSent++;
            }
            else
            {
                controlSent++;
            }
            final double dropDraw = random.nextDouble();
            final double duplicateDraw = random.nextDouble();
            final double reorderDraw = random.nextDouble();
            final long extra = 1 + random.nextLong(reorderExtraNs);
            long departNs = nowNs;
            if (egressBytesPerSecond > 0)
            {
                final long startNs = Math.max(nowNs, egressFreeAtNs);
                final long queueNs = startNs - nowNs;
                if (queueNs > egressQueueLimitNs)
                {
                    bottleneckDrops++;
                    return true;
                }
                maxQueueDelayNs = Math.max(maxQueueDelayNs, queueNs);
                queueDelaySumNs += queueNs;
                queueDelaySamples++;
                egressFreeAtNs = startNs + length * 1_000_000_000L / egressBytesPerSecond;
                departNs = egressFreeAtNs;
            }
            if (dropDraw < drop)
            {
                if (data)
                {
                    dataDrops++;
                }
                else
                {
                    controlDrops++;
                }
                return true;
            }
            final Endpoint target = endpoints.get(peer);
            final boolean late = reorderDraw < reorder;
            if (late)
            {
                reordered++;
            }
            target.enqueue(index, buffer, offset, length, departNs + oneWayDelayNs + (late ? extra : 0), !late);
            if (duplicateDraw < duplicate)
            {
                duplicated++;
                target.enqueue(index, buffer, offset, length, departNs + oneWayDelayNs + extra / 2, false);
            }
            return true;
        }

        @Override
        public int poll(final DatagramHandler handler, final int limit)
        {
            int delivered = 0;
            int slot;
            while (delivered < limit && (slot = head()) >= 0 && releaseNs[slot] - nowNs <= 0)
            {
                if (fifoHead != fifoTail && slot == fifo[fifoHead % inboxCapacity])
                {
                    fifoHead++;
                }
                else
                {
                    removeTop();
                }
                handler.onDatagram(source[slot], store, slot * maxDatagram, length[slot]);
                free[freeCount++] = slot;
                delivered++;
            }
            return delivered;
        }

        @Override
        public void close()
        {
        }

        double averageQueueDelayNs()
        {
            return queueDelaySamples == 0 ? 0 : (double)queueDelaySumNs / queueDelaySamples;
        }

        void resetQueueStatistics()
        {
            queueDelaySumNs = 0;
            queueDelaySamples = 0;
            maxQueueDelayNs = 0;
        }

        /** @return the slot released next, or -1. */
        int head()
        {
            final boolean fifoEmpty = fifoHead == fifoTail;
            if (size == 0)
            {
                return fifoEmpty ? -1 : fifo[fifoHead % inboxCapacity];
            }
            if (fifoEmpty)
            {
                return heap[0];
            }
            final int first = fifo[fifoHead % inboxCapacity];
            return before(first, heap[0]) ? first : heap[0];
        }

        private void enqueue(
            final int from, final DirectBuffer buffer, final int offset, final int length, final long release,
            final boolean onTime)
        {
            if (freeCount == 0)
            {
                inboxDrops++;
                return;
            }
            final int slot = free[--freeCount];
            store.putBytes(slot * maxDatagram, buffer, offset, length);
            source[slot] = from;
            this.length[slot] = length;
            releaseNs[slot] = release;
            order[slot] = nextOrder++;
            // On-time datagrams arrive in release order: O(1). Late ones and copies go to the heap.
            if (onTime && release >= fifoLastReleaseNs)
            {
                fifoLastReleaseNs = release;
                fifo[fifoTail++ % inboxCapacity] = slot;
                return;
            }
            int i = size++;
            heap[i] = slot;
            while (i > 0)
            {
                final int parent = (i - 1) >>> 1;
                if (!before(heap[i], heap[parent]))
                {
                    break;
                }
                swap(i, parent);
                i = parent;
            }
        }

        private void removeTop()
        {
            heap[0] = heap[--size];
            int i = 0;
            while (true)
            {
                final int left = 2 * i + 1;
                if (left >= size)
                {
                    break;
                }
                final int right = left + 1;
                final int child = right < size && before(heap[right], heap[left]) ? right : left;
                if (!before(heap[child], heap[i]))
                {
                    break;
                }
                swap(i, child);
                i = child;
            }
        }

        private boolean before(final int a, final int b)
        {
            final long difference = releaseNs[a] - releaseNs[b];
            return difference < 0 || (difference == 0 && order[a] < order[b]);
        }

        private void swap(final int i, final int j)
        {
            final int t = heap[i];
            heap[i] = heap[j];
            heap[j] = t;
        }
    }
}
