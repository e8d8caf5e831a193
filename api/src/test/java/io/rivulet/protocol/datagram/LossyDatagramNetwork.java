package io.rivulet.protocol.datagram;

import io.rivulet.spi.MulticastEndpoint;
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
 *
 * <p>Endpoints are {@link MulticastEndpoint}s: a group is joined at the endpoint's next poll, and a send to it reaches
 * every member that joined to receive (never the sender), each copy with its own loss, duplication and reordering
 * draws, after a draw of {@link #groupDrop(double)} that loses the send for every member at once (loss before the
 * fabric copies it, as at the sender's NIC).
 */
public final class LossyDatagramNetwork
{
    private final SplittableRandom random;
    private final int maxDatagram;
    private final int inboxCapacity;
    private final ArrayList<Endpoint> endpoints = new ArrayList<>();
    /** Group handles start here; a group's handle is this plus its index. */
    public static final int GROUP_BASE = 1 << 20;
    private final ArrayList<String> groupNames = new ArrayList<>();
    private final ArrayList<ArrayList<Endpoint>> groupMembers = new ArrayList<>();
    double groupDrop;
    public long groupDrops;

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
    public long controlDrops;
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

    /** @return this network, whose group sends are lost for every member at once with this probability. */
    public LossyDatagramNetwork groupDrop(final double groupDrop)
    {
        this.groupDrop = groupDrop;
        return this;
    }

    /** @return this network with a one-way delay for every datagram. */
    public LossyDatagramNetwork oneWayDelayNs(final long oneWayDelayNs)
    {
        this.oneWayDelayNs = oneWayDelayNs;
        return this;
    }

    /** @return this network with an egress bottleneck on every endpoint (rate, longest queueing before tail drop). */
    public LossyDatagramNetwork egress(final long bytesPerSecond, final long queueLimitNs)
    {
        this.egressBytesPerSecond = bytesPerSecond;
        this.egressQueueLimitNs = queueLimitNs;
        return this;
    }

    /** @return tail drops at the egress bottlenecks. */
    public long bottleneckDrops()
    {
        return bottleneckDrops;
    }

    /** @return copies dropped because an endpoint's inbox was full. */
    public long inboxDrops()
    {
        return inboxDrops;
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
    public final class Endpoint implements MulticastEndpoint
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
        final ArrayList<Integer> joining = new ArrayList<>();
        final ArrayList<Integer> joined = new ArrayList<>();

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
        public int joinGroup(final String group, final boolean receive)
        {
            int index = groupNames.indexOf(group);
            if (index < 0)
            {
                index = groupNames.size();
                groupNames.add(group);
                groupMembers.add(new ArrayList<>());
            }
            if (receive && !groupMembers.get(index).contains(this))
            {
                groupMembers.get(index).add(this);
            }
            joining.add(GROUP_BASE + index);
            return GROUP_BASE + index;
        }

        @Override
        public int groupState(final int group)
        {
            if (joined.contains(group))
            {
                return GROUP_JOINED;
            }
            if (joining.contains(group))
            {
                return GROUP_JOINING;
            }
            throw new IllegalArgumentException("not a group of this endpoint: " + group);
        }

        @Override
        public String groupFailure(final int group)
        {
            return null;
        }

        @Override
        public void leaveGroup(final int group)
        {
            joined.remove(Integer.valueOf(group));
            joining.remove(Integer.valueOf(group));
            if (group >= GROUP_BASE && group - GROUP_BASE < groupMembers.size())
            {
                groupMembers.get(group - GROUP_BASE).remove(this);
            }
        }

        @Override
        public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            if (length < 1 || length > maxDatagram)
            {
                throw new IllegalArgumentException("datagram length " + length);
            }
            if (peer >= GROUP_BASE)
            {
                return sendToGroup(peer, buffer, offset, length);
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
            final long departNs = depart(length);
            if (departNs < 0)
            {
                return true;
            }
            deliver(peer, data, dropDraw, duplicateDraw, reorderDraw, extra, buffer, offset, length, departNs);
            return true;
        }

        /** One send to a group: one pass through the egress, then a copy per member with its own draws. */
        private boolean sendToGroup(final int group, final DirectBuffer buffer, final int offset, final int length)
        {
            if (!joined.contains(group))
            {
                return false;
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
            final long departNs = depart(length);
            if (departNs < 0)
            {
                return true;
            }
            if (random.nextDouble() < groupDrop)
            {
                groupDrops++;
                return true;
            }
            final ArrayList<Endpoint> members = groupMembers.get(group - GROUP_BASE);
            for (int i = 0, size = members.size(); i < size; i++)
            {
                final Endpoint member = members.get(i);
                if (member != this)
                {
                    deliver(member.index, data, random.nextDouble(), random.nextDouble(), random.nextDouble(),
                        1 + random.nextLong(reorderExtraNs), buffer, offset, length, departNs);
                }
            }
            return true;
        }

        /** @return when the datagram leaves this endpoint's egress, or -1 when its queue is full (tail drop). */
        private long depart(final int length)
        {
            if (egressBytesPerSecond <= 0)
            {
                return nowNs;
            }
            final long startNs = Math.max(nowNs, egressFreeAtNs);
            final long queueNs = startNs - nowNs;
            if (queueNs > egressQueueLimitNs)
            {
                bottleneckDrops++;
                return -1;
            }
            maxQueueDelayNs = Math.max(maxQueueDelayNs, queueNs);
            queueDelaySumNs += queueNs;
            queueDelaySamples++;
            egressFreeAtNs = startNs + length * 1_000_000_000L / egressBytesPerSecond;
            return egressFreeAtNs;
        }

        private void deliver(
            final int peer,
            final boolean data,
            final double dropDraw,
            final double duplicateDraw,
            final double reorderDraw,
            final long extra,
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final long departNs)
        {
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
                return;
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
        }

        @Override
        public int poll(final DatagramHandler handler, final int limit)
        {
            if (!joining.isEmpty())
            {
                joined.addAll(joining); // a join completes at the next poll, as a CM event would
                joining.clear();
            }
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

        /** @return the longest wait in this endpoint's egress queue since the last reset. */
        public long maxQueueDelayNs()
        {
            return maxQueueDelayNs;
        }

        public double averageQueueDelayNs()
        {
            return queueDelaySamples == 0 ? 0 : (double)queueDelaySumNs / queueDelaySamples;
        }

        public void resetQueueStatistics()
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
