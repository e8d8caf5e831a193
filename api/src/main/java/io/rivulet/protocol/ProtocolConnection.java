package io.rivulet.protocol;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.LimitExceededException;
import io.rivulet.Message;
import io.rivulet.MessageTooLargeException;
import io.rivulet.MessageView;
import io.rivulet.ProtocolViolationException;
import io.rivulet.RejectedException;
import io.rivulet.Responder;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.security.AuthenticationException;
import io.rivulet.security.Authenticator;
import io.rivulet.security.Credentials;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.FramingException;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.ReliableLink;
import io.rivulet.region.RegionDescriptor;
import io.rivulet.region.RegionEndpoint;
import io.rivulet.region.RegionLink;
import io.rivulet.region.RegionRegistry;
import io.rivulet.region.RemoteRegion;
import io.rivulet.protocol.datagram.DatagramChannel;
import io.rivulet.protocol.datagram.DatagramChannels;
import io.rivulet.topic.TopicEndpoint;
import io.rivulet.topic.TopicLink;
import io.rivulet.topic.TopicMessage;
import io.rivulet.topic.TopicRegistry;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One connection's protocol: the stream table, the inbound frame dispatch, set-up, keepalive and
 * close. It is the {@link Connection} applications hold and the state the conductor drives.
 *
 * <p>Threading: the public {@link Connection} methods may be called from any thread; they create
 * stream objects and hand work to the conductor through its command executor or the connection's
 * signal queue. Everything else runs on the conductor thread only. The sender agent reads
 * {@link #outbound()} and {@link #link()} and reports through {@link #onSenderReleased()} and
 * {@link #onSendFailed(IOException)}.
 */
public final class ProtocolConnection implements Connection, FrameHandler
{
    /** Version of the protocol carried in SETUP. */
    public static final int PROTOCOL_VERSION = 1;

    /** What the sender agent should do with this connection. */
    public enum SendMode
    {
        /** Drain the ring to the link as it fills. */
        ACTIVE,
        /** Drain what is left, flush, then release the connection. */
        DRAIN,
        /** Release the connection now, discarding what is left. */
        RELEASE
    }

    private static final FrameHandler DISCARD = (buffer, offset, length) -> { };

    private final ReliableLink link;
    private final Outbound outbound;
    private final ProtocolSettings settings;
    private final ConnectionCounters counters;
    private final boolean client;
    private final Responder responder;
    private final Executor conductor;
    private final Consumer<Throwable> errorHandler;
    private final String remoteAddress;
    private final FrameReader reader = new FrameReader();
    private final MessageView view = new MessageView();
    private final Int2ObjectHashMap<ProtocolStream> streams = new Int2ObjectHashMap<>();
    private final ManyToOneConcurrentLinkedQueue<ProtocolStream> signals = new ManyToOneConcurrentLinkedQueue<>();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private final int maxOfferLength;
    private StreamWriter connectionWriter;
    /** Fan-out topics on this connection (both roles); null when the node has no topic layer (unit tests). */
    private TopicEndpoint topics;
    /** Server side: who may connect; null accepts everyone. Set before the first duty cycle. */
    private Authenticator authenticator;
    /** Client side: completed when the server's first frame shows it accepted SETUP; null once done. */
    private Sinks.One<Connection> acceptance;
    private long acceptanceDeadlineNs;
    /** One-sided remote memory on this connection (both roles); null when the node has none (unit tests). */
    private RegionEndpoint regions;
    /** The node's datagram plane and this connection's channel on it; null when topic data stays on the link. */
    private DatagramChannels datagramPlane;
    private DatagramChannel datagrams;

    private volatile boolean open = true;
    private volatile SendMode sendMode = SendMode.ACTIVE;
    private volatile boolean senderReleased;
    private volatile IOException sendFailure;

    // Conductor state.
    private int nextStreamId;
    private boolean setupReceived;
    private long nowNs;
    private long lastReceivedNs;
    private long closeDeadlineNs;
    private Throwable closeCause;
    private boolean finished;
    private boolean awaitPeerClose;
    /** This connection's keepalive: the node's settings, or on a server the values the client's SETUP asked for. */
    private long keepaliveIntervalNs;
    private long keepaliveTimeoutNs;
    private boolean keepaliveChanged;
    private long keepaliveTimerId = -1;
    private final long createdNs;
    /** Streams the peer opened that are in {@link #streams}; the rest are this side's requests. */
    private int peerStreams;

    /**
     * @param link         the established link.
     * @param outbound     the connection's outbound ring.
     * @param settings     limits and timings.
     * @param counters     the node's counters this connection adds to.
     * @param client       true on the connecting side (odd stream ids, sends SETUP).
     * @param responder    handlers for requests from the peer.
     * @param conductor    runs commands on the conductor thread.
     * @param errorHandler receives errors that have no subscriber to go to.
     * @param nowNs        the conductor's clock at creation.
     */
    public ProtocolConnection(
        final ReliableLink link,
        final Outbound outbound,
        final ProtocolSettings settings,
        final ConnectionCounters counters,
        final boolean client,
        final Responder responder,
        final Executor conductor,
        final Consumer<Throwable> errorHandler,
        final long nowNs)
    {
        this.link = link;
        this.outbound = outbound;
        this.settings = settings;
        this.counters = counters;
        this.client = client;
        this.responder = responder;
        this.conductor = conductor;
        this.errorHandler = errorHandler;
        this.remoteAddress = link.remoteAddress();
        this.nextStreamId = client ? 1 : 2;
        this.nowNs = nowNs;
        this.createdNs = nowNs;
        this.lastReceivedNs = nowNs;
        this.setupReceived = client;
        this.keepaliveIntervalNs = settings.keepaliveIntervalNs();
        this.keepaliveTimeoutNs = settings.keepaliveTimeoutNs();
        this.maxOfferLength = settings.maxFrameLength() - FrameWriter.payloadFrameOverhead(FrameType.REQUEST_FNF);
        this.connectionWriter = new StreamWriter(outbound);
    }

    // ------------------------------------------------------------------------------------- public API

    @Override
    public Mono<Void> fireAndForget(final Message message)
    {
        return Mono.defer(() ->
        {
            if (!open)
            {
                return Mono.error(closedError());
            }
            if (tooLarge(message))
            {
                return Mono.error(tooLargeError(message));
            }
            final long parked = outbound.parkedBytes();
            if (parked > 0 && parked + message.dataLength() + message.metadataLength() > settings.maxParkedBytes())
            {
                counters.onLimitRejection();
                return Mono.error(new LimitExceededException("fire-and-forget to " + remoteAddress + " refused: " +
                    parked + " bytes already wait for the outbound ring, limit " + settings.maxParkedBytes() +
                    " (rivulet.maxParkedBytes)"));
            }
            if (FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, message.metadataLength(), message.dataLength()) <=
                settings.maxFrameLength())
            {
                connectionWriter.sendMessage(FrameType.REQUEST_FNF, 0, FrameFlags.NEXT, message);
                return Mono.empty();
            }
            // Fragments need a stream id so that the peer can reassemble them.
            final Sinks.Empty<Void> sent = Sinks.empty();
            conductor.execute(() ->
            {
                if (closeCause != null)
                {
                    sent.tryEmitError(closedError());
                    return;
                }
                final StreamWriter writer = new StreamWriter(outbound);
                writer.streamId(allocateStreamId());
                writer.sendMessage(FrameType.REQUEST_FNF, 0, FrameFlags.NEXT, message);
                sent.tryEmitEmpty();
            });
            return sent.asMono();
        });
    }

    @Override
    public Mono<Message> requestResponse(final Message request)
    {
        return Mono.defer(() ->
        {
            if (tooLarge(request))
            {
                return Mono.error(tooLargeError(request));
            }
            final ProtocolStream stream = new ProtocolStream(this, ProtocolStream.Kind.REQUESTER_RESPONSE);
            stream.request = request;
            return Mono.fromDirect(stream.inbound);
        });
    }

    @Override
    public Flux<Message> requestStream(final Message request)
    {
        return Flux.defer(() ->
        {
            if (tooLarge(request))
            {
                return Flux.error(tooLargeError(request));
            }
            final ProtocolStream stream = new ProtocolStream(this, ProtocolStream.Kind.REQUESTER_STREAM);
            stream.request = request;
            return Flux.from(stream.inbound);
        });
    }

    @Override
    public Flux<Message> requestChannel(final Publisher<Message> outboundMessages)
    {
        return Flux.defer(() ->
        {
            final ProtocolStream stream = new ProtocolStream(this, ProtocolStream.Kind.REQUESTER_CHANNEL);
            stream.channelProducer(outboundMessages);
            return Flux.from(stream.inbound);
        });
    }

    @Override
    public Flux<TopicMessage> subscribe(final String pattern)
    {
        // Topics: the endpoint owns subscriptions; this only refuses what it cannot serve.
        if (topics == null)
        {
            return Flux.error(new UnsupportedOperationException("this connection has no topic layer"));
        }
        return Flux.defer(() -> open ? topics.subscribe(pattern) : Flux.error(closedError()));
    }

    @Override
    public Mono<RemoteRegion> remoteRegion(final String name)
    {
        if (regions == null)
        {
            return Mono.error(new UnsupportedOperationException("this connection has no region layer"));
        }
        return Mono.defer(() -> open ? Mono.create(sink -> regions.lookup(name, sink)) : Mono.error(closedError()));
    }

    @Override
    public RemoteRegion remoteRegion(final RegionDescriptor descriptor)
    {
        if (regions == null)
        {
            throw new UnsupportedOperationException("this connection has no region layer");
        }
        return regions.attach(descriptor);
    }

    @Override
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > maxOfferLength)
        {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the offer maximum of " +
                maxOfferLength + "; send it with fireAndForget(Message), which fragments");
        }
        if (!open)
        {
            return CLOSED;
        }
        return outbound.offerFireAndForget(buffer, offset, length) ? length + 1L : BACK_PRESSURED;
    }

    @Override
    public int maxOfferLength()
    {
        return maxOfferLength;
    }

    @Override
    public String remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public boolean isOpen()
    {
        return open;
    }

    @Override
    public Mono<Void> onClose()
    {
        return closed.asMono();
    }

    @Override
    public void close()
    {
        if (open)
        {
            conductor.execute(() -> closeGracefully(
                new ConnectionClosedException("connection to " + remoteAddress + " closed locally"),
                ErrorCode.CONNECTION_CLOSE, "closed by peer application"));
        }
    }

    @Override
    public String toString()
    {
        return "Connection{" + counters.connectionId() + " " + link.localAddress() + " -> " + remoteAddress + (open ? "" : ", closed") + "}";
    }

    // ------------------------------------------------------------------------------ internal plumbing

    Outbound outbound()
    {
        return outbound;
    }

    ProtocolSettings settings()
    {
        return settings;
    }

    /** @return this connection's counters (its own, labelled with its id, and the node totals they add to). */
    public ConnectionCounters counters()
    {
        return counters;
    }

    /** @return the connection id, unique in the node, that labels its counters and log lines. */
    public long connectionId()
    {
        return counters.connectionId();
    }

    org.agrona.concurrent.status.AtomicCounter creditStalls()
    {
        return counters.creditStalls();
    }

    /** @return the link, for the sender agent. */
    public ReliableLink link()
    {
        return link;
    }

    /** @return the ring side, for the sender agent. */
    public Outbound outboundRing()
    {
        return outbound;
    }

    /** @return what the sender agent should do. */
    public SendMode sendMode()
    {
        return sendMode;
    }

    /** Sender: it no longer touches this connection's link. */
    public void onSenderReleased()
    {
        senderReleased = true;
    }

    /** Sender: writing to the link failed; the conductor loses the connection. */
    public void onSendFailed(final IOException failure)
    {
        sendFailure = failure;
    }

    /** @return true when the connection is closed and released by the sender: the conductor drops it. */
    public boolean isFinished()
    {
        return finished;
    }

    /** Any thread: the stream has something for the conductor. */
    void signal(final ProtocolStream stream)
    {
        signals.offer(stream);
    }

    /** Any thread: a requester stream wants its id and opening frame. */
    void requestOpen(final ProtocolStream stream)
    {
        conductor.execute(() -> openRequester(stream));
    }

    // ------------------------------------------------------------------------------ conductor: duties

    /**
     * Conductor: copies one whole control frame (topic or region layer) into the outbound ring.
     *
     * @return false when the connection is closed or the ring has no room now; the caller retries later.
     */
    private boolean sendControlFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (outbound.isClosed())
        {
            return false;
        }
        final int index = outbound.claim(length);
        if (index <= 0)
        {
            return false;
        }
        outbound.ring().buffer().putBytes(index, buffer, offset, length);
        outbound.commit(index);
        return true;
    }

    /**
     * Conductor, before the first duty cycle: gives this connection its endpoint in the node's topic layer.
     * Topic frames then reach the endpoint; without one they are a protocol violation.
     */
    public void enableTopics(final TopicRegistry registry)
    {
        topics = registry.newEndpoint(new TopicLink()
        {
            @Override
            public boolean sendControl(final DirectBuffer buffer, final int offset, final int length)
            {
                return sendControlFrame(buffer, offset, length);
            }

            @Override
            public boolean offer(final DirectBuffer buffer, final int offset, final int length)
            {
                // Sender thread: as datagrams once both ends agreed to (DATAGRAM_OFFER), else the link's send half.
                final DatagramChannel channel = datagrams;
                return channel != null && channel.isOpen() ?
                    channel.offer(buffer, offset, length) : link.offer(buffer, offset, length);
            }

            @Override
            public boolean isSending()
            {
                return sendMode == SendMode.ACTIVE;
            }

            @Override
            public int maxFrameLength()
            {
                return outbound.maxFrameLength();
            }

            @Override
            public String remoteAddress()
            {
                return remoteAddress;
            }
        });
    }

    /**
     * Conductor, before the first duty cycle and after {@link #enableTopics}: topic data may go over the node's
     * datagram plane. This end offers it (DATAGRAM_OFFER right after SETUP) and sends its own topic data as
     * datagrams once the peer's offer arrives; until then, or when the peer never offers, all stays on the link.
     */
    public void enableDatagrams(final DatagramChannels plane)
    {
        datagramPlane = plane;
        datagrams = plane.newChannel(settings.maxFrameLength(), remoteAddress, counters.connectionId(),
            settings.keepaliveTimeoutNs(), new DatagramChannel.FrameSink()
            {
                @Override
                public void onDatagramFrame(final DirectBuffer buffer, final int offset, final int length)
                {
                    onTopicDatagram(buffer, offset, length);
                }

                @Override
                public void onDatagramViolation(final String reason)
                {
                    if (closeCause == null)
                    {
                        protocolError(reason);
                    }
                }

                @Override
                public void onDatagramPathLost(final String reason)
                {
                    if (closeCause == null)
                    {
                        lose(new ConnectionLostException("connection to " + remoteAddress + " lost: " + reason));
                    }
                }
            });
    }

    /** Conductor: tells the peer where to send this connection's topic data as datagrams. */
    private void sendDatagramOffer()
    {
        if (datagrams == null)
        {
            return;
        }
        final byte[] address = datagramPlane.localAddress();
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameWriter.datagramOfferLength(address.length)]);
        final int length = Frames.writer().writeDatagramOffer(frame, 0, datagrams.receiveSessionId(),
            datagrams.receiveInitialSequence(), datagramPlane.settings().maxPayload(), datagramPlane.settings().window(),
            address);
        if (!sendControlFrame(frame, 0, length))
        {
            throw new IllegalStateException("outbound ring full before DATAGRAM_OFFER");
        }
    }

    private void onDatagramOffer()
    {
        if (datagrams == null)
        {
            return; // this node keeps topic data on the link; the peer sees no offer and does the same
        }
        final String violation = datagramPlane.onPeerOffer(datagrams, reader.sessionId(), reader.initialSequence(),
            reader.maxPayload(), reader.window(), reader.text());
        if (violation != null)
        {
            protocolError(violation);
        }
    }

    /** @return true for the frames a publication's cursor sends: what goes as datagrams when both ends agree. */
    private static boolean isCursorFrame(final int type)
    {
        return type == FrameType.TOPIC_DATA || type == FrameType.TOPIC_ATTACH || type == FrameType.TOPIC_SNAPSHOT ||
            type == FrameType.TOPIC_GAP || type == FrameType.TOPIC_HEARTBEAT || type == FrameType.TOPIC_DETACH;
    }

    /** Conductor: a frame that came over the datagram channel; only a topic cursor's frames may. */
    private void onTopicDatagram(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closeCause != null)
        {
            return;
        }
        counters.onFrameReceived(length);
        if (!reader.wrap(buffer, offset, length))
        {
            protocolError("malformed " + FrameType.name(frameTypeOrUnknown(buffer, offset, length)) +
                " frame in a datagram: " + reader.error());
            return;
        }
        final int type = reader.frameType();
        if (!isCursorFrame(type))
        {
            protocolError(FrameType.name(type) + " frame in a datagram: only topic data may come that way");
            return;
        }
        final String violation = topics.onFrame(reader, nowNs);
        if (violation != null)
        {
            protocolError(violation);
        }
    }

    /**
     * Conductor, server side, before the first duty cycle: who may connect. The authenticator runs once the
     * SETUP frame arrives; a refusal is answered with ERROR (REJECTED_SETUP) and closes the connection.
     */
    public void authenticator(final Authenticator authenticator)
    {
        this.authenticator = authenticator;
    }

    /**
     * Conductor, client side, after {@link #sendSetup}: completes the sink with this connection when the
     * server's first frame shows it accepted SETUP (a server answers SETUP with a KEEPALIVE at once), or
     * errors it when the server refuses, the connection ends, or nothing arrives within the set-up timeout.
     */
    public void awaitAcceptance(final Sinks.One<Connection> acceptance)
    {
        this.acceptance = acceptance;
        this.acceptanceDeadlineNs = nowNs + settings.setupTimeoutNs();
    }

    /** Conductor, server side: the peer's mutual-TLS identity, passed to the authenticator. */
    private String peerPrincipal()
    {
        return link.peerPrincipal();
    }

    /**
     * Conductor, before the first duty cycle: gives this connection its endpoint in the node's region layer.
     * Region frames then reach the endpoint; without one they are a protocol violation.
     */
    public void enableRegions(final RegionRegistry registry)
    {
        regions = registry.newEndpoint(new RegionLink()
        {
            @Override
            public boolean sendControl(final DirectBuffer buffer, final int offset, final int length)
            {
                return sendControlFrame(buffer, offset, length);
            }

            @Override
            public int maxFrameLength()
            {
                return outbound.maxFrameLength();
            }

            @Override
            public String remoteAddress()
            {
                return remoteAddress;
            }

            @Override
            public ReliableLink link()
            {
                return link;
            }
        });
    }

    /** Conductor: sends SETUP; called once on the connecting side. */
    public void sendSetup(final byte[] metadata, final byte[] data)
    {
        final int length = FrameWriter.setupLength(metadata.length, data.length);
        final int index = outbound.claim(length);
        if (index <= 0)
        {
            throw new IllegalStateException("outbound ring full before SETUP");
        }
        Frames.writer().writeSetup(outbound.ring().buffer(), index, PROTOCOL_VERSION,
            (int)TimeUnit.NANOSECONDS.toMillis(settings.keepaliveIntervalNs()),
            (int)TimeUnit.NANOSECONDS.toMillis(settings.keepaliveTimeoutNs()), settings.maxFrameLength(),
            metadata, data);
        outbound.commit(index);
        sendDatagramOffer();
    }

    /**
     * Conductor: one duty cycle for this connection.
     *
     * @param nowNs the cycle's clock.
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        this.nowNs = nowNs;
        if (finished)
        {
            return 0;
        }
        int work = 0;
        if (closeCause == null)
        {
            work += checkSetupDeadline(nowNs);
        }
        if (closeCause == null)
        {
            work += pollLink();
            work += processSignals();
            work += outbound.flushParked();
            if (topics != null && closeCause == null)
            {
                work += topics.doWork(nowNs); // topic subscriptions, credits and liveness
            }
            if (regions != null && closeCause == null)
            {
                work += regions.doWork(); // lookups, emulated and one-sided region operations
            }
            final IOException failure = sendFailure;
            if (failure != null && closeCause == null)
            {
                lose(new ConnectionLostException("connection to " + remoteAddress + " lost: " + failure.getMessage(),
                    failure));
            }
        }
        if (closeCause != null)
        {
            work += progressClose(nowNs);
        }
        return work;
    }

    private int checkSetupDeadline(final long nowNs)
    {
        if (!setupReceived && nowNs - createdNs > settings.setupTimeoutNs())
        {
            final String reason = "no SETUP within " + TimeUnit.NANOSECONDS.toMillis(settings.setupTimeoutNs()) +
                " ms (rivulet.setupTimeout)";
            counters.onSetupTimeout();
            writeConnectionError(ErrorCode.INVALID_SETUP, reason);
            closeGracefully(new RejectedException("connection from " + remoteAddress + " closed: " + reason), null, null);
            return 1;
        }
        if (acceptance != null && nowNs - acceptanceDeadlineNs > 0)
        {
            lose(new ConnectionLostException("server " + remoteAddress + " did not answer SETUP within " +
                TimeUnit.NANOSECONDS.toMillis(settings.setupTimeoutNs()) + " ms (rivulet.setupTimeout)"));
            return 1;
        }
        return 0;
    }

    /**
     * Conductor: the keepalive timer fired.
     *
     * @return the deadline of the next check, or 0 once the connection is closing.
     */
    public long onKeepaliveTimer(final long nowNs)
    {
        this.nowNs = nowNs;
        if (closeCause != null)
        {
            return 0;
        }
        final long silentNs = nowNs - lastReceivedNs;
        if (silentNs > keepaliveTimeoutNs)
        {
            lose(new ConnectionLostException("no frame from " + remoteAddress + " for " +
                TimeUnit.NANOSECONDS.toMillis(silentNs) + " ms (keepalive timeout " +
                TimeUnit.NANOSECONDS.toMillis(keepaliveTimeoutNs) + " ms)"));
            return 0;
        }
        writeKeepalive(false, nowNs);
        return nowNs + keepaliveIntervalNs;
    }

    /**
     * Conductor: whether the keepalive interval changed (a server adopting the client's) since the
     * last call, so that the timer must be rescheduled to run now.
     */
    public boolean takeKeepaliveChanged()
    {
        final boolean changed = keepaliveChanged;
        keepaliveChanged = false;
        return changed;
    }

    /** Conductor: the id of this connection's pending keepalive timer, -1 for none. */
    public long keepaliveTimerId()
    {
        return keepaliveTimerId;
    }

    public void keepaliveTimerId(final long timerId)
    {
        this.keepaliveTimerId = timerId;
    }

    /** Conductor: the node is closing. */
    public void closeForShutdown()
    {
        if (closeCause == null)
        {
            closeGracefully(new ConnectionClosedException("node closed"), ErrorCode.CONNECTION_CLOSE, "node closed");
        }
    }

    /** Conductor: forces the close to finish now (node shutdown deadline). */
    public void abort()
    {
        if (closeCause == null)
        {
            lose(new ConnectionClosedException("node closed"));
        }
        sendMode = SendMode.RELEASE;
    }

    private int pollLink()
    {
        try
        {
            return link.poll(this, settings.frameLimit());
        }
        catch (final LinkClosedException ex)
        {
            lose(new ConnectionClosedException("connection closed by peer " + remoteAddress));
        }
        catch (final FramingException ex)
        {
            protocolError(ex.getMessage());
        }
        catch (final IOException ex)
        {
            lose(new ConnectionLostException("connection to " + remoteAddress + " lost: " + ex.getMessage(), ex));
        }
        return 1;
    }

    private int processSignals()
    {
        int work = 0;
        ProtocolStream stream;
        while ((stream = signals.poll()) != null)
        {
            stream.onSignal();
            work++;
        }
        return work;
    }

    private void openRequester(final ProtocolStream stream)
    {
        if (closeCause != null)
        {
            stream.terminate(closedError());
            return;
        }
        if (stream.inbound.isCancelled())
        {
            if (stream.outbound != null)
            {
                stream.outbound.stop();
            }
            return;
        }
        if (streams.size() - peerStreams >= settings.maxPendingRequests())
        {
            counters.onLimitRejection();
            stream.terminate(new LimitExceededException("request to " + remoteAddress + " refused: " +
                settings.maxPendingRequests() + " requests already open on this connection (rivulet.maxPendingRequests)"));
            return;
        }
        final int id = allocateStreamId();
        streams.put(id, stream);
        stream.registered(id);
        stream.sendOpening(stream.request);
        stream.request = null;
    }

    private int allocateStreamId()
    {
        int id = nextStreamId;
        while (streams.containsKey(id))
        {
            id = advance(id);
        }
        nextStreamId = advance(id);
        return id;
    }

    private int advance(final int id)
    {
        final int next = id + 2;
        return next > 0 ? next : (client ? 1 : 2);
    }

    void removeStream(final ProtocolStream stream)
    {
        final int id = stream.streamId();
        if (id != 0 && streams.get(id) == stream)
        {
            streams.remove(id);
            if (stream.kind().ordinal() >= ProtocolStream.Kind.RESPONDER_RESPONSE.ordinal())
            {
                peerStreams--;
            }
        }
    }

    // ------------------------------------------------------------------------------ conductor: inbound

    @Override
    public void onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closeCause != null)
        {
            return;
        }
        counters.onFrameReceived(length);
        lastReceivedNs = nowNs;
        if (!reader.wrap(buffer, offset, length))
        {
            protocolError("malformed " + FrameType.name(frameTypeOrUnknown(buffer, offset, length)) + " frame: " +
                reader.error());
            return;
        }
        final int type = reader.frameType();
        if (FrameType.carriesPayload(type) && !reader.hasFlag(FrameFlags.FOLLOWS) &&
            (type != FrameType.PAYLOAD || reader.hasFlag(FrameFlags.NEXT)))
        {
            counters.onMessageIn();
        }
        if (!setupReceived)
        {
            onSetup(type);
            return;
        }
        final int streamId = reader.streamId();
        if (acceptance != null && type != FrameType.CLOSE && !(type == FrameType.ERROR && streamId == 0))
        {
            final Sinks.One<Connection> accepted = acceptance;
            acceptance = null;
            if (accepted.tryEmitValue(this).isFailure())
            {
                close(); // the connect was cancelled meanwhile
            }
        }
        switch (type)
        {
            case 2: // REQUEST_FNF
                if (streamId == 0)
                {
                    if (reader.hasFlag(FrameFlags.FOLLOWS))
                    {
                        protocolError("fragmented REQUEST_FNF on stream 0");
                        return;
                    }
                    deliverFireAndForget(null);
                    return;
                }
                onRequest(type, streamId);
                return;

            case 3: // REQUEST_RESPONSE
            case 4: // REQUEST_STREAM
            case 5: // REQUEST_CHANNEL
                onRequest(type, streamId);
                return;

            case 6: // REQUEST_N
            {
                final ProtocolStream stream = streams.get(streamId);
                if (stream != null)
                {
                    stream.onRequestN(reader.requestN());
                }
                return;
            }

            case 7: // CANCEL
            {
                final ProtocolStream stream = streams.get(streamId);
                if (stream != null)
                {
                    stream.onCancel();
                }
                return;
            }

            case 8: // PAYLOAD
                onPayload(streamId);
                return;

            case 9: // ERROR
                onErrorFrame(streamId);
                return;

            case 10: // KEEPALIVE
                if (reader.respond())
                {
                    writeKeepalive(false, reader.timestampNs());
                }
                return;

            case 11: // CLOSE
                closeByPeer(reader.text());
                return;

            case 12: // TOPIC_DATA .. TOPIC_DETACH: fan-out topics
            case 13:
            case 14:
            case 15:
            case 16:
            case 17:
            case 18:
            case 19:
            case 20:
            {
                if (datagrams != null && datagrams.isOpen() && isCursorFrame(type))
                {
                    // Both ends took each other's offer, so the peer's cursors send as datagrams, never here.
                    protocolError(FrameType.name(type) + " on the link while this connection's topic data goes as datagrams");
                    return;
                }
                final String violation = topics == null ? "topic frames are not enabled on this connection" :
                    topics.onFrame(reader, nowNs);
                if (violation != null)
                {
                    protocolError(violation);
                }
                return;
            }

            case 27: // DATAGRAM_OFFER: where the peer wants this connection's topic data as datagrams
                onDatagramOffer();
                return;

            case 21: // REGION_LOOKUP .. REGION_OP_RESULT: one-sided remote memory
            case 22:
            case 23:
            case 24:
            case 25:
            case 26:
            {
                final String violation = regions == null ? "region frames are not enabled on this connection" :
                    regions.onFrame(reader);
                if (violation != null)
                {
                    protocolError(violation);
                }
                return;
            }

            default: // SETUP after set-up
                protocolError("unexpected " + FrameType.name(type) + " frame after set-up");
        }
    }

    private static int frameTypeOrUnknown(final DirectBuffer buffer, final int offset, final int length)
    {
        return length >= 4 ? buffer.getShort(offset + 2, java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFF : 0;
    }

    private void onSetup(final int type)
    {
        if (type != FrameType.SETUP)
        {
            rejectSetup(ErrorCode.INVALID_SETUP, "expected SETUP as the first frame, got " + FrameType.name(type));
            return;
        }
        if (reader.protocolVersion() != PROTOCOL_VERSION)
        {
            rejectSetup(ErrorCode.UNSUPPORTED_SETUP, "unsupported protocol version " + reader.protocolVersion() +
                " (this node speaks " + PROTOCOL_VERSION + ")");
            return;
        }
        if (reader.keepaliveIntervalMs() <= 0 || reader.keepaliveTimeoutMs() <= reader.keepaliveIntervalMs())
        {
            rejectSetup(ErrorCode.INVALID_SETUP, "keepalive interval " + reader.keepaliveIntervalMs() +
                " ms and timeout " + reader.keepaliveTimeoutMs() + " ms are not valid");
            return;
        }
        if (reader.maxFrameLength() > settings.maxFrameLength())
        {
            rejectSetup(ErrorCode.REJECTED_SETUP, "client max frame length " + reader.maxFrameLength() +
                " exceeds this server's " + settings.maxFrameLength());
            return;
        }
        if (reader.maxFrameLength() < 256)
        {
            rejectSetup(ErrorCode.INVALID_SETUP, "max frame length " + reader.maxFrameLength() + " below 256");
            return;
        }
        if (authenticator != null)
        {
            final byte[] metadata = new byte[reader.metadataLength()];
            reader.buffer().getBytes(reader.metadataOffset(), metadata);
            try
            {
                authenticator.authenticate(new Credentials(metadata, peerPrincipal(), remoteAddress));
            }
            catch (final AuthenticationException ex)
            {
                counters.onSetupRejected();
                errorHandler.accept(new RejectedException("connection from " + remoteAddress + " refused: " +
                    ex.getMessage()));
                writeConnectionError(ErrorCode.REJECTED_SETUP, ex.getMessage());
                closeGracefully(new RejectedException(ex.getMessage()), null, null);
                return;
            }
            catch (final RuntimeException ex)
            {
                // A broken authenticator refuses: failing open would let anyone in.
                counters.onSetupRejected();
                errorHandler.accept(ex);
                writeConnectionError(ErrorCode.REJECTED_SETUP, "authentication failed");
                closeGracefully(new RejectedException("authenticator failed: " + ex), null, null);
                return;
            }
        }
        outbound.limitFrameLength(reader.maxFrameLength());
        // Like RSocket, the server follows the client's keepalive so that neither side times the other out.
        keepaliveIntervalNs = TimeUnit.MILLISECONDS.toNanos(reader.keepaliveIntervalMs());
        keepaliveTimeoutNs = TimeUnit.MILLISECONDS.toNanos(reader.keepaliveTimeoutMs());
        keepaliveChanged = true;
        setupReceived = true;
        sendDatagramOffer(); // before the server's application can subscribe on this connection
    }

    private void rejectSetup(final ErrorCode code, final String reason)
    {
        counters.onProtocolError();
        writeConnectionError(code, reason);
        closeGracefully(new RejectedException(reason), null, null);
    }

    private void onRequest(final int type, final int streamId)
    {
        if (streamId == 0 || (streamId & 1) == (client ? 1 : 0))
        {
            protocolError(FrameType.name(type) + " with stream id " + streamId + " not allowed from the " +
                (client ? "server" : "client"));
            return;
        }
        if (streams.containsKey(streamId))
        {
            protocolError(FrameType.name(type) + " for stream " + streamId + " which is already in use");
            return;
        }
        if (peerStreams >= settings.maxStreams())
        {
            refuseStream(type, streamId);
            return;
        }
        if (reader.hasFlag(FrameFlags.FOLLOWS))
        {
            final ProtocolStream stream = newResponderStream(type);
            stream.registered(streamId);
            stream.assemblingRequestType = type;
            stream.assemblingInitialRequestN = reader.initialRequestN();
            stream.reassembly = new Reassembly(settings.maxMessageLength());
            streams.put(streamId, stream);
            peerStreams++;
            appendFragment(stream);
            return;
        }
        final Message message = FrameFlags.isSet(reader.flags(), FrameFlags.NEXT) || type != FrameType.REQUEST_CHANNEL ?
            copyMessage() : null;
        startResponder(type, streamId, reader.initialRequestN(), reader.flags(), message);
    }

    private ProtocolStream newResponderStream(final int type)
    {
        switch (type)
        {
            case 2: return new ProtocolStream(this, ProtocolStream.Kind.RESPONDER_FNF);
            case 3: return new ProtocolStream(this, ProtocolStream.Kind.RESPONDER_RESPONSE);
            case 4: return new ProtocolStream(this, ProtocolStream.Kind.RESPONDER_STREAM);
            default: return new ProtocolStream(this, ProtocolStream.Kind.RESPONDER_CHANNEL);
        }
    }

    private void startResponder(
        final int type, final int streamId, final int initialRequestN, final byte flags, final Message message)
    {
        if (type == FrameType.REQUEST_FNF)
        {
            deliverFireAndForget(message);
            return;
        }
        final ProtocolStream stream = newResponderStream(type);
        stream.registered(streamId);
        streams.put(streamId, stream);
        peerStreams++;
        startResponder(stream, type, initialRequestN, flags, message);
    }

    private void startResponder(
        final ProtocolStream stream, final int type, final int initialRequestN, final byte flags, final Message message)
    {
        stream.openAsResponder();
        final Publisher<Message> producer;
        try
        {
            switch (type)
            {
                case 3:
                    producer = responder.requestResponse() == null ? null :
                        responder.requestResponse().apply(message);
                    break;
                case 4:
                    producer = responder.requestStream() == null ? null : responder.requestStream().apply(message);
                    break;
                default:
                    if (responder.requestChannel() == null)
                    {
                        producer = null;
                        break;
                    }
                    stream.onFirstMessage(message, flags);
                    producer = responder.requestChannel().apply(Flux.from(stream.inbound));
                    break;
            }
        }
        catch (final Throwable ex)
        {
            rejectStream(stream, ErrorCode.APPLICATION_ERROR, String.valueOf(ex.getMessage()));
            errorHandler.accept(ex);
            return;
        }
        if (producer == null)
        {
            rejectStream(stream, ErrorCode.REJECTED, "no " + FrameType.name(type) + " handler on " +
                link.localAddress());
            return;
        }
        stream.startOutbound(producer, type == FrameType.REQUEST_RESPONSE ? 1 : initialRequestN);
        stream.onSignal();
    }

    /**
     * The peer has {@code maxStreams} open: refuse this one with ERROR (REJECTED) on its stream and keep the
     * connection. Its later fragments find no stream and are dropped. A peer that floods requests faster than
     * it reads the refusals fills the ring: then the connection is closed, so refusals never queue unbounded.
     */
    private void refuseStream(final int type, final int streamId)
    {
        counters.onLimitRejection();
        final String reason = FrameType.name(type) + " on stream " + streamId + " refused: " + settings.maxStreams() +
            " streams already open on this connection (rivulet.maxStreams)";
        final byte[] text = FrameWriter.utf8(reason, Math.min(1024, outbound.maxFrameLength() - FrameWriter.errorLength(0)));
        final int index = outbound.claim(FrameWriter.errorLength(text.length));
        if (index <= 0)
        {
            protocolError("requests beyond the stream limit of " + settings.maxStreams() +
                " faster than refusals can be sent");
            return;
        }
        Frames.writer().writeError(outbound.ring().buffer(), index, streamId, ErrorCode.REJECTED, text);
        outbound.commit(index);
    }

    private void rejectStream(final ProtocolStream stream, final ErrorCode code, final String reason)
    {
        stream.writer().sendError(code, reason);
        stream.terminate(new RejectedException(reason));
        removeStream(stream);
    }

    private void onPayload(final int streamId)
    {
        final ProtocolStream stream = streams.get(streamId);
        if (stream == null)
        {
            return; // late frame of a cancelled or finished stream
        }
        if (stream.reassembly != null || reader.hasFlag(FrameFlags.FOLLOWS))
        {
            if (stream.reassembly == null)
            {
                stream.reassembly = new Reassembly(settings.maxMessageLength());
            }
            if (!appendFragment(stream) || reader.hasFlag(FrameFlags.FOLLOWS))
            {
                return;
            }
            final Message message = stream.reassembly.toMessage();
            final Reassembly reassembly = stream.reassembly;
            stream.reassembly = null;
            if (stream.assemblingRequestType != 0)
            {
                final int type = stream.assemblingRequestType;
                stream.assemblingRequestType = 0;
                if (type == FrameType.REQUEST_FNF)
                {
                    stream.removeNow();
                    deliverFireAndForget(message, reassembly);
                    return;
                }
                startResponder(stream, type, stream.assemblingInitialRequestN, reader.flags(), message);
                return;
            }
            if (!stream.onMessage(message, reader.flags()))
            {
                protocolError("PAYLOAD on stream " + streamId + " beyond the credits granted");
            }
            return;
        }
        final Message message = FrameFlags.isSet(reader.flags(), FrameFlags.NEXT) ? copyMessage() : null;
        if (!stream.onMessage(message, reader.flags()))
        {
            protocolError("PAYLOAD on stream " + streamId + " beyond the credits granted");
        }
    }

    private boolean appendFragment(final ProtocolStream stream)
    {
        if (!stream.reassembly.append(reader.buffer(), reader.metadataOffset(), reader.metadataLength(),
            reader.dataOffset(), reader.dataLength()))
        {
            protocolError("message on stream " + stream.streamId() + " exceeds the maximum message length of " +
                settings.maxMessageLength());
            return false;
        }
        return true;
    }

    private void onErrorFrame(final int streamId)
    {
        final String text = reader.text();
        final ErrorCode code = ErrorCode.get(reader.errorCode());
        if (streamId == 0)
        {
            final RivuletException error = code == ErrorCode.REJECTED_SETUP || code == ErrorCode.INVALID_SETUP ||
                code == ErrorCode.UNSUPPORTED_SETUP ?
                new RejectedException("connection rejected by " + remoteAddress + ": " + text) :
                new ConnectionClosedException("connection closed by " + remoteAddress + " with " + code + ": " + text);
            lose(error);
            return;
        }
        final ProtocolStream stream = streams.get(streamId);
        if (stream == null)
        {
            return;
        }
        final RivuletException error;
        switch (code)
        {
            case APPLICATION_ERROR:
                error = new ApplicationErrorException(text);
                break;
            case REJECTED:
            case INVALID:
                error = new RejectedException(text);
                break;
            default:
                error = new RivuletException(code + ": " + text);
        }
        stream.reassembly = null;
        stream.onError(error);
        removeStream(stream);
    }

    private void deliverFireAndForget(final Message assembled)
    {
        deliverFireAndForget(assembled, null);
    }

    /**
     * Hands a fire-and-forget to the responder: the zero-copy handler sees the frame (or reassembly)
     * in place, the reactive handler gets an owned message.
     */
    private void deliverFireAndForget(final Message assembled, final Reassembly reassembly)
    {
        counters.onMessageReceived();
        try
        {
            if (responder.fireAndForgetHandler() != null)
            {
                if (reassembly != null)
                {
                    view.wrap(reassembly.metadataBuffer(), reassembly.metadataLength(), reassembly.dataBuffer(),
                        reassembly.dataLength());
                }
                else if (assembled == null)
                {
                    view.wrap(reader.buffer(), reader.metadataOffset(), reader.metadataLength(), reader.dataOffset(),
                        reader.dataLength());
                }
                else
                {
                    view.wrap(assembled.metadata(), assembled.metadataLength(), assembled.data(),
                        assembled.dataLength());
                }
                responder.fireAndForgetHandler().onMessage(view);
            }
            else if (responder.fireAndForget() != null)
            {
                final Message message = assembled != null ? assembled : copyMessage();
                responder.fireAndForget().apply(message).subscribe(null, errorHandler);
            }
        }
        catch (final Throwable ex)
        {
            errorHandler.accept(ex);
        }
    }

    private Message copyMessage()
    {
        final DirectBuffer buffer = reader.buffer();
        final byte[] data = new byte[reader.dataLength()];
        buffer.getBytes(reader.dataOffset(), data);
        final Message message = Message.of(data);
        if (reader.metadataLength() == 0)
        {
            return message;
        }
        final byte[] metadata = new byte[reader.metadataLength()];
        buffer.getBytes(reader.metadataOffset(), metadata);
        return message.metadata(metadata);
    }

    // ------------------------------------------------------------------------------ conductor: closing

    private void protocolError(final String reason)
    {
        counters.onProtocolError();
        errorHandler.accept(new ProtocolViolationException("protocol violation by " + remoteAddress + ": " + reason));
        writeConnectionError(ErrorCode.CONNECTION_ERROR, reason);
        closeGracefully(new ProtocolViolationException("protocol violation by " + remoteAddress + ": " + reason),
            null, null);
    }

    private void writeConnectionError(final ErrorCode code, final String reason)
    {
        final byte[] text = FrameWriter.utf8(reason, Math.min(1024, outbound.maxFrameLength() - FrameWriter.errorLength(0)));
        final int index = outbound.claim(FrameWriter.errorLength(text.length));
        if (index > 0)
        {
            Frames.writer().writeError(outbound.ring().buffer(), index, 0, code, text);
            outbound.commit(index);
        }
    }

    private void writeKeepalive(final boolean respond, final long timestampNs)
    {
        final int index = outbound.claim(FrameWriter.keepaliveLength());
        if (index > 0)
        {
            Frames.writer().writeKeepalive(outbound.ring().buffer(), index, respond, timestampNs);
            outbound.commit(index);
        }
    }

    /** Ends the streams, queues CLOSE (when a code is given) and lets the sender drain before the link closes. */
    private void closeGracefully(final RivuletException cause, final ErrorCode code, final String reason)
    {
        if (closeCause != null)
        {
            return;
        }
        if (code != null)
        {
            final byte[] text = FrameWriter.utf8(reason,
                Math.min(1024, outbound.maxFrameLength() - FrameWriter.closeLength(0)));
            final int index = outbound.claim(FrameWriter.closeLength(text.length));
            if (index > 0)
            {
                Frames.writer().writeClose(outbound.ring().buffer(), index, code, text);
                outbound.commit(index);
            }
        }
        awaitPeerClose = true;
        beginClose(cause, SendMode.DRAIN);
    }

    private void closeByPeer(final String reason)
    {
        beginClose(new ConnectionClosedException("connection closed by peer " + remoteAddress +
            (reason.isEmpty() ? "" : ": " + reason)), SendMode.RELEASE);
    }

    private void lose(final RivuletException cause)
    {
        if (cause instanceof ConnectionLostException)
        {
            counters.onConnectionLost();
        }
        beginClose(cause, SendMode.RELEASE);
    }

    private void beginClose(final RivuletException cause, final SendMode mode)
    {
        if (closeCause != null)
        {
            return;
        }
        open = false;
        closeCause = cause;
        outbound.close();
        final Sinks.One<Connection> accepted = acceptance;
        if (accepted != null)
        {
            acceptance = null;
            accepted.tryEmitError(cause);
        }
        closeDeadlineNs = nowNs + TimeUnit.SECONDS.toNanos(1);
        sendMode = mode;
        final ArrayList<ProtocolStream> live = new ArrayList<>(streams.values());
        streams.clear();
        peerStreams = 0;
        for (int i = 0; i < live.size(); i++)
        {
            live.get(i).terminate(cause);
        }
        if (topics != null)
        {
            topics.onClose(cause); // topic subscriptions end with the connection's cause; cursors stop
        }
        if (regions != null)
        {
            regions.onClose(cause); // lookups and operations in flight fail; the one-sided path closes
        }
        if (datagrams != null)
        {
            datagrams.close(); // the plane forgets the channel on its next cycle
        }
        ProtocolStream stream;
        while ((stream = signals.poll()) != null)
        {
            stream.onSignal();
        }
    }

    private int progressClose(final long nowNs)
    {
        if (!senderReleased)
        {
            if (nowNs - closeDeadlineNs > 0)
            {
                sendMode = SendMode.RELEASE;
            }
            return 0;
        }
        // After a graceful close, wait (bounded) for the peer to close its side: closing first while its
        // frames sit unread would reset the connection, and a reset discards the CLOSE we just sent.
        if (awaitPeerClose && nowNs - closeDeadlineNs < 0)
        {
            try
            {
                link.poll(DISCARD, settings.frameLimit());
                return 0;
            }
            catch (final IOException ex)
            {
                awaitPeerClose = false;
            }
        }
        link.close();
        finished = true;
        if (closeCause instanceof ConnectionLostException || closeCause instanceof ProtocolViolationException ||
            closeCause instanceof RejectedException)
        {
            closed.tryEmitError(closeCause);
        }
        else
        {
            closed.tryEmitEmpty();
        }
        counters.onConnectionClosed();
        return 1;
    }

    private RivuletException closedError()
    {
        final Throwable cause = closeCause;
        return cause instanceof RivuletException ? (RivuletException)cause :
            new ConnectionClosedException("connection to " + remoteAddress + " is closed");
    }

    private boolean tooLarge(final Message message)
    {
        return (long)message.dataLength() + message.metadataLength() > settings.maxMessageLength();
    }

    private MessageTooLargeException tooLargeError(final Message message)
    {
        return new MessageTooLargeException("message of " + ((long)message.dataLength() + message.metadataLength()) +
            " bytes exceeds the maximum of " + settings.maxMessageLength() + " (rivulet.maxMessageLength)");
    }
}
