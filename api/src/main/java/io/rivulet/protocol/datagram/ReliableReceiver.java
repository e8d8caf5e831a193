package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The receiving half of one publisher→subscriber path: a reorder window of {@code window} slots from the
 * next expected sequence, so that messages reach the handler exactly once and in order.
 *
 * <ul>
 *   <li>The expected datagram is delivered straight from the network buffer, then any that waited behind
 *       it; a later one is copied into its slot; one already held or already delivered is a duplicate
 *       (counted, and it makes the next ACK go out, as the sender may have missed the last).</li>
 *   <li>ACKs (cumulative point, 64-bit selective bitmap, the timestamp of the latest datagram and how long
 *       it was held) go at once after {@code ackEvery} new datagrams, else at most every {@code ackInterval}.</li>
 *   <li>A gap is NAKed {@code nakDelay} after it is seen (time for reordered datagrams to arrive), then
 *       again after {@code nakRetry}, doubling up to {@code nakRetryMax}, while it stays open; adjacent
 *       missing datagrams share one NAK.</li>
 * </ul>
 * Allocation-free after construction. One thread (the subscriber's agent).
 */
public final class ReliableReceiver
{
    private static final int MAX_NAK_SHIFT = 16;

    private final DatagramEndpoint endpoint;
    private final int peer;
    private final int sessionId;
    private final DatagramMessageHandler handler;
    private final int window;
    private final int mask;
    private final int slotLength;
    private final int ackEvery;
    private final long ackIntervalNs;
    private final long nakDelayNs;
    private final long nakRetryNs;
    private final long nakRetryMaxNs;
    private final UnsafeBuffer slots;
    private final int[] slotPayloadLength;
    private final boolean[] present;
    private final long[] nakDueNs;
    private final byte[] nakShift;
    private final UnsafeBuffer control = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));

    private int expected;
    private int frontier;
    private long earliestNakDueNs;
    private boolean ackPending;
    private boolean ackSentOnce;
    private int unackedCount;
    private long lastAckNs;
    private long echoTimestampNs;
    private long echoArrivalNs;

    private long delivered;
    private long duplicates;
    private long outOfWindow;
    private long acksSent;
    private long naksSent;
    private long nakedDatagrams;
    private long sendBackPressure;

    /**
     * @param settings        validated protocol settings (window, payload, ACK and NAK timing).
     * @param endpoint        where ACKs and NAKs go.
     * @param peer            the publisher's handle on the endpoint.
     * @param sessionId       the path.
     * @param initialSequence sequence of the path's first message.
     * @param handler         receives the messages.
     */
    public ReliableReceiver(
        final DatagramSettings settings,
        final DatagramEndpoint endpoint,
        final int peer,
        final int sessionId,
        final int initialSequence,
        final DatagramMessageHandler handler)
    {
        this.endpoint = endpoint;
        this.peer = peer;
        this.sessionId = sessionId;
        this.handler = handler;
        this.window = settings.window();
        this.mask = window - 1;
        this.slotLength = DatagramSettings.slotLength(settings.maxPayload());
        this.ackEvery = settings.ackEvery();
        this.ackIntervalNs = settings.ackIntervalNs();
        this.nakDelayNs = settings.nakDelayNs();
        this.nakRetryNs = settings.nakRetryNs();
        this.nakRetryMaxNs = settings.nakRetryMaxNs();
        this.slots = new UnsafeBuffer(BufferUtil.allocateDirectAligned(window * slotLength, 64));
        this.slotPayloadLength = new int[window];
        this.present = new boolean[window];
        this.nakDueNs = new long[window];
        this.nakShift = new byte[window];
        this.expected = initialSequence;
        this.frontier = initialSequence;
    }

    /** A DATA datagram for this path arrived, whole in the buffer and validated by {@link DatagramHeader#validate}. */
    public void onDatagram(final DirectBuffer buffer, final int offset, final long nowNs)
    {
        onData(DatagramHeader.sequence(buffer, offset), DatagramHeader.timestampNs(buffer, offset), buffer,
            offset + DatagramHeader.DATA_HEADER_LENGTH, DatagramHeader.payloadLength(buffer, offset), nowNs);
    }

    /**
     * A DATA datagram for this path arrived (validated by {@link DatagramHeader#validate}).
     *
     * @param sequence    its sequence number.
     * @param timestampNs the sender's timestamp, echoed in the next ACK.
     * @param buffer      holding the payload.
     * @param offset      of the payload.
     * @param length      of the payload, at most the settings' {@code maxPayload}.
     */
    public void onData(
        final int sequence, final long timestampNs, final DirectBuffer buffer, final int offset, final int length,
        final long nowNs)
    {
        final int distance = sequence - expected;
        if (distance >= window)
        {
            outOfWindow++;
            return;
        }
        echoTimestampNs = timestampNs;
        echoArrivalNs = nowNs;
        ackPending = true;
        if (distance < 0)
        {
            duplicates++;
            return;
        }
        final int slot = sequence & mask;
        if (distance == 0)
        {
            unackedCount++;
            deliver(buffer, offset, length);
            expected++;
            while (present[expected & mask])
            {
                final int next = expected & mask;
                present[next] = false;
                deliver(slots, next * slotLength, slotPayloadLength[next]);
                expected++;
            }
            if (frontier - expected < 0)
            {
                frontier = expected;
            }
            return;
        }
        if (present[slot])
        {
            duplicates++;
            return;
        }
        unackedCount++;
        slots.putBytes(slot * slotLength, buffer, offset, length);
        slotPayloadLength[slot] = length;
        present[slot] = true;
        if (sequence - frontier >= 0)
        {
            final long due = nowNs + nakDelayNs;
            final boolean hadGap = frontier != expected;
            for (int s = frontier; s != sequence; s++)
            {
                final int gap = s & mask;
                nakDueNs[gap] = due;
                nakShift[gap] = 0;
            }
            if (sequence != frontier && (!hadGap || due - earliestNakDueNs < 0))
            {
                earliestNakDueNs = due;
            }
            frontier = sequence + 1;
        }
    }

    /**
     * Sends NAKs and the ACK when due.
     *
     * @return datagrams sent.
     */
    public int doWork(final long nowNs)
    {
        int work = 0;
        if (frontier != expected && nowNs - earliestNakDueNs >= 0)
        {
            work += sendNaks(nowNs);
        }
        if (ackPending && (unackedCount >= ackEvery || !ackSentOnce || nowNs - lastAckNs >= ackIntervalNs))
        {
            work += sendAck(nowNs);
        }
        return work;
    }

    private int sendNaks(final long nowNs)
    {
        int sent = 0;
        long earliest = 0;
        boolean anyMissing = false;
        int runStart = 0;
        int runLength = 0;
        for (int s = expected; s != frontier; s++)
        {
            final int slot = s & mask;
            if (present[slot])
            {
                sent += flushNak(runStart, runLength);
                runLength = 0;
                continue;
            }
            if (nowNs - nakDueNs[slot] >= 0)
            {
                if (runLength == 0)
                {
                    runStart = s;
                }
                runLength++;
                final int shift = nakShift[slot];
                nakDueNs[slot] = nowNs + Math.min(nakRetryMaxNs, nakRetryNs << shift);
                if (shift < MAX_NAK_SHIFT)
                {
                    nakShift[slot] = (byte)(shift + 1);
                }
            }
            else
            {
                sent += flushNak(runStart, runLength);
                runLength = 0;
            }
            if (!anyMissing || nakDueNs[slot] - earliest < 0)
            {
                earliest = nakDueNs[slot];
                anyMissing = true;
            }
        }
        sent += flushNak(runStart, runLength);
        earliestNakDueNs = earliest;
        return sent;
    }

    private int flushNak(final int first, final int count)
    {
        if (count == 0)
        {
            return 0;
        }
        DatagramHeader.writeNak(control, 0, sessionId, first, count);
        if (!endpoint.send(peer, control, 0, DatagramHeader.NAK_LENGTH))
        {
            sendBackPressure++;
            return 0;
        }
        naksSent++;
        nakedDatagrams += count;
        return 1;
    }

    private int sendAck(final long nowNs)
    {
        long bitmap = 0;
        final int span = Math.min(64, frontier - expected - 1);
        for (int i = 0; i < span; i++)
        {
            if (present[(expected + 1 + i) & mask])
            {
                bitmap |= 1L << i;
            }
        }
        final long held = Math.max(0, nowNs - echoArrivalNs);
        DatagramHeader.writeAck(control, 0, sessionId, expected, bitmap, echoTimestampNs, held);
        if (!endpoint.send(peer, control, 0, DatagramHeader.ACK_LENGTH))
        {
            sendBackPressure++;
            return 0;
        }
        ackPending = false;
        ackSentOnce = true;
        unackedCount = 0;
        lastAckNs = nowNs;
        acksSent++;
        return 1;
    }

    private void deliver(final DirectBuffer buffer, final int offset, final int length)
    {
        delivered++;
        handler.onMessage(sessionId, buffer, offset, length);
    }

    /** @return the next sequence to deliver; everything before it was delivered. */
    public int expectedSequence()
    {
        return expected;
    }

    /** @return datagrams held out of order, waiting for a gap to fill. */
    public int heldOutOfOrder()
    {
        int held = 0;
        for (int s = expected; s != frontier; s++)
        {
            if (present[s & mask])
            {
                held++;
            }
        }
        return held;
    }

    public int sessionId()
    {
        return sessionId;
    }

    public int peer()
    {
        return peer;
    }

    public long delivered()
    {
        return delivered;
    }

    public long duplicates()
    {
        return duplicates;
    }

    /** @return datagrams too far ahead of the window, dropped (a sender that ignores the window). */
    public long outOfWindow()
    {
        return outOfWindow;
    }

    public long acksSent()
    {
        return acksSent;
    }

    public long naksSent()
    {
        return naksSent;
    }

    /** @return datagrams named in NAKs sent (a NAK names a run of them). */
    public long nakedDatagrams()
    {
        return nakedDatagrams;
    }

    /** @return ACKs or NAKs the endpoint refused for want of room (sent again later). */
    public long sendBackPressure()
    {
        return sendBackPressure;
    }

    @Override
    public String toString()
    {
        return "ReliableReceiver{session=" + sessionId + ", expected=" + Integer.toUnsignedString(expected) +
            ", delivered=" + delivered + ", duplicates=" + duplicates + ", acks=" + acksSent + ", naks=" + naksSent +
            ", outOfWindow=" + outOfWindow + "}";
    }
}
