package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;

/**
 * Test support (the api test-jar): a bare reliable-datagram publisher over a {@code DatagramEndpoint}, without
 * connections or topics, so that the reliable-datagram protocol (windows, NAKs, Swift) is tested and simulated on
 * its own. Production carries topic data through {@link DatagramChannels} and {@link TopicDatagrams}.
 *
 * One publisher fanning messages out reliably over a {@link DatagramEndpoint}: each message is stored
 * once in a {@link DatagramRing} and sent to every subscriber path by its own {@link ReliableSender}
 * (own sequence numbers, window, RTT and congestion control). A ring slot is reused once every live path
 * has acknowledged it, so the slowest path back-pressures {@link #offer} (the topic layer decides what to
 * do with a path that stays slow). Receives ACKs and NAKs and routes them by session id.
 *
 * <p>Bad datagrams are dropped and counted, never thrown: a malformed header ({@link #malformedDatagrams()}),
 * an unknown session, or a DATA datagram sent to a publisher. An ACK or NAK naming datagrams never sent
 * fails only its path ({@link ReliableSender#isFailed()}); the others keep going.
 *
 * <p>Allocation-free in steady state; adding and removing paths allocates. One thread.
 */
public final class DatagramPublisher implements DatagramEndpoint.DatagramHandler
{
    private final DatagramSettings settings;
    private final DatagramEndpoint endpoint;
    private final DatagramRing ring;
    private final int pollLimit;
    private final ArrayList<ReliableSender> senders = new ArrayList<>();
    private final Int2ObjectHashMap<ReliableSender> sendersBySession = new Int2ObjectHashMap<>();
    private long nowNs;
    private long malformedDatagrams;
    private long unknownSessions;
    private long unexpectedDatagrams;
    private int lastError;

    /**
     * @param settings validated settings; not changed afterwards.
     * @param endpoint the datagram endpoint all paths share.
     */
    public DatagramPublisher(final DatagramSettings settings, final DatagramEndpoint endpoint)
    {
        settings.validate();
        if (endpoint.maxDatagramLength() < settings.maxDatagramLength())
        {
            throw new IllegalArgumentException("endpoint carries " + endpoint.maxDatagramLength() +
                " bytes, below maxPayload " + settings.maxPayload() + " + " + DatagramHeader.DATA_HEADER_LENGTH);
        }
        this.settings = settings;
        this.endpoint = endpoint;
        // Stored once: where the endpoint can send from its own registered memory, the ring lives there.
        final UnsafeBuffer region = endpoint.allocateSendRegion(
            DatagramRing.bytesFor(settings.ringLength(), settings.maxPayload()));
        this.ring = region != null ? new DatagramRing(settings.ringLength(), settings.maxPayload(), region) :
            new DatagramRing(settings.ringLength(), settings.maxPayload());
        this.pollLimit = Math.max(64, settings.window());
    }

    /**
     * Adds a subscriber path that receives every message offered from now on.
     *
     * @param peer            the subscriber's handle on the endpoint.
     * @param sessionId       unique among this publisher's paths; agreed with the subscriber.
     * @param initialSequence sequence of the path's first message; agreed with the subscriber.
     * @return the path, for its counters.
     */
    public ReliableSender addSubscriber(final int peer, final int sessionId, final int initialSequence)
    {
        if (sendersBySession.containsKey(sessionId))
        {
            throw new IllegalArgumentException("session " + sessionId + " already has a path");
        }
        final ReliableSender sender =
            new ReliableSender(settings, ring, endpoint, peer, sessionId, initialSequence, ring.position());
        senders.add(sender);
        sendersBySession.put(sessionId, sender);
        return sender;
    }

    /** @return true when the path existed; its unacknowledged messages no longer hold the ring. */
    public boolean removeSubscriber(final int sessionId)
    {
        final ReliableSender sender = sendersBySession.remove(sessionId);
        if (sender == null)
        {
            return false;
        }
        senders.remove(sender);
        releaseRing();
        return true;
    }

    /**
     * Stores a message for every path.
     *
     * @return its ring position, or {@link DatagramRing#BACK_PRESSURED} when the slowest path holds the ring.
     * @throws IllegalArgumentException when longer than {@code maxPayload}.
     */
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        return ring.append(buffer, offset, length);
    }

    /**
     * Reads ACKs and NAKs, lets every path send and retransmit, and frees acknowledged slots.
     *
     * @return work done (datagrams received and sent).
     */
    public int doWork(final long nowNs)
    {
        this.nowNs = nowNs;
        int work = endpoint.poll(this, pollLimit);
        for (int i = 0, n = senders.size(); i < n; i++)
        {
            work += senders.get(i).doWork(nowNs);
        }
        releaseRing();
        return work;
    }

    @Override
    public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        final int type = DatagramHeader.validate(buffer, offset, length, settings.maxPayload(), settings.window());
        if (type < 0)
        {
            malformedDatagrams++;
            lastError = type;
            return;
        }
        if (type == DatagramHeader.TYPE_DATA)
        {
            unexpectedDatagrams++;
            return;
        }
        final ReliableSender sender = sendersBySession.get(DatagramHeader.sessionId(buffer, offset));
        // When the endpoint knows the source, only the path's own subscriber may speak for it.
        if (sender == null || (peer != DatagramEndpoint.UNKNOWN_PEER && peer != sender.peer()))
        {
            unknownSessions++;
            return;
        }
        sender.onControl(type, buffer, offset, nowNs);
    }

    private void releaseRing()
    {
        long lowest = ring.position();
        for (int i = 0, n = senders.size(); i < n; i++)
        {
            final ReliableSender sender = senders.get(i);
            if (!sender.isFailed())
            {
                lowest = Math.min(lowest, sender.ackedPosition());
            }
        }
        ring.release(lowest, endpoint.sendsCompleted());
    }

    /** @return the number of subscriber paths. */
    public int subscriberCount()
    {
        return senders.size();
    }

    /** @return a path by index, {@code 0 <= index < subscriberCount()}. */
    public ReliableSender subscriber(final int index)
    {
        return senders.get(index);
    }

    /** @return the path of a session, or null. */
    public ReliableSender subscriberBySession(final int sessionId)
    {
        return sendersBySession.get(sessionId);
    }

    public DatagramRing ring()
    {
        return ring;
    }

    /** @return datagrams dropped for a bad header. */
    public long malformedDatagrams()
    {
        return malformedDatagrams;
    }

    /** @return the reason of the last malformed datagram, as {@link DatagramHeader#describe}. */
    public String lastError()
    {
        return DatagramHeader.describe(lastError);
    }

    /** @return ACKs or NAKs for no known path, or from a peer that is not the path's subscriber. */
    public long unknownSessions()
    {
        return unknownSessions;
    }

    /** @return DATA datagrams received by a publisher. */
    public long unexpectedDatagrams()
    {
        return unexpectedDatagrams;
    }
}
