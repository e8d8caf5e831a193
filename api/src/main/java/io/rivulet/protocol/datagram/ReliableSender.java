package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The sending half of one publisher→subscriber path. It numbers the path's datagrams (32-bit sequence
 * numbers that wrap; position {@code p} of the ring goes out as {@code initialSequence + (p - startPosition)}),
 * keeps up to {@code window} of them in flight, and retransmits from the ring on a NAK or when the
 * retransmission timer fires.
 *
 * <ul>
 *   <li>ACKs carry a cumulative point and a 64-bit selective bitmap; both advance state, and the echoed
 *       timestamp less the receiver's hold time is the RTT sample for {@link RttEstimator} and the delay
 *       for {@link SwiftCongestionControl}.</li>
 *   <li>A NAK retransmits the named datagrams that are neither acknowledged nor sent within the last
 *       smoothed RTT (NAK suppression: one retransmission in flight per loss).</li>
 *   <li>One retransmission timer per path, re-armed when the cumulative point moves; when it fires the
 *       oldest unacknowledged datagrams (up to the window) go again and the timeout doubles.</li>
 *   <li>An ACK or NAK that names datagrams never sent is a protocol violation: the path
 *       {@linkplain #isFailed() fails} and sends nothing more.</li>
 * </ul>
 * Allocation-free after construction. One thread (the publisher's agent).
 */
public final class ReliableSender
{
    private final DatagramRing ring;
    private final DatagramEndpoint endpoint;
    private final int peer;
    private final int sessionId;
    private final int initialSequence;
    private final long startPosition;
    private final int window;
    private final int mask;
    private final long rtoInitialNs;
    private final long[] sentNs;
    private final boolean[] selectivelyAcked;
    private final RttEstimator rtt;
    private final SwiftCongestionControl congestion;

    private long ackedPosition;
    private long nextPosition;
    private int selectivelyAckedCount;
    private long rtoDeadlineNs;
    private boolean rtoArmed;
    private int consecutiveTimeouts;
    private String failure;

    private long datagramsSent;
    private long retransmits;
    private long naksReceived;
    private long nakRetransmitsSuppressed;
    private long acksReceived;
    private long staleAcks;
    private long timeouts;
    private long sendBackPressure;

    /** This path's DATA header when the payload is sent in place (the ring's slot is shared by every path). */
    private final UnsafeBuffer header = new UnsafeBuffer(new byte[DatagramHeader.DATA_HEADER_LENGTH]);

    /**
     * @param settings        validated protocol settings.
     * @param ring            the publisher's ring the messages are read from.
     * @param endpoint        where datagrams go.
     * @param peer            the subscriber's handle on the endpoint.
     * @param sessionId       names this path in every datagram.
     * @param initialSequence sequence of the message at {@code startPosition}.
     * @param startPosition   first ring position this path delivers.
     */
    public ReliableSender(
        final DatagramSettings settings,
        final DatagramRing ring,
        final DatagramEndpoint endpoint,
        final int peer,
        final int sessionId,
        final int initialSequence,
        final long startPosition)
    {
        this.ring = ring;
        this.endpoint = endpoint;
        this.peer = peer;
        this.sessionId = sessionId;
        this.initialSequence = initialSequence;
        this.startPosition = startPosition;
        this.window = settings.window();
        this.mask = window - 1;
        this.rtoInitialNs = settings.rtoInitialNs();
        this.sentNs = new long[window];
        this.selectivelyAcked = new boolean[window];
        this.rtt = new RttEstimator(settings.rtoInitialNs(), settings.rtoMinNs(), settings.rtoMaxNs());
        this.congestion = new SwiftCongestionControl(settings.swift());
        this.ackedPosition = startPosition;
        this.nextPosition = startPosition;
    }

    /**
     * Sends what the window allows and fires the retransmission timer when due.
     *
     * @return datagrams sent.
     */
    public int doWork(final long nowNs)
    {
        if (failure != null)
        {
            return 0;
        }
        int work = 0;
        if (rtoArmed && nowNs - rtoDeadlineNs >= 0)
        {
            work += onTimeout(nowNs);
        }
        final long limit = Math.min(ring.position(), ackedPosition + window);
        while (nextPosition < limit && congestion.canSend(inFlight(), nowNs))
        {
            if (!transmit(nextPosition, 0, nowNs))
            {
                break;
            }
            congestion.onSend(nowNs, rtt.srttNs(rtoInitialNs));
            if (!rtoArmed)
            {
                armRto(nowNs);
            }
            nextPosition++;
            work++;
        }
        return work;
    }

    /**
     * An ACK or NAK for this path arrived, whole in the buffer and validated by {@link DatagramHeader#validate}.
     *
     * @param type {@link DatagramHeader#TYPE_ACK} or {@link DatagramHeader#TYPE_NAK}, as validate returned it.
     */
    public void onControl(final int type, final DirectBuffer buffer, final int offset, final long nowNs)
    {
        if (type == DatagramHeader.TYPE_ACK)
        {
            onAck(DatagramHeader.sequence(buffer, offset), DatagramHeader.bitmap(buffer, offset),
                DatagramHeader.echoTimestampNs(buffer, offset), DatagramHeader.ackDelayNs(buffer, offset), nowNs);
        }
        else
        {
            onNak(DatagramHeader.sequence(buffer, offset), DatagramHeader.nakCount(buffer, offset), nowNs);
        }
    }

    /**
     * An ACK for this path arrived (already validated by {@link DatagramHeader#validate}).
     *
     * @param cumulative      the next sequence the receiver expects.
     * @param bitmap          bit i: {@code cumulative + 1 + i} arrived.
     * @param echoTimestampNs our send timestamp of the datagram that prompted it.
     * @param ackDelayNs      how long the receiver held that datagram before acknowledging.
     */
    public void onAck(
        final int cumulative, final long bitmap, final long echoTimestampNs, final long ackDelayNs, final long nowNs)
    {
        if (failure != null)
        {
            return;
        }
        acksReceived++;
        final int advance = cumulative - sequenceOf(ackedPosition);
        if (advance < 0)
        {
            staleAcks++;
            return;
        }
        if (advance > nextPosition - ackedPosition)
        {
            fail("ACK " + Integer.toUnsignedString(cumulative) + " acknowledges datagrams never sent (next " +
                Integer.toUnsignedString(sequenceOf(nextPosition)) + ")");
            return;
        }
        int newlyAcked = 0;
        final long newAcked = ackedPosition + advance;
        for (long p = ackedPosition; p < newAcked; p++)
        {
            final int slot = (int)(p & mask);
            if (selectivelyAcked[slot])
            {
                selectivelyAcked[slot] = false;
                selectivelyAckedCount--;
            }
            else
            {
                newlyAcked++;
            }
        }
        ackedPosition = newAcked;

        long bits = bitmap;
        while (bits != 0)
        {
            final int bit = Long.numberOfTrailingZeros(bits);
            bits &= bits - 1;
            final long p = ackedPosition + 1 + bit;
            if (p >= nextPosition)
            {
                fail("ACK bitmap acknowledges datagram " + Integer.toUnsignedString(sequenceOf(p)) + " never sent");
                return;
            }
            final int slot = (int)(p & mask);
            if (!selectivelyAcked[slot])
            {
                selectivelyAcked[slot] = true;
                selectivelyAckedCount++;
                newlyAcked++;
            }
        }

        if (advance > 0)
        {
            consecutiveTimeouts = 0;
        }
        final long sinceSend = nowNs - echoTimestampNs;
        final long sample = sinceSend - ackDelayNs;
        if (echoTimestampNs != 0 && sinceSend >= 0 && sample > 0)
        {
            rtt.onSample(sample);
            congestion.onAck(nowNs, sample, rtt.srttNs(rtoInitialNs), newlyAcked);
        }
        if (advance > 0)
        {
            if (ackedPosition < nextPosition)
            {
                armRto(nowNs);
            }
            else
            {
                rtoArmed = false;
            }
        }
    }

    /**
     * A NAK for this path arrived (validated): {@code count} datagrams from {@code firstMissing} are missing.
     */
    public void onNak(final int firstMissing, final int count, final long nowNs)
    {
        if (failure != null)
        {
            return;
        }
        naksReceived++;
        final int offset = firstMissing - sequenceOf(ackedPosition);
        final long first = ackedPosition + Math.max(0, offset);
        final long end = ackedPosition + (long)offset + count;
        if (end > nextPosition)
        {
            fail("NAK for " + count + " datagrams from " + Integer.toUnsignedString(firstMissing) +
                " names datagrams never sent (next " + Integer.toUnsignedString(sequenceOf(nextPosition)) + ")");
            return;
        }
        if (end <= ackedPosition)
        {
            return;
        }
        final long srtt = rtt.srttNs(rtoInitialNs);
        congestion.onNak(nowNs, srtt);
        for (long p = first; p < end; p++)
        {
            final int slot = (int)(p & mask);
            if (selectivelyAcked[slot])
            {
                continue;
            }
            if (nowNs - sentNs[slot] < srtt)
            {
                nakRetransmitsSuppressed++;
                continue;
            }
            if (!transmit(p, DatagramHeader.FLAG_RETRANSMIT, nowNs))
            {
                break;
            }
            retransmits++;
        }
    }

    private int onTimeout(final long nowNs)
    {
        timeouts++;
        consecutiveTimeouts++;
        final long rto = rtt.rtoNs();
        rtt.onTimeout();
        congestion.onTimeout(nowNs, consecutiveTimeouts);
        int budget = Math.max(1, (int)congestion.window());
        int sent = 0;
        for (long p = ackedPosition; p < nextPosition && budget > 0; p++)
        {
            final int slot = (int)(p & mask);
            if (selectivelyAcked[slot] || (p != ackedPosition && nowNs - sentNs[slot] < rto))
            {
                continue;
            }
            if (!transmit(p, DatagramHeader.FLAG_RETRANSMIT, nowNs))
            {
                break;
            }
            retransmits++;
            sent++;
            budget--;
        }
        armRto(nowNs);
        return sent;
    }

    private boolean transmit(final long position, final int flags, final long nowNs)
    {
        final UnsafeBuffer buffer = ring.buffer();
        final int offset = ring.slotOffset(position);
        final int length = ring.payloadLength(position);
        final boolean sent;
        if (ring.isSentInPlace())
        {
            // The device reads the payload from the slot for every path: this path's header travels apart.
            DatagramHeader.writeData(header, 0, flags, sessionId, sequenceOf(position), length, nowNs);
            sent = endpoint.sendFromRegion(peer, header, 0, DatagramHeader.DATA_HEADER_LENGTH,
                offset + DatagramHeader.DATA_HEADER_LENGTH, length);
            if (sent)
            {
                ring.posted(position, endpoint.sendsPosted());
            }
        }
        else
        {
            DatagramHeader.writeData(buffer, offset, flags, sessionId, sequenceOf(position), length, nowNs);
            sent = endpoint.send(peer, buffer, offset, DatagramHeader.DATA_HEADER_LENGTH + length);
        }
        if (!sent)
        {
            sendBackPressure++;
            return false;
        }
        sentNs[(int)(position & mask)] = nowNs;
        datagramsSent++;
        return true;
    }

    private void armRto(final long nowNs)
    {
        rtoDeadlineNs = nowNs + rtt.rtoNs();
        rtoArmed = true;
    }

    private void fail(final String reason)
    {
        failure = reason;
        rtoArmed = false;
    }

    /** @return the sequence number of a ring position on this path. */
    public int sequenceOf(final long position)
    {
        return initialSequence + (int)(position - startPosition);
    }

    /** @return datagrams sent and neither cumulatively nor selectively acknowledged. */
    public int inFlight()
    {
        return (int)(nextPosition - ackedPosition) - selectivelyAckedCount;
    }

    /** @return every ring position below this is acknowledged by the subscriber. */
    public long ackedPosition()
    {
        return ackedPosition;
    }

    /** @return the next ring position to send for the first time. */
    public long nextPosition()
    {
        return nextPosition;
    }

    public int sessionId()
    {
        return sessionId;
    }

    public int peer()
    {
        return peer;
    }

    /** @return true after a protocol violation; the path sends nothing more. */
    public boolean isFailed()
    {
        return failure != null;
    }

    /** @return why the path failed, or null. */
    public String failureReason()
    {
        return failure;
    }

    /** @return the timer deadline, meaningful while {@link #isRtoArmed()}. */
    public long rtoDeadlineNs()
    {
        return rtoDeadlineNs;
    }

    public boolean isRtoArmed()
    {
        return rtoArmed;
    }

    /** @return timeouts in a row without the cumulative point moving. */
    public int consecutiveTimeouts()
    {
        return consecutiveTimeouts;
    }

    public RttEstimator rtt()
    {
        return rtt;
    }

    public SwiftCongestionControl congestion()
    {
        return congestion;
    }

    /** @return the congestion window in datagrams. */
    public double window()
    {
        return congestion.window();
    }

    /** @return the smoothed RTT in ns (0 before the first sample). */
    public long srttNs()
    {
        return rtt.srttNs(0);
    }

    /** @return DATA datagrams sent, retransmissions included. */
    public long datagramsSent()
    {
        return datagramsSent;
    }

    public long retransmits()
    {
        return retransmits;
    }

    public long naksReceived()
    {
        return naksReceived;
    }

    /** @return NAKed datagrams not resent because a retransmission was already in flight. */
    public long nakRetransmitsSuppressed()
    {
        return nakRetransmitsSuppressed;
    }

    public long acksReceived()
    {
        return acksReceived;
    }

    /** @return ACKs whose cumulative point was behind ours (reordered ACKs), ignored. */
    public long staleAcks()
    {
        return staleAcks;
    }

    public long timeouts()
    {
        return timeouts;
    }

    /** @return sends the endpoint refused for want of room. */
    public long sendBackPressure()
    {
        return sendBackPressure;
    }

    @Override
    public String toString()
    {
        return "ReliableSender{session=" + sessionId + ", acked=" + ackedPosition + ", next=" + nextPosition +
            ", cwnd=" + String.format("%.2f", congestion.window()) + ", srttNs=" + srttNs() + ", sent=" +
            datagramsSent + ", retransmits=" + retransmits + ", naks=" + naksReceived + ", timeouts=" + timeouts +
            (failure == null ? "" : ", failed: " + failure) + "}";
    }
}
