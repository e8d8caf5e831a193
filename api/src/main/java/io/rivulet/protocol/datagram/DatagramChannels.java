package io.rivulet.protocol.datagram;

import io.rivulet.ConfigurationException;
import io.rivulet.counters.CounterFactory;
import io.rivulet.counters.UdPathCounters;
import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SocketAddresses;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A node's datagram plane: its one {@link DatagramEndpoint} (on RDMA one UD queue pair for every peer) and a
 * {@link DatagramChannel} per connection that carries topic data over it. It polls the endpoint and routes
 * each datagram by session: DATA to the channel that receives on it, ACK and NAK to the channel that sends on
 * it (and only when they come from that channel's peer, where the endpoint knows the source). Bad datagrams
 * are dropped and counted, never thrown.
 *
 * <p>Sessions: each end of a connection picks the session it receives on (random, unique on this node) and
 * names it, with its address, in the DATAGRAM_OFFER frame it sends over the connection; the other end sends
 * on that session. A node that does not offer, or whose settings differ, keeps its topic data on the link.
 *
 * <p>Threading: the conductor, for everything.
 */
public final class DatagramChannels implements DatagramEndpoint.DatagramHandler, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(DatagramChannels.class);
    private static final long SAMPLE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);

    private final DatagramSettings settings;
    private final DatagramEndpoint endpoint;
    private final CounterFactory counterFactory;
    private final byte[] localAddress;
    private final int pollLimit;
    private final ArrayList<DatagramChannel> channels = new ArrayList<>();
    private final Int2ObjectHashMap<DatagramChannel> byReceiveSession = new Int2ObjectHashMap<>();
    /** Sending paths by (peer, session): two peers may pick the same session id for their receiving ends. */
    private final Long2ObjectHashMap<DatagramChannel> bySendPath = new Long2ObjectHashMap<>();
    /** Sending paths by session only, for datagrams whose source the endpoint cannot name. */
    private final Int2ObjectHashMap<DatagramChannel> bySendSession = new Int2ObjectHashMap<>();
    private long nowNs;
    private long lastSampleNs;
    private long malformedDatagrams;
    private long unknownSessions;
    private int lastError;
    private boolean closed;

    /**
     * @param settings       validated protocol settings, the same on every node.
     * @param endpoint       the node's endpoint; closed with this.
     * @param counterFactory where each path's counters go, or null.
     * @param maxFrameLength the longest frame a channel carries: the ring must hold one.
     * @throws ConfigurationException when the endpoint or the ring is too small for the settings.
     */
    public DatagramChannels(
        final DatagramSettings settings,
        final DatagramEndpoint endpoint,
        final CounterFactory counterFactory,
        final int maxFrameLength)
    {
        settings.validate();
        if (endpoint.maxDatagramLength() < settings.maxDatagramLength())
        {
            throw new ConfigurationException("the datagram endpoint carries " + endpoint.maxDatagramLength() +
                " bytes, below rivulet.ud.maxPayload " + settings.maxPayload() + " + a " +
                DatagramHeader.DATA_HEADER_LENGTH + "-byte header");
        }
        if (DatagramChannel.slotsFor(maxFrameLength, settings.maxPayload()) > settings.ringLength())
        {
            throw new ConfigurationException("rivulet.ud.ringLength " + settings.ringLength() + " cannot hold a frame of " +
                maxFrameLength + " bytes in datagrams of " + settings.maxPayload() + " (needs " +
                DatagramChannel.slotsFor(maxFrameLength, settings.maxPayload()) + ")");
        }
        this.settings = settings;
        this.endpoint = endpoint;
        this.counterFactory = counterFactory;
        this.localAddress = endpoint.localAddress().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.pollLimit = Math.max(64, settings.window());
    }

    /**
     * Conductor: a connection opened; its channel waits for the peer's offer.
     *
     * @param maxFrameLength longest frame the peer may send.
     * @param remoteAddress  the peer, for messages.
     * @param ownerId        the connection's id, for counters.
     * @param livenessNs     how long datagrams may stay unacknowledged before the path counts as lost.
     * @param sink           receives the peer's frames and the channel's failure.
     */
    public DatagramChannel newChannel(
        final int maxFrameLength,
        final String remoteAddress,
        final long ownerId,
        final long livenessNs,
        final DatagramChannel.FrameSink sink)
    {
        if (closed)
        {
            throw new IllegalStateException("datagram plane closed");
        }
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        int sessionId;
        do
        {
            sessionId = random.nextInt();
        }
        while (sessionId == 0 || byReceiveSession.containsKey(sessionId));
        final DatagramChannel channel = new DatagramChannel(this, settings, maxFrameLength, remoteAddress, ownerId,
            sessionId, random.nextInt(), livenessNs, sink);
        channels.add(channel);
        byReceiveSession.put(sessionId, channel);
        return channel;
    }

    /**
     * Conductor: the peer of a channel offered to receive datagrams.
     *
     * @return null when the channel now sends and receives datagrams, or when it stays on the link because the
     *         two nodes' settings differ (logged: both ends decide alike); otherwise why the offer cannot be taken
     *         (the connection should close).
     */
    public String onPeerOffer(
        final DatagramChannel channel,
        final int sessionId,
        final int initialSequence,
        final int maxPayload,
        final int window,
        final String address)
    {
        if (channel.isStarted() || channel.isClosed())
        {
            return channel.isClosed() ? null : "second DATAGRAM_OFFER on one connection";
        }
        final String mismatch = mismatch(maxPayload, window);
        if (mismatch != null)
        {
            LOG.warn("connection {} to {}: topic data stays on the link: {}", channel.ownerId(), channel.remoteAddress(),
                mismatch);
            return null;
        }
        final int peer;
        try
        {
            // A wildcard-bound peer offers 0.0.0.0:port, meaning "where my connection came from".
            peer = endpoint.resolve(address, SocketAddresses.host(channel.remoteAddress()));
        }
        catch (final IllegalArgumentException ex)
        {
            return "DATAGRAM_OFFER with a bad address: " + ex.getMessage();
        }
        catch (final UncheckedIOException ex)
        {
            return "cannot reach the datagram endpoint " + address + " of " + channel.remoteAddress() + ": " +
                ex.getCause().getMessage();
        }
        final long pathKey = pathKey(peer, sessionId);
        if (bySendPath.containsKey(pathKey))
        {
            return "DATAGRAM_OFFER names session " + sessionId + " which another connection to " + address +
                " already sends on";
        }
        UdPathCounters counters = null;
        if (counterFactory != null)
        {
            try
            {
                counters = UdPathCounters.allocate(counterFactory, channel.ownerId(),
                    channel.remoteAddress() + " " + address + " session " + Integer.toHexString(sessionId));
            }
            catch (final IllegalStateException ex)
            {
                // The counters region is full (rivulet.maxCounters): the path works, only uncounted.
            }
        }
        channel.open(peer, sessionId, initialSequence, counters);
        bySendPath.put(pathKey, channel);
        bySendSession.put(sessionId, channel);
        return null;
    }

    /**
     * @return why a peer's settings cannot share datagram paths with this node's, or null when they can
     *         (both ends must cut datagrams to the same payload and keep the same window).
     */
    String mismatch(final int maxPayload, final int window)
    {
        if (maxPayload != settings.maxPayload() || window != settings.window())
        {
            return "peer uses rivulet.ud.maxPayload " + maxPayload + " and rivulet.ud.window " + window +
                ", this node " + settings.maxPayload() + " and " + settings.window();
        }
        return null;
    }

    /**
     * Conductor: one duty cycle — receive, then let every channel pack, send and acknowledge.
     *
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        if (closed)
        {
            return 0;
        }
        this.nowNs = nowNs;
        int work = endpoint.poll(this, pollLimit);
        for (int i = channels.size() - 1; i >= 0; i--)
        {
            final DatagramChannel channel = channels.get(i);
            if (channel.isClosed())
            {
                forget(i, channel);
                work++;
                continue;
            }
            work += channel.doWork(nowNs);
        }
        if (nowNs - lastSampleNs >= SAMPLE_INTERVAL_NS)
        {
            lastSampleNs = nowNs;
            for (int i = 0; i < channels.size(); i++)
            {
                channels.get(i).sampleCounters();
            }
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
        final int sessionId = DatagramHeader.sessionId(buffer, offset);
        if (type == DatagramHeader.TYPE_DATA)
        {
            final DatagramChannel channel = byReceiveSession.get(sessionId);
            // Only the channel's own peer may send on its session, where the endpoint knows the source.
            if (channel == null || !channel.isStarted() || (peer != DatagramEndpoint.UNKNOWN_PEER && peer != channel.peer()))
            {
                unknownSessions++;
                return;
            }
            channel.onData(buffer, offset, nowNs);
            return;
        }
        final DatagramChannel channel = peer != DatagramEndpoint.UNKNOWN_PEER ?
            bySendPath.get(pathKey(peer, sessionId)) : bySendSession.get(sessionId);
        if (channel == null)
        {
            unknownSessions++;
            return;
        }
        channel.onControl(type, buffer, offset, nowNs);
    }

    private void forget(final int index, final DatagramChannel channel)
    {
        channels.remove(index);
        byReceiveSession.remove(channel.receiveSessionId(), channel);
        if (channel.isStarted())
        {
            bySendPath.remove(pathKey(channel.peer(), channel.sendSessionId()), channel);
            bySendSession.remove(channel.sendSessionId(), channel);
        }
        channel.release();
    }

    private static long pathKey(final int peer, final int sessionId)
    {
        return ((long)peer << 32) | (sessionId & 0xFFFF_FFFFL);
    }

    long nowNs()
    {
        return nowNs;
    }

    DatagramEndpoint endpoint()
    {
        return endpoint;
    }

    /** @return the protocol settings every channel uses. */
    public DatagramSettings settings()
    {
        return settings;
    }

    /** @return this node's endpoint address, UTF-8, as offered to peers. */
    public byte[] localAddress()
    {
        return localAddress;
    }

    /** @return channels, open or waiting for their peer's offer. */
    public int channelCount()
    {
        return channels.size();
    }

    /** @return a channel by index (conductor; tests and counters). */
    public DatagramChannel channel(final int index)
    {
        return channels.get(index);
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

    /** @return datagrams for no known session, or from a peer that is not the session's. */
    public long unknownSessions()
    {
        return unknownSessions;
    }

    /** Conductor: closes the endpoint; channels stop. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int i = channels.size() - 1; i >= 0; i--)
        {
            final DatagramChannel channel = channels.get(i);
            channel.close();
            forget(i, channel);
        }
        endpoint.close();
    }
}
