package io.rivulet.protocol.datagram.multicast;

import io.rivulet.counters.MulticastSendCounters;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.spi.MulticastSettings;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A node's publishing side of multicast: its one publishing {@link MulticastEndpoint}, the groups it sends to, and a
 * {@link MulticastSender} per stream. It polls the endpoint for its receivers' NAKs and status messages and routes them
 * by session; a datagram that is malformed, of another type, or of no stream of this node is dropped and counted.
 *
 * <p>Threading: the thread that sends topic data (the topic sender's), for everything; the endpoint belongs to it.
 */
public final class MulticastSenders implements DatagramEndpoint.DatagramHandler, AutoCloseable
{
    /** How often the streams' statistics reach the counters. */
    private static final long SAMPLE_INTERVAL_NS = 100_000_000L;

    private final MulticastSettings settings;
    private final MulticastEndpoint endpoint;
    private final MulticastGroups groups;
    private final Int2ObjectHashMap<MulticastSender> bySession = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<String> groupOfSession = new Int2ObjectHashMap<>();
    private long nowNs;
    private long malformedDatagrams;
    private long unknownSessions;
    private long unexpectedDatagrams;
    private int lastError;
    private boolean closed;
    private MulticastSendCounters counters;
    private long nextSampleNs;
    // Totals of the streams that ended, so the counters never go back when one closes.
    private long retiredDatagrams;
    private long retiredBytes;
    private long retiredNaks;
    private long retiredRepairsToGroup;
    private long retiredRepairsToReceiver;
    private long retiredRepairDatagrams;
    private long retiredLost;

    /**
     * @param settings the protocol's settings, validated.
     * @param endpoint the node's publishing endpoint; closed with this.
     */
    public MulticastSenders(final MulticastSettings settings, final MulticastEndpoint endpoint)
    {
        this.settings = settings;
        this.endpoint = endpoint;
        this.groups = new MulticastGroups(endpoint, false);
    }

    /**
     * Starts a stream to a group (joining it for sending if no stream of this node uses it yet).
     *
     * @param group         the group, in the endpoint's form.
     * @param source        what the stream sends.
     * @param startPosition where it starts.
     * @return the stream; it sends once the group is joined.
     * @throws IllegalArgumentException when the endpoint refuses the group's name.
     */
    public MulticastSender open(final String group, final MulticastSender.Source source, final long startPosition)
    {
        final int handle = groups.acquire(group);
        int sessionId;
        do
        {
            sessionId = ThreadLocalRandom.current().nextInt();
        }
        while (sessionId == 0 || bySession.containsKey(sessionId));
        final MulticastSender sender = new MulticastSender(settings, endpoint, handle, sessionId, source, startPosition);
        bySession.put(sessionId, sender);
        groupOfSession.put(sessionId, group);
        return sender;
    }

    /** The stream ended: its NAKs and status messages are dropped from now on, its group left if it was the last. */
    public void close(final MulticastSender sender)
    {
        if (bySession.remove(sender.sessionId()) != null)
        {
            groups.release(groupOfSession.remove(sender.sessionId()));
            retiredDatagrams += sender.datagramsSent();
            retiredBytes += sender.bytesSent();
            retiredNaks += sender.naksReceived();
            retiredRepairsToGroup += sender.repairsToGroup();
            retiredRepairsToReceiver += sender.repairsToReceiver();
            retiredRepairDatagrams += sender.repairDatagrams();
            retiredLost += sender.lostSent();
        }
    }

    /** Gives the plane its counters, which it fills about every 100 ms from its polls and closes with itself. */
    public void counters(final MulticastSendCounters counters)
    {
        this.counters = counters;
    }

    private void sampleCounters()
    {
        long datagrams = retiredDatagrams;
        long bytes = retiredBytes;
        long naks = retiredNaks;
        long toGroup = retiredRepairsToGroup;
        long toReceiver = retiredRepairsToReceiver;
        long repairDatagrams = retiredRepairDatagrams;
        long lost = retiredLost;
        long receivers = 0;
        double smallestWindow = Double.MAX_VALUE;
        for (final MulticastSender sender : bySession.values())
        {
            datagrams += sender.datagramsSent();
            bytes += sender.bytesSent();
            naks += sender.naksReceived();
            toGroup += sender.repairsToGroup();
            toReceiver += sender.repairsToReceiver();
            repairDatagrams += sender.repairDatagrams();
            lost += sender.lostSent();
            receivers += sender.flowControlMembers();
            final double window = sender.congestionWindow();
            if (window >= 0 && window < smallestWindow)
            {
                smallestWindow = window;
            }
        }
        counters.datagramsSent.setRelease(datagrams);
        counters.bytesSent.setRelease(bytes);
        counters.naksReceived.setRelease(naks);
        counters.repairsToGroup.setRelease(toGroup);
        counters.repairsToReceiver.setRelease(toReceiver);
        counters.repairDatagrams.setRelease(repairDatagrams);
        counters.lostSent.setRelease(lost);
        counters.streams.setRelease(bySession.size());
        counters.receivers.setRelease(receivers);
        counters.congestionWindow.setRelease(smallestWindow == Double.MAX_VALUE ? 0 : (long)smallestWindow);
        counters.refused.setRelease(malformedDatagrams);
    }

    /**
     * Resolves a receiver's unicast address, as its node offered it over a connection.
     *
     * @param remoteHost the connection's remote host, for an address with a wildcard host.
     * @throws IllegalArgumentException when the address cannot be parsed.
     */
    public int resolve(final String address, final String remoteHost)
    {
        return endpoint.resolve(address, remoteHost);
    }

    /** @return the address receivers see this node's datagrams come from. */
    public String localAddress()
    {
        return endpoint.localAddress();
    }

    /** @return the payload a datagram of this endpoint carries at most. */
    public int maxPayload()
    {
        return endpoint.maxDatagramLength() - MulticastHeader.DATA_HEADER_LENGTH;
    }

    /**
     * Takes the receivers' NAKs and status messages to their streams.
     *
     * @return datagrams handled.
     */
    public int poll(final long nowNs)
    {
        if (closed)
        {
            return 0;
        }
        this.nowNs = nowNs;
        final int work = endpoint.poll(this, 256);
        if (counters != null && nowNs - nextSampleNs >= 0)
        {
            nextSampleNs = nowNs + SAMPLE_INTERVAL_NS;
            sampleCounters();
        }
        return work;
    }

    @Override
    public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
    {
        final int type = MulticastHeader.validate(buffer, offset, length, 0);
        if (type < 0)
        {
            malformedDatagrams++;
            lastError = type;
            return;
        }
        if (type != MulticastHeader.TYPE_NAK && type != MulticastHeader.TYPE_STATUS)
        {
            unexpectedDatagrams++;
            return;
        }
        final MulticastSender sender = bySession.get(MulticastHeader.sessionId(buffer, offset));
        if (sender == null)
        {
            unknownSessions++;
            return;
        }
        if (type == MulticastHeader.TYPE_NAK)
        {
            sender.onNak(peer, buffer, offset, nowNs);
        }
        else
        {
            sender.onStatus(peer, buffer, offset, nowNs);
        }
    }

    /** @return streams open. */
    public int streamCount()
    {
        return bySession.size();
    }

    /** @return groups this endpoint sends to. */
    public int groupCount()
    {
        return groups.size();
    }

    public long malformedDatagrams()
    {
        return malformedDatagrams;
    }

    /** @return why the last malformed datagram was refused. */
    public String lastError()
    {
        return MulticastHeader.describe(lastError);
    }

    public long unknownSessions()
    {
        return unknownSessions;
    }

    /** @return well-formed datagrams a publisher never takes (DATA, LOST). */
    public long unexpectedDatagrams()
    {
        return unexpectedDatagrams;
    }

    /** @return the endpoint, for counters and tests. */
    public MulticastEndpoint endpoint()
    {
        return endpoint;
    }

    /** Closes the endpoint; every stream stops. Idempotent. */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            if (counters != null)
            {
                sampleCounters();
                counters.close();
            }
            bySession.clear();
            endpoint.close();
        }
    }
}
