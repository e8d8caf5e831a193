package io.rivulet.transport.rdma.soft;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;

/**
 * Applies {@link SoftFaults} to datagrams on their way out of a device, then its {@link BottleneckLink}.
 * NIC thread only.
 *
 * <p>Each datagram draws four numbers (drop, duplicate, reorder, delay) whatever the configuration, so
 * the same seed and the same sequence of sends give the same faults.
 */
final class FaultInjector
{
    private static final int HELD_CAPACITY = 64;

    private final SoftVerbsContext context;
    private final BottleneckLink link;
    private final int maxDatagram;
    private final UnsafeBuffer[] heldData = new UnsafeBuffer[HELD_CAPACITY];
    private final Object[] heldRoute = new Object[HELD_CAPACITY];
    private final int[] heldLength = new int[HELD_CAPACITY];
    private final long[] heldReleaseNs = new long[HELD_CAPACITY];
    private final long[] heldOrder = new long[HELD_CAPACITY];
    private final boolean[] heldForReorder = new boolean[HELD_CAPACITY];
    private final boolean[] heldInUse = new boolean[HELD_CAPACITY];
    private int heldCount;
    private long nextOrder;
    private SoftFaults faults;
    private SplittableRandom random;

    FaultInjector(final SoftVerbsContext context, final DatagramPort port, final int maxDatagram)
    {
        this.context = context;
        this.link = new BottleneckLink(context, port, maxDatagram);
        this.maxDatagram = maxDatagram;
    }

    /** Sends a datagram through the faults. */
    void send(final Object route, final UnsafeBuffer buffer, final int length, final long nowNs)
    {
        final SoftFaults current = context.faults();
        if (current != faults)
        {
            faults = current;
            random = new SplittableRandom(current.seed());
            link.configure(current);
        }
        if (!current.isActive())
        {
            link.send(route, buffer, length, nowNs);
            return;
        }

        final double dropDraw = random.nextDouble();
        final double duplicateDraw = random.nextDouble();
        final double reorderDraw = random.nextDouble();
        final double delayDraw = random.nextDouble();

        if (dropDraw < current.drop())
        {
            context.onFaultDrop();
            return;
        }
        final int copies = duplicateDraw < current.duplicate() ? 2 : 1;
        if (copies == 2)
        {
            context.onFaultDuplicate();
        }
        for (int i = 0; i < copies; i++)
        {
            if (delayDraw < current.delay() && hold(route, buffer, length, nowNs + current.delayNs(), false))
            {
                context.onFaultDelay();
            }
            else if (reorderDraw < current.reorder() &&
                hold(route, buffer, length, nowNs + current.reorderTimeoutNs(), true))
            {
                context.onFaultReorder();
            }
            else
            {
                link.send(route, buffer, length, nowNs);
                releaseReordered(nowNs);
            }
        }
    }

    /** Releases held datagrams whose time has come. */
    int doWork(final long nowNs, final SoftNic nic)
    {
        int work = link.doWork(nowNs, nic);
        if (heldCount == 0)
        {
            return work;
        }
        while (true)
        {
            int next = -1;
            for (int i = 0; i < HELD_CAPACITY; i++)
            {
                if (heldInUse[i] && heldReleaseNs[i] - nowNs <= 0 && (next < 0 || heldOrder[i] < heldOrder[next]))
                {
                    next = i;
                }
            }
            if (next < 0)
            {
                break;
            }
            release(next, nowNs);
            work++;
        }
        for (int i = 0; i < HELD_CAPACITY; i++)
        {
            if (heldInUse[i])
            {
                nic.deadline(heldReleaseNs[i]);
            }
        }
        return work + link.doWork(nowNs, nic);
    }

    private boolean hold(
        final Object route, final UnsafeBuffer buffer, final int length, final long releaseNs, final boolean reorder)
    {
        if (heldCount == HELD_CAPACITY)
        {
            return false;
        }
        int slot = 0;
        while (heldInUse[slot])
        {
            slot++;
        }
        if (heldData[slot] == null)
        {
            heldData[slot] = new UnsafeBuffer(BufferUtil.allocateDirectAligned(maxDatagram, 64));
        }
        heldData[slot].putBytes(0, buffer, 0, length);
        heldRoute[slot] = route;
        heldLength[slot] = length;
        heldReleaseNs[slot] = releaseNs;
        heldOrder[slot] = nextOrder++;
        heldForReorder[slot] = reorder;
        heldInUse[slot] = true;
        heldCount++;
        return true;
    }

    private void releaseReordered(final long nowNs)
    {
        while (true)
        {
            int next = -1;
            for (int i = 0; i < HELD_CAPACITY && heldCount > 0; i++)
            {
                if (heldInUse[i] && heldForReorder[i] && (next < 0 || heldOrder[i] < heldOrder[next]))
                {
                    next = i;
                }
            }
            if (next < 0)
            {
                return;
            }
            release(next, nowNs);
        }
    }

    private void release(final int slot, final long nowNs)
    {
        link.send(heldRoute[slot], heldData[slot], heldLength[slot], nowNs);
        heldRoute[slot] = null;
        heldInUse[slot] = false;
        heldCount--;
    }

    void clear()
    {
        for (int i = 0; i < HELD_CAPACITY; i++)
        {
            heldInUse[i] = false;
            heldRoute[i] = null;
        }
        heldCount = 0;
        link.clear();
    }
}
