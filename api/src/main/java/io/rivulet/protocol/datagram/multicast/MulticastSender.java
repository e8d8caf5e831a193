package io.rivulet.protocol.datagram.multicast;

import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * The publisher's side of one multicast stream (one session): sends the bytes of its {@link Source} to a group once,
 * whatever the number of receivers, and keeps no copy of its own — the source (the topic's log) is the store that
 * repairs come from.
 *
 * <ul>
 *   <li><b>Sending.</b> Each cycle, the bytes from its position up to what the source makes available, within the
 *       flow control limit ({@link MulticastFlowControl}) and the congestion window's pace ({@link MulticastCongestion}),
 *       cut into datagrams of at most the endpoint's length and never across the end of the source's ring. With no
 *       receiver there is nothing to send and the position follows the source. An idle stream sends a heartbeat
 *       (DATA with no bytes) every heartbeat interval, so that a lost last datagram is seen.</li>
 *   <li><b>Repairs.</b> A NAK from a known receiver for bytes it was sent is answered from the source: to the group
 *       when another receiver may lack the same bytes (it has not reported them received), else to the NAKer alone.
 *       Bytes repaired to the group are not repaired again for a round trip, at most {@code repairLinger} (one
 *       repair in flight per loss), nor bytes repaired to one receiver for that receiver. Bytes the source no longer holds are answered with
 *       LOST, so that the receiver goes on with an explicit gap instead of waiting.</li>
 *   <li><b>Receivers</b> ({@link MulticastReceiverState}) are added and removed by the owner (the topic layer, which
 *       knows its subscribers); one without a status message for the timeout is {@code TIMED_OUT}. Their consumed
 *       positions are what the owner holds the source at.</li>
 * </ul>
 *
 * <p>Threading: the thread that owns the publishing endpoint and reads the source (the topic sender's). Nothing is
 * allocated per datagram.
 */
public final class MulticastSender
{
    /** What the stream sends: a ring of bytes at positions that never wrap (a topic's log). */
    public interface Source
    {
        /** @return the ring. */
        DirectBuffer buffer();

        /** @return the ring's length, a power of two. */
        int capacity();

        /** @return the position up to which bytes may be sent (exclusive). */
        long available();

        /** @return the oldest position whose bytes are still in the ring: repairs below it are lost. */
        long retained();
    }

    private static final int MAX_DATAGRAMS_PER_CYCLE = 64;
    private static final int MAX_REPAIR_DATAGRAMS_PER_CYCLE = 64;
    private static final int REPAIR_QUEUE = 256;
    private static final int LINGER_ENTRIES = 64;
    private static final int TO_GROUP = -1;

    private final MulticastSettings settings;
    private final MulticastEndpoint endpoint;
    private final int group;
    private final int sessionId;
    private final Source source;
    private final int mask;
    private final int capacity;
    private final int maxPayload;
    private final UnsafeBuffer datagram;
    private final Int2ObjectHashMap<MulticastReceiverState> byId = new Int2ObjectHashMap<>();
    private final ArrayList<MulticastReceiverState> receivers = new ArrayList<>();
    private final MulticastFlowControl flowControl;
    private final MulticastCongestion congestion;

    // Repairs waiting to go, a ring.
    private final long[] repairOrigin = new long[REPAIR_QUEUE];
    private final long[] repairFrom = new long[REPAIR_QUEUE];
    private final long[] repairTo = new long[REPAIR_QUEUE];
    private final int[] repairDestination = new int[REPAIR_QUEUE];
    private int repairHead;
    private int repairTail;
    // Repairs recently sent, for the linger.
    private final long[] sentFrom = new long[LINGER_ENTRIES];
    private final long[] sentTo = new long[LINGER_ENTRIES];
    private final long[] sentAtNs = new long[LINGER_ENTRIES];
    private final int[] sentDestination = new int[LINGER_ENTRIES];
    private int sentNext;

    private long position;
    private int nextReceiverId = 1;
    private boolean joined;
    private String failure;
    private long lastSendNs;

    private long datagramsSent;
    private long bytesSent;
    private long heartbeatsSent;
    private long repairsToGroup;
    private long repairsToReceiver;
    private long repairBytes;
    private long repairDatagrams;
    private long naksReceived;
    private long naksLingered;
    private long naksRefused;
    private long lostSent;
    private long statusReceived;
    private long unknownReceivers;
    private long sendBackPressure;
    private long repairQueueOverflows;

    /**
     * @param settings      the protocol's settings, validated.
     * @param endpoint      the publishing endpoint.
     * @param group         the group's handle on it ({@link MulticastEndpoint#joinGroup}, not receiving).
     * @param sessionId     the stream's session, unique on the endpoint.
     * @param source        the bytes to send.
     * @param startPosition where the stream starts.
     */
    public MulticastSender(
        final MulticastSettings settings,
        final MulticastEndpoint endpoint,
        final int group,
        final int sessionId,
        final Source source,
        final long startPosition)
    {
        this.settings = settings;
        this.endpoint = endpoint;
        this.group = group;
        this.sessionId = sessionId;
        this.source = source;
        this.capacity = source.capacity();
        this.mask = capacity - 1;
        this.maxPayload = endpoint.maxDatagramLength() - MulticastHeader.DATA_HEADER_LENGTH;
        if (maxPayload < 64)
        {
            throw new IllegalArgumentException("the endpoint's datagrams of " + endpoint.maxDatagramLength() +
                " bytes leave no room for a multicast payload");
        }
        this.datagram = new UnsafeBuffer(ByteBuffer.allocateDirect(endpoint.maxDatagramLength()));
        this.flowControl = new MulticastFlowControl(settings);
        final int receiverWindow = Math.min(settings.receiverWindow(), capacity / 2);
        this.congestion = settings.congestionControl() ?
            new MulticastCongestion(settings, maxPayload, Math.max(1, receiverWindow / maxPayload)) : null;
        this.position = startPosition;
    }

    // ------------------------------------------------------------------------------------------- receivers

    /**
     * Adds a receiver whose stream starts at {@code startPosition}; it counts for flow control from its first status
     * message.
     *
     * @param peer the receiver's handle on the publishing endpoint (resolved by the owner).
     * @param tag  its tag, for tagged flow control.
     */
    public MulticastReceiverState addReceiver(final int peer, final long tag, final long startPosition, final long nowNs)
    {
        int id = nextReceiverId;
        while (id == 0 || byId.containsKey(id))
        {
            id++;
        }
        nextReceiverId = id + 1;
        final MulticastReceiverState receiver = new MulticastReceiverState(id, peer, tag, startPosition, nowNs);
        receiver.window = Math.min(settings.receiverWindow(), capacity / 2);
        byId.put(id, receiver);
        receivers.add(receiver);
        return receiver;
    }

    /** The receiver is gone; nothing more is sent for it. */
    public void removeReceiver(final MulticastReceiverState receiver)
    {
        if (byId.remove(receiver.id) != null)
        {
            receivers.remove(receiver);
        }
        receiver.state = MulticastReceiverState.REMOVED;
    }

    /** @return receivers added and not removed. */
    public int receiverCount()
    {
        return receivers.size();
    }

    // ------------------------------------------------------------------------------------------- control

    /**
     * A NAK for this session, its header validated.
     *
     * @param peer the sender's handle on the endpoint (or UNKNOWN_PEER).
     */
    public void onNak(final int peer, final DirectBuffer buffer, final int offset, final long nowNs)
    {
        final MulticastReceiverState receiver = byId.get(MulticastHeader.receiverId(buffer, offset));
        if (receiver == null || receiver.peer != peer || !receiver.isLive())
        {
            unknownReceivers++;
            return;
        }
        naksReceived++;
        receiver.naksReceived++;
        final long from = MulticastHeader.position(buffer, offset);
        final long to = Math.min(from + MulticastHeader.nakLength(buffer, offset), position);
        if (from >= position || from < receiver.start)
        {
            naksRefused++; // bytes it was never sent: a confused or lying receiver, ignored
            return;
        }
        final int destination = needsGroup(receiver, to) ? TO_GROUP : peer;
        if (lingering(from, to, destination, nowNs) || queued(from, to, destination))
        {
            naksLingered++;
            return;
        }
        final int next = (repairTail + 1) % REPAIR_QUEUE;
        if (next == repairHead)
        {
            repairQueueOverflows++; // the receiver asks again after its retry interval
            return;
        }
        repairOrigin[repairTail] = from;
        repairFrom[repairTail] = from;
        repairTo[repairTail] = to;
        repairDestination[repairTail] = destination;
        repairTail = next;
    }

    /**
     * A STATUS for this session, its header validated.
     *
     * @param peer the sender's handle on the endpoint (or UNKNOWN_PEER).
     */
    public void onStatus(final int peer, final DirectBuffer buffer, final int offset, final long nowNs)
    {
        final MulticastReceiverState receiver = byId.get(MulticastHeader.receiverId(buffer, offset));
        if (receiver == null || receiver.peer != peer || receiver.state == MulticastReceiverState.REMOVED)
        {
            unknownReceivers++;
            return;
        }
        statusReceived++;
        receiver.statusReceived++;
        if (receiver.state == MulticastReceiverState.PENDING)
        {
            receiver.state = MulticastReceiverState.ACTIVE;
        }
        // Never beyond what was sent (or where the receiver started, which may be ahead of the stream when it joined at
        // the keeper while the stream waited for a slower receiver), never backwards: a lying receiver cannot move the
        // publisher's hold on the log.
        final long ceiling = Math.max(position, receiver.start);
        final long consumed = Math.max(Math.min(MulticastHeader.position(buffer, offset), ceiling), receiver.consumed);
        receiver.consumed = consumed;
        receiver.received = Math.max(Math.min(MulticastHeader.received(buffer, offset), ceiling), consumed);
        receiver.window = Math.min(MulticastHeader.window(buffer, offset), capacity);
        receiver.lastStatusNs = nowNs;
        final long echo = MulticastHeader.echoTimestampNs(buffer, offset);
        if (echo != 0)
        {
            final long delay = nowNs - echo - MulticastHeader.holdNs(buffer, offset);
            if (delay >= 0 && delay < settings.timeoutNs())
            {
                receiver.delayNs = delay;
                receiver.delayAtNs = nowNs;
            }
        }
    }

    // ------------------------------------------------------------------------------------------- duty cycle

    /**
     * Sends what is due: repairs first, then new bytes, or a heartbeat.
     *
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        if (!joined)
        {
            final int state = endpoint.groupState(group);
            if (state == MulticastEndpoint.GROUP_FAILED && failure == null)
            {
                failure = endpoint.groupFailure(group);
            }
            if (state != MulticastEndpoint.GROUP_JOINED)
            {
                position = Math.max(position, source.available()); // nobody can be reached yet: nothing is owed
                return 0;
            }
            joined = true;
        }
        checkTimeouts(nowNs);
        int work = serveRepairs(nowNs);
        work += sendNew(nowNs);
        if (work == 0 && !receivers.isEmpty() && nowNs - lastSendNs >= settings.heartbeatIntervalNs())
        {
            work += heartbeat(nowNs);
        }
        return work;
    }

    private void checkTimeouts(final long nowNs)
    {
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            final MulticastReceiverState receiver = receivers.get(i);
            if (receiver.isLive() && nowNs - receiver.lastStatusNs > settings.timeoutNs())
            {
                receiver.state = MulticastReceiverState.TIMED_OUT;
            }
        }
    }

    private int sendNew(final long nowNs)
    {
        final long available = source.available();
        final long retained = source.retained();
        if (position < retained)
        {
            position = retained; // cannot happen while the owner holds the source for its receivers; never read stale bytes
        }
        if (!flowControl.evaluate(receivers, nowNs))
        {
            if (!hasLiveReceivers())
            {
                position = Math.max(position, available); // no receiver: nothing owed, the stream follows the source
            }
            return 0;
        }
        long limit = Math.min(available, flowControl.limit());
        if (congestion != null)
        {
            congestion.onProgress(nowNs, flowControl.reference(), flowControl.slowestDelayNs());
            final long budget = congestion.sendable(nowNs, flowControl.reference(), position);
            if (budget < limit - position)
            {
                // Paced by whole datagrams: a budget that refills every cycle would otherwise go out as runts of a
                // few bytes each (measured: 11 bytes a datagram, records split), costing a send and a header apiece.
                final long whole = budget / maxPayload * maxPayload;
                if (whole == 0)
                {
                    return 0;
                }
                limit = position + whole;
            }
        }
        int sent = 0;
        while (position < limit && sent < MAX_DATAGRAMS_PER_CYCLE)
        {
            final int index = (int)(position & mask);
            final int length = (int)Math.min(Math.min(maxPayload, limit - position), capacity - index);
            if (!send(group, 0, position, index, length, nowNs))
            {
                break;
            }
            position += length;
            bytesSent += length;
            sent++;
            if (congestion != null)
            {
                congestion.onSent(length);
            }
        }
        return sent;
    }

    private boolean hasLiveReceivers()
    {
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            if (receivers.get(i).isLive())
            {
                return true;
            }
        }
        return false;
    }

    private int heartbeat(final long nowNs)
    {
        MulticastHeader.writeData(datagram, 0, 0, sessionId, position, 0, nowNs);
        if (!endpoint.send(group, datagram, 0, MulticastHeader.DATA_HEADER_LENGTH))
        {
            sendBackPressure++;
            return 0;
        }
        lastSendNs = nowNs;
        heartbeatsSent++;
        return 1;
    }

    private int serveRepairs(final long nowNs)
    {
        int sent = 0;
        while (repairHead != repairTail && sent < MAX_REPAIR_DATAGRAMS_PER_CYCLE)
        {
            final int destination = repairDestination[repairHead];
            long from = repairFrom[repairHead];
            final long to = repairTo[repairHead];
            final long retained = source.retained();
            if (from < retained)
            {
                if (!sendLost(destination, retained, nowNs))
                {
                    break;
                }
                from = retained;
                repairFrom[repairHead] = from;
                if (from >= to)
                {
                    repairHead = (repairHead + 1) % REPAIR_QUEUE;
                    continue;
                }
            }
            final int index = (int)(from & mask);
            final int length = (int)Math.min(Math.min(maxPayload, to - from), capacity - index);
            if (!send(destination == TO_GROUP ? group : destination, MulticastHeader.FLAG_RETRANSMIT, from, index, length,
                nowNs))
            {
                break;
            }
            repairBytes += length;
            repairDatagrams++;
            sent++;
            if (from + length >= to)
            {
                linger(repairOrigin[repairHead], to, destination, nowNs);
                if (destination == TO_GROUP)
                {
                    repairsToGroup++;
                }
                else
                {
                    repairsToReceiver++;
                }
                repairHead = (repairHead + 1) % REPAIR_QUEUE;
            }
            else
            {
                repairFrom[repairHead] = from + length;
            }
        }
        return sent;
    }

    /** LOST to the receiver(s) whose repair fell below what the source holds; at most once per linger each. */
    private boolean sendLost(final int destination, final long retained, final long nowNs)
    {
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            final MulticastReceiverState receiver = receivers.get(i);
            if ((destination == TO_GROUP || receiver.peer == destination) && receiver.isLive() &&
                receiver.received < retained &&
                (receiver.lostSentNs == 0 || nowNs - receiver.lostSentNs >= settings.repairLingerNs()))
            {
                final int length = MulticastHeader.writeLost(datagram, 0, sessionId, receiver.id, retained);
                if (!endpoint.send(receiver.peer, datagram, 0, length))
                {
                    sendBackPressure++;
                    return false;
                }
                receiver.lostSentNs = nowNs;
                lostSent++;
            }
        }
        return true;
    }

    private boolean send(
        final int destination, final int flags, final long streamPosition, final int index, final int length,
        final long nowNs)
    {
        MulticastHeader.writeData(datagram, 0, flags, sessionId, streamPosition, length, nowNs);
        datagram.putBytes(MulticastHeader.DATA_HEADER_LENGTH, source.buffer(), index, length);
        if (!endpoint.send(destination, datagram, 0, MulticastHeader.DATA_HEADER_LENGTH + length))
        {
            sendBackPressure++;
            return false;
        }
        datagramsSent++;
        lastSendNs = nowNs;
        return true;
    }

    /** @return true when a live receiver other than the NAKer may lack bytes below {@code to}. */
    private boolean needsGroup(final MulticastReceiverState naker, final long to)
    {
        for (int i = 0, size = receivers.size(); i < size; i++)
        {
            final MulticastReceiverState other = receivers.get(i);
            if (other != naker && other.isLive() && other.received < to && other.start < to)
            {
                return true;
            }
        }
        return false;
    }

    private boolean lingering(final long from, final long to, final int destination, final long nowNs)
    {
        // A repair is in flight for about a round trip: NAKs sent before it arrived are redundant, later ones are not.
        final long srttNs = congestion == null ? 0 : congestion.srttNs();
        final long lingerNs = srttNs == 0 ? settings.repairLingerNs() : Math.min(settings.repairLingerNs(), srttNs);
        for (int i = 0; i < LINGER_ENTRIES; i++)
        {
            if (sentAtNs[i] != 0 && nowNs - sentAtNs[i] < lingerNs && sentFrom[i] <= from &&
                sentTo[i] >= to && (sentDestination[i] == TO_GROUP || sentDestination[i] == destination))
            {
                return true;
            }
        }
        return false;
    }

    /** A waiting repair already covers the bytes: it goes to the group from now on if this NAK needs that. */
    private boolean queued(final long from, final long to, final int destination)
    {
        for (int i = repairHead; i != repairTail; i = (i + 1) % REPAIR_QUEUE)
        {
            if (repairOrigin[i] <= from && repairTo[i] >= to)
            {
                if (repairDestination[i] != destination)
                {
                    repairDestination[i] = TO_GROUP;
                }
                return true;
            }
        }
        return false;
    }

    private void linger(final long from, final long to, final int destination, final long nowNs)
    {
        sentFrom[sentNext] = from;
        sentTo[sentNext] = to;
        sentAtNs[sentNext] = nowNs == 0 ? 1 : nowNs;
        sentDestination[sentNext] = destination;
        sentNext = (sentNext + 1) % LINGER_ENTRIES;
    }

    // ------------------------------------------------------------------------------------------- state

    /** @return true once the group is joined and the stream sends. */
    public boolean isJoined()
    {
        return joined;
    }

    /** @return why the group could not be joined, null while it has not failed. */
    public String failure()
    {
        return failure;
    }

    public int sessionId()
    {
        return sessionId;
    }

    /** @return the position up to which bytes have been sent (or skipped, with no receiver). */
    public long position()
    {
        return position;
    }

    /** @return the longest payload a datagram carries. */
    public int maxPayload()
    {
        return maxPayload;
    }

    /** @return receivers followed by flow control at the last cycle. */
    public int flowControlMembers()
    {
        return flowControl.members();
    }

    /** @return the congestion window in datagrams, or -1 without congestion control. */
    public double congestionWindow()
    {
        return congestion == null ? -1 : congestion.window();
    }

    /** @return times the congestion window was cut for delay (loss never cuts it). */
    public long congestionDecreases()
    {
        return congestion == null ? 0 : congestion.decreases();
    }

    /** @return the smoothed delay of the slowest receiver followed, 0 before a sample. */
    public long smoothedDelayNs()
    {
        return congestion == null ? 0 : congestion.srttNs();
    }

    public long datagramsSent()
    {
        return datagramsSent;
    }

    public long bytesSent()
    {
        return bytesSent;
    }

    public long heartbeatsSent()
    {
        return heartbeatsSent;
    }

    /** @return repairs sent to the whole group. */
    public long repairsToGroup()
    {
        return repairsToGroup;
    }

    /** @return repairs sent to one receiver only. */
    public long repairsToReceiver()
    {
        return repairsToReceiver;
    }

    /** @return bytes sent as repairs. */
    public long repairBytes()
    {
        return repairBytes;
    }

    /** @return datagrams sent as repairs (to the group or to one receiver). */
    public long repairDatagrams()
    {
        return repairDatagrams;
    }

    public long naksReceived()
    {
        return naksReceived;
    }

    /** @return NAKs answered by a repair already sent or waiting (the linger). */
    public long naksLingered()
    {
        return naksLingered;
    }

    /** @return NAKs for bytes the receiver was never sent. */
    public long naksRefused()
    {
        return naksRefused;
    }

    public long lostSent()
    {
        return lostSent;
    }

    public long statusReceived()
    {
        return statusReceived;
    }

    /** @return NAKs and status messages naming no receiver of this stream, or not from its address. */
    public long unknownReceivers()
    {
        return unknownReceivers;
    }

    public long sendBackPressure()
    {
        return sendBackPressure;
    }

    public long repairQueueOverflows()
    {
        return repairQueueOverflows;
    }

    @Override
    public String toString()
    {
        return "MulticastSender{session=" + Integer.toHexString(sessionId) + ", position=" + position + ", receivers=" +
            receivers.size() + ", sent=" + datagramsSent + ", repairs=" + repairsToGroup + "/" + repairsToReceiver + "}";
    }
}
