package io.rivulet.protocol.datagram.multicast;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.MulticastSettings;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * One receiver's image of one multicast stream: a copy of the publisher's log, the same size, written at the
 * positions the datagrams carry, so that loss, reordering, duplication and repairs that cut the bytes differently
 * all come to the same thing — a byte is either there or not ({@link ReceivedRanges}). Whole records below the
 * rebuild position go to the {@link Consumer}, in order, once; gaps are NAKed after a reorder delay and a random
 * back-off ({@link NakSchedule}); status messages tell the publisher what was consumed and received, with the
 * timestamp echo it measures its delay by.
 *
 * <p>The stream's format is the publisher's log's: records {@code [frame length i32 LE | frame]}, unaligned; a negative
 * length marks that many bytes to skip; fewer than 4 bytes left before the end of the ring are skipped with no length.
 * A record that breaks it (a length of 0, beyond the longest frame, or across the end of the ring) is hostile input:
 * {@link Consumer#onCorrupt} and the image stops.
 *
 * <p>Threading: the thread that owns the receiving endpoint (the conductor). Allocation-free after construction.
 */
public final class MulticastReceiver
{
    /** Where the stream's records go. */
    public interface Consumer
    {
        /**
         * One record's frame.
         *
         * @param buffer the image (valid during the call only).
         * @return false to stop here for now (back-pressure): the record is offered again next cycle.
         */
        boolean onFrame(DirectBuffer buffer, int offset, int length);

        /** The publisher no longer has the bytes {@code [from, to)}: the stream goes on at {@code to}. */
        void onLoss(long from, long to);

        /** The stream breaks the record format: it cannot go on. */
        void onCorrupt(String reason);
    }

    private static final int LENGTH_PREFIX = 4;
    private static final int MAX_RANGES = 128;
    private static final int MAX_NAK_GAPS = 64;
    /** Records handed over per cycle, at most: a long backlog must not hold the thread. */
    private static final int FRAMES_PER_CYCLE = 1024;

    private final MulticastSettings settings;
    private final DatagramEndpoint endpoint;
    private final int publisherPeer;
    private final int sessionId;
    private final int receiverId;
    private final int capacity;
    private final int mask;
    private final int window;
    private final int maxFrameLength;
    private final Consumer consumer;
    private final UnsafeBuffer image;
    private final ReceivedRanges ranges = new ReceivedRanges(MAX_RANGES);
    private final NakSchedule naks;
    private final long[] gapStarts = new long[MAX_NAK_GAPS];
    private final long[] gapEnds = new long[MAX_NAK_GAPS];
    private final UnsafeBuffer control = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final NakSchedule.NakSender nakSender = this::sendNak;

    private long consumed;
    private long highest;
    private boolean gapsChanged;
    private boolean active;
    private boolean failed;
    private long lastHeardNs;
    private long echoTimestampNs;
    private long echoArrivalNs;
    private long echoEnd = -1;
    private long lastStatusNs;
    private long lastStatusConsumed;
    /** A loss the publisher reported: records below {@code pendingLossFrom} still go out, then the stream resumes. */
    private long pendingLossFrom = -1;
    private long pendingLossTo;

    private long datagrams;
    private long bytes;
    private long repairsReceived;
    private long duplicates;
    private long outOfWindow;
    private long rangeOverflows;
    private long statusSent;
    private long lostBytes;
    private long sendBackPressure;

    /**
     * @param settings       the protocol's settings.
     * @param endpoint       where NAKs and status messages are sent from.
     * @param publisherPeer  the publisher's handle on that endpoint.
     * @param sessionId      the stream's session.
     * @param receiverId     this receiver's id at the publisher.
     * @param capacity       the publisher's log capacity, a power of two: the image's size.
     * @param startPosition  where this receiver's stream starts (a record boundary; earlier bytes are ignored).
     * @param maxFrameLength the longest frame a record may hold.
     * @param consumer       where records go.
     * @param random         this receiver's random source, for the NAK back-off.
     */
    public MulticastReceiver(
        final MulticastSettings settings,
        final DatagramEndpoint endpoint,
        final int publisherPeer,
        final int sessionId,
        final int receiverId,
        final int capacity,
        final long startPosition,
        final int maxFrameLength,
        final Consumer consumer,
        final SplittableRandom random)
    {
        if (!BitUtil.isPowerOfTwo(capacity) || capacity < 4096)
        {
            throw new IllegalArgumentException("image capacity must be a power of two of at least 4096: " + capacity);
        }
        this.settings = settings;
        this.endpoint = endpoint;
        this.publisherPeer = publisherPeer;
        this.sessionId = sessionId;
        this.receiverId = receiverId;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.window = Math.min(settings.receiverWindow(), capacity / 2);
        this.maxFrameLength = maxFrameLength;
        this.consumer = consumer;
        this.image = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
        this.naks = new NakSchedule(MAX_NAK_GAPS, settings.nakDelayNs(), settings.nakRetryNs(), settings.nakRetryMaxNs(),
            new FeedbackDelay(settings.nakBackoffNs(), settings.nakGroupSize(), random));
        this.consumed = startPosition;
        this.highest = startPosition;
        this.lastStatusConsumed = startPosition;
        ranges.reset(startPosition);
    }

    /**
     * The group is joined: from now on the receiver NAKs its gaps and reports its status (the first at once), and
     * watches the publisher's liveness.
     */
    public void activate(final long nowNs)
    {
        if (!active)
        {
            active = true;
            lastHeardNs = nowNs;
            lastStatusNs = nowNs - settings.statusIntervalNs();
        }
    }

    /**
     * A DATA datagram of this stream, its header validated and its source checked.
     *
     * @param buffer holding the datagram (header included).
     */
    public void onData(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (failed)
        {
            return;
        }
        datagrams++;
        lastHeardNs = nowNs;
        final int flags = MulticastHeader.flags(buffer, offset);
        final long position = MulticastHeader.position(buffer, offset);
        final int count = MulticastHeader.dataLength(buffer, offset);
        final long end = position + count;
        if ((flags & MulticastHeader.FLAG_RETRANSMIT) != 0)
        {
            repairsReceived++;
        }
        else if (end > echoEnd)
        {
            echoEnd = end;
            echoTimestampNs = MulticastHeader.timestampNs(buffer, offset);
            echoArrivalNs = nowNs;
        }
        // What the stream has reached (a heartbeat carries no bytes and says only that), within the image.
        final long reach = Math.min(end, consumed + capacity);
        if (reach > highest)
        {
            highest = reach;
            gapsChanged = true;
        }
        if (count == 0)
        {
            return;
        }
        final long from = Math.max(position, ranges.rebuild());
        final long to = Math.min(end, consumed + capacity);
        if (to <= from)
        {
            if (end > consumed + capacity)
            {
                outOfWindow++;
            }
            else
            {
                duplicates++;
            }
            return;
        }
        bytes += to - from;
        copyIn(buffer, offset + MulticastHeader.DATA_HEADER_LENGTH + (int)(from - position), from, (int)(to - from));
        if (!ranges.add(from, to))
        {
            rangeOverflows++; // asked for again later: every range slot holds bytes ahead of a gap
            return;
        }
        gapsChanged = true;
    }

    /**
     * LOST: the publisher no longer has the bytes below {@code position}; the stream goes on there.
     */
    public void onLost(final long position, final long nowNs)
    {
        lastHeardNs = nowNs;
        if (failed || position <= ranges.rebuild())
        {
            return;
        }
        final long from = ranges.rebuild();
        lostBytes += position - from;
        ranges.skipTo(position);
        highest = Math.max(highest, ranges.rebuild());
        naks.clear();
        gapsChanged = true;
        // Whole records received below the loss are still delivered first; the one the loss cuts is dropped.
        if (pendingLossFrom < 0)
        {
            pendingLossFrom = from;
        }
        pendingLossTo = Math.max(pendingLossTo, position);
    }

    /**
     * One duty cycle: hands whole records to the consumer, NAKs due gaps, reports status.
     *
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        if (failed)
        {
            return 0;
        }
        int work = deliver();
        if (!active || failed)
        {
            return work;
        }
        if (gapsChanged)
        {
            gapsChanged = false;
            final int gaps = ranges.gaps(highest, gapStarts, gapEnds);
            naks.update(gapStarts, gapEnds, gaps, nowNs);
        }
        if (naks.count() > 0)
        {
            work += naks.sendDue(nowNs, Math.min(window, MulticastHeader.MAX_NAK_LENGTH), nakSender);
        }
        if (nowNs - lastStatusNs >= settings.statusIntervalNs() || consumed - lastStatusConsumed >= window / 4)
        {
            work += sendStatus(nowNs) ? 1 : 0;
        }
        return work;
    }

    private int deliver()
    {
        int frames = 0;
        while (frames < FRAMES_PER_CYCLE)
        {
            final long limit = pendingLossFrom >= 0 ? Math.min(pendingLossFrom, ranges.rebuild()) : ranges.rebuild();
            if (consumed >= limit)
            {
                if (pendingLossFrom >= 0)
                {
                    // The record the loss cut, if any, is dropped with it: resume at the publisher's position.
                    final long from = consumed;
                    consumed = pendingLossTo;
                    pendingLossFrom = -1;
                    consumer.onLoss(from, consumed);
                    continue;
                }
                break;
            }
            final int index = (int)(consumed & mask);
            final int toEnd = capacity - index;
            if (toEnd < LENGTH_PREFIX)
            {
                consumed += toEnd;
                continue;
            }
            if (limit - consumed < LENGTH_PREFIX)
            {
                break;
            }
            final int length = image.getInt(index, ByteOrder.LITTLE_ENDIAN);
            if (length < 0)
            {
                final int skip = -length;
                if (skip < LENGTH_PREFIX || skip > toEnd)
                {
                    return corrupt("a skip of " + skip + " bytes at position " + consumed + " (" + toEnd +
                        " bytes to the end of the ring)");
                }
                if (consumed + skip > limit)
                {
                    break;
                }
                consumed += skip;
                continue;
            }
            if (length == 0 || length > maxFrameLength || LENGTH_PREFIX + length > toEnd)
            {
                return corrupt("a record of " + length + " bytes at position " + consumed + " (longest frame " +
                    maxFrameLength + ", " + toEnd + " bytes to the end of the ring)");
            }
            if (consumed + LENGTH_PREFIX + length > limit)
            {
                break;
            }
            if (!consumer.onFrame(image, index + LENGTH_PREFIX, length))
            {
                break;
            }
            consumed += LENGTH_PREFIX + length;
            frames++;
            if (failed)
            {
                break;
            }
        }
        return frames;
    }

    private int corrupt(final String reason)
    {
        failed = true;
        consumer.onCorrupt("the multicast stream of session " + Integer.toHexString(sessionId) + " breaks the record " +
            "format: " + reason);
        return 1;
    }

    /** The consumer found a frame it cannot take: the image stops, as for a corrupt record. */
    public void fail()
    {
        failed = true;
    }

    private boolean sendNak(final long position, final long length)
    {
        final int nak = MulticastHeader.writeNak(control, 0, sessionId, receiverId, position, (int)length);
        if (!endpoint.send(publisherPeer, control, 0, nak))
        {
            sendBackPressure++;
            return false;
        }
        return true;
    }

    private boolean sendStatus(final long nowNs)
    {
        final long hold = echoEnd < 0 ? 0 : nowNs - echoArrivalNs;
        final int length = MulticastHeader.writeStatus(control, 0, sessionId, receiverId, consumed,
            Math.max(consumed, ranges.rebuild()), window, echoEnd < 0 ? 0 : echoTimestampNs, Math.max(0, hold));
        if (!endpoint.send(publisherPeer, control, 0, length))
        {
            sendBackPressure++;
            return false;
        }
        lastStatusNs = nowNs;
        lastStatusConsumed = consumed;
        statusSent++;
        return true;
    }

    private void copyIn(final DirectBuffer buffer, final int offset, final long position, final int length)
    {
        final int index = (int)(position & mask);
        final int first = Math.min(length, capacity - index);
        image.putBytes(index, buffer, offset, first);
        if (first < length)
        {
            image.putBytes(0, buffer, offset + first, length - first);
        }
    }

    // ------------------------------------------------------------------------------------------- state

    /** @return true once the group is joined and the receiver reports. */
    public boolean isActive()
    {
        return active;
    }

    /** @return true once the stream broke the record format or the consumer failed it. */
    public boolean isFailed()
    {
        return failed;
    }

    /** @return true when an active receiver has heard nothing of its stream for the timeout. */
    public boolean isSilent(final long nowNs)
    {
        return active && nowNs - lastHeardNs > settings.timeoutNs();
    }

    public int sessionId()
    {
        return sessionId;
    }

    public int receiverId()
    {
        return receiverId;
    }

    public int publisherPeer()
    {
        return publisherPeer;
    }

    /** @return the position after the last record handed to the consumer. */
    public long consumed()
    {
        return consumed;
    }

    /** @return the position below which every byte arrived. */
    public long received()
    {
        return ranges.rebuild();
    }

    /** @return the furthest position the stream is known to have reached. */
    public long highest()
    {
        return highest;
    }

    /** @return bytes the publisher could no longer repair. */
    public long lostBytes()
    {
        return lostBytes;
    }

    public long datagrams()
    {
        return datagrams;
    }

    public long bytes()
    {
        return bytes;
    }

    public long repairsReceived()
    {
        return repairsReceived;
    }

    /** @return datagrams that brought nothing new (below the rebuild position). */
    public long duplicates()
    {
        return duplicates;
    }

    public long outOfWindow()
    {
        return outOfWindow;
    }

    public long rangeOverflows()
    {
        return rangeOverflows;
    }

    public long naksSent()
    {
        return naks.naksSent();
    }

    /** @return gaps that closed before this receiver NAKed them (another's NAK, or reordering, filled them). */
    public long naksSuppressed()
    {
        return naks.suppressed();
    }

    public long statusSent()
    {
        return statusSent;
    }

    public long sendBackPressure()
    {
        return sendBackPressure;
    }

    @Override
    public String toString()
    {
        return "MulticastReceiver{session=" + Integer.toHexString(sessionId) + ", receiver=" + receiverId +
            ", consumed=" + consumed + ", " + ranges + ", highest=" + highest + ", naks=" + naks.naksSent() + "}";
    }
}
