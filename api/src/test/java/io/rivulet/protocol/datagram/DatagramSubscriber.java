package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayList;

/**
 * Test support (the api test-jar): a bare reliable-datagram subscriber over a {@code DatagramEndpoint}, without
 * connections or topics, so that the reliable-datagram protocol (windows, NAKs, Swift) is tested and simulated on
 * its own. Production carries topic data through {@link DatagramChannels} and {@link TopicDatagrams}.
 *
 * The subscriber side over a {@link DatagramEndpoint}: one {@link ReliableReceiver} per publisher path,
 * DATA routed to it by session id, ACKs and NAKs sent back from {@link #doWork}. Bad datagrams are dropped
 * and counted ({@link #malformedDatagrams()}, unknown sessions, ACK/NAK sent to a subscriber).
 * Allocation-free in steady state. One thread.
 */
public final class DatagramSubscriber implements DatagramEndpoint.DatagramHandler
{
    private final DatagramSettings settings;
    private final DatagramEndpoint endpoint;
    private final DatagramMessageHandler handler;
    private final int pollLimit;
    private final ArrayList<ReliableReceiver> receivers = new ArrayList<>();
    private final Int2ObjectHashMap<ReliableReceiver> receiversBySession = new Int2ObjectHashMap<>();
    private long nowNs;
    private long malformedDatagrams;
    private long unknownSessions;
    private long unexpectedDatagrams;
    private int lastError;

    /**
     * @param settings validated settings, the same as the publisher's.
     * @param endpoint the subscriber's datagram endpoint.
     * @param handler  receives every path's messages, in order per path.
     */
    public DatagramSubscriber(
        final DatagramSettings settings, final DatagramEndpoint endpoint, final DatagramMessageHandler handler)
    {
        settings.validate();
        this.settings = settings;
        this.endpoint = endpoint;
        this.handler = handler;
        this.pollLimit = Math.max(64, settings.window());
    }

    /**
     * Expects a publisher's path.
     *
     * @param peer            the publisher's handle on the endpoint (ACKs and NAKs go there).
     * @param sessionId       agreed with the publisher.
     * @param initialSequence agreed with the publisher.
     * @return the path, for its counters.
     */
    public ReliableReceiver addPublisher(final int peer, final int sessionId, final int initialSequence)
    {
        if (receiversBySession.containsKey(sessionId))
        {
            throw new IllegalArgumentException("session " + sessionId + " already has a path");
        }
        final ReliableReceiver receiver =
            new ReliableReceiver(settings, endpoint, peer, sessionId, initialSequence, handler);
        receivers.add(receiver);
        receiversBySession.put(sessionId, receiver);
        return receiver;
    }

    /** @return true when the path existed. */
    public boolean removePublisher(final int sessionId)
    {
        final ReliableReceiver receiver = receiversBySession.remove(sessionId);
        return receiver != null && receivers.remove(receiver);
    }

    /**
     * Reads DATA and sends the ACKs and NAKs that are due.
     *
     * @return work done (datagrams received and sent).
     */
    public int doWork(final long nowNs)
    {
        this.nowNs = nowNs;
        int work = endpoint.poll(this, pollLimit);
        for (int i = 0, n = receivers.size(); i < n; i++)
        {
            work += receivers.get(i).doWork(nowNs);
        }
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
        if (type != DatagramHeader.TYPE_DATA)
        {
            unexpectedDatagrams++;
            return;
        }
        final ReliableReceiver receiver = receiversBySession.get(DatagramHeader.sessionId(buffer, offset));
        // When the endpoint knows the source, only the path's own publisher may send its DATA.
        if (receiver == null || (peer != DatagramEndpoint.UNKNOWN_PEER && peer != receiver.peer()))
        {
            unknownSessions++;
            return;
        }
        receiver.onDatagram(buffer, offset, nowNs);
    }

    /** @return the number of publisher paths. */
    public int publisherCount()
    {
        return receivers.size();
    }

    /** @return a path by index. */
    public ReliableReceiver publisher(final int index)
    {
        return receivers.get(index);
    }

    /** @return the path of a session, or null. */
    public ReliableReceiver publisherBySession(final int sessionId)
    {
        return receiversBySession.get(sessionId);
    }

    /** @return datagrams dropped for a bad header. */
    public long malformedDatagrams()
    {
        return malformedDatagrams;
    }

    /** @return the reason of the last malformed datagram. */
    public String lastError()
    {
        return DatagramHeader.describe(lastError);
    }

    /** @return DATA for no known path, or from a peer that is not the path's publisher. */
    public long unknownSessions()
    {
        return unknownSessions;
    }

    /** @return ACKs or NAKs received by a subscriber. */
    public long unexpectedDatagrams()
    {
        return unexpectedDatagrams;
    }
}
