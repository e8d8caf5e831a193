package io.rivulet.protocol;

import io.rivulet.Acceptor;
import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.ConnectionLostException;
import io.rivulet.LimitExceededException;
import io.rivulet.Message;
import io.rivulet.ReplyHandler;
import io.rivulet.Responder;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.region.RegionEndpoint;
import io.rivulet.security.Authenticator;
import io.rivulet.serde.Codecs;
import io.rivulet.spi.FramingException;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.NodeExtension;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.Violation;
import io.rivulet.topic.TopicEndpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.AtomicCounter;
import reactor.core.publisher.Sinks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One connection's protocol as the engine drives it: it builds the connection's parts and runs them in its duty
 * cycle. The parts, each with one role:
 *
 * <ul>
 *   <li>{@link ConnectionFacade}: the {@link Connection} the application holds ({@link #api()});</li>
 *   <li>{@link InboundDispatcher}: decodes every frame from the link and dispatches it by type;</li>
 *   <li>{@link StreamTable} and {@link InboundStreams}: the streams by id, and the stream frames;</li>
 *   <li>{@link SetupHandshake}: SETUP, authentication and the client's wait for acceptance;</li>
 *   <li>{@link Keepalive}: liveness in both directions;</li>
 *   <li>{@link ConnectionClose}: the close state machine;</li>
 *   <li>{@link ConnectionExtensions}: the node's extensions (topics, regions, datagrams) on this connection.</li>
 * </ul>
 *
 * <p>Threading: the conductor calls the methods here, except those of {@link ConnectionOutput}, which the sender
 * agent calls. Streams created on application threads reach the conductor through {@link #signal}, through
 * {@link #requestOpen} (streams and channels), or announced in the stream table by {@link #openDirect}
 * (request-response, opened on the caller's thread).
 */
public final class ProtocolConnection implements ConnectionOutput
{
    /** Version of the protocol carried in SETUP. */
    public static final int PROTOCOL_VERSION = SetupHandshake.PROTOCOL_VERSION;

    private final ReliableLink link;
    private final Outbound outbound;
    private final ProtocolSettings settings;
    private final ConnectionCounters counters;
    private final Executor conductor;
    private final String remoteAddress;
    private final ManyToOneConcurrentLinkedQueue<ProtocolStream> signals = new ManyToOneConcurrentLinkedQueue<>();
    private final StreamTable streams;
    private final Keepalive keepalive;
    private final ConnectionClose close;
    private final SetupHandshake setup;
    private final ConnectionExtensions extensions;
    private final InboundDispatcher dispatcher;
    private final InboundStreams inboundStreams;
    private final ConnectionFacade api;
    private final ConnectionMemory memory;
    private final boolean client;
    /** Frames the sender drains from the ring, for {@link FrameLogger}; null when it was off at creation. */
    private final FrameLogger sentFrames;
    /** When the replies of a poll arrived, for the round-trip histogram. */
    private final ArrivalClock arrivalClock = new ArrivalClock(SystemNanoClock.INSTANCE);
    /** Set by the sender when it sent application messages, cleared by the conductor's idle check. */
    private volatile boolean messagesSent;
    private long nowNs;

    /**
     * A connection without authentication or extensions (protocol tests).
     *
     * @see #ProtocolConnection(ReliableLink, Outbound, ProtocolSettings, ConnectionCounters, boolean, Responder,
     *      Authenticator, List, MemoryBudget, ReassemblyPool, Executor, Consumer, long)
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
        this(link, outbound, settings, counters, client, responder, null, List.of(), MemoryBudget.unlimited(),
            ReassemblyPool.forNode(settings.maxMessageLength(), settings.maxNodeMemory(), System::nanoTime), conductor,
            errorHandler, nowNs);
    }

    /**
     * @param link          the established link.
     * @param outbound      the connection's outbound ring.
     * @param settings      limits and timings.
     * @param counters      the node's counters this connection adds to.
     * @param client        true on the connecting side (odd stream ids, sends SETUP).
     * @param responder     handlers for requests from the peer.
     * @param authenticator server side: who may connect (run on SETUP); null accepts everyone.
     * @param nodeExtensions the node's extensions, in order; each attaches to this connection now.
     * @param memory        the node's budget for what connections hold on behalf of their peers.
     * @param reassemblies  the node's spare reassembly buffers (conductor only, like the connection).
     * @param conductor     runs commands on the conductor thread.
     * @param errorHandler  receives errors that have no subscriber to go to.
     * @param nowNs         the conductor's clock at creation.
     */
    public ProtocolConnection(
        final ReliableLink link,
        final Outbound outbound,
        final ProtocolSettings settings,
        final ConnectionCounters counters,
        final boolean client,
        final Responder responder,
        final Authenticator authenticator,
        final List<NodeExtension> nodeExtensions,
        final MemoryBudget memory,
        final ReassemblyPool reassemblies,
        final Executor conductor,
        final Consumer<Throwable> errorHandler,
        final long nowNs)
    {
        this.link = link;
        this.outbound = outbound;
        this.settings = settings;
        this.counters = counters;
        this.conductor = conductor;
        this.remoteAddress = link.remoteAddress();
        this.client = client;
        this.nowNs = nowNs;
        this.sentFrames = FrameLogger.outbound(counters.connectionId(), link);
        final FrameReader reader = new FrameReader();
        final ControlFrames control = new ControlFrames(outbound);
        streams = new StreamTable(client, this::adoptAnnounced);
        keepalive = new Keepalive(control, settings.keepaliveIntervalNs(), settings.keepaliveTimeoutNs(), nowNs);
        close = new ConnectionClose(link, outbound, control, counters, this::onClosing, () -> this.nowNs,
            settings.frameLimit());
        setup = new SetupHandshake(client, link, outbound, control, close, keepalive, settings, counters,
            authenticator, errorHandler, nowNs);
        extensions = new ConnectionExtensions(nodeExtensions, link, outbound, control, close, counters, settings,
            errorHandler, sentFrames);
        this.memory = memory.open(outbound::parkedBytes, reason -> extensions.violation(Violation.LIMIT_EXCEEDED,
            reason));
        api = new ConnectionFacade(this, outbound, settings, counters, close, conductor,
            extensions.extension(TopicEndpoint.class), extensions.extension(RegionEndpoint.class));
        inboundStreams = new InboundStreams(this, streams, reader, control, extensions, settings,
            counters, reassemblies, errorHandler, client, link.localAddress());
        serve(responder);
        dispatcher = new InboundDispatcher(reader, api, setup, inboundStreams, keepalive, close, extensions, counters,
            remoteAddress, FrameLogger.inbound(counters.connectionId(), link));
    }

    /**
     * Checks that a node's extensions can run together: each claims known frame types that neither the core nor
     * another extension handles.
     *
     * @throws IllegalArgumentException naming the extension and the frame type.
     */
    public static void checkExtensions(final List<NodeExtension> extensions)
    {
        ExtensionFrameTypes.checkAll(extensions);
    }

    /** @return the connection as the application holds it. */
    public Connection api()
    {
        return api;
    }

    /** @return this connection's counters (its own, labelled with its id, and the node totals they add to). */
    public ConnectionCounters counters()
    {
        return counters;
    }

    /**
     * Conductor: the time a reply arrived, for the round-trip histogram; one clock read per poll of the link.
     *
     * @return System.nanoTime() as the poll handling the reply first read it.
     */
    long replyArrivalNs()
    {
        return arrivalClock.nanoTime();
    }

    /** @return the connection id, unique in the node, that labels its counters and log lines. */
    public long connectionId()
    {
        return counters.connectionId();
    }

    /** @return the peer's address. */
    public String remoteAddress()
    {
        return remoteAddress;
    }

    // ------------------------------------------------------------------------------ sender agent

    @Override
    public ReliableLink link()
    {
        return link;
    }

    @Override
    public Outbound outbound()
    {
        return outbound;
    }

    @Override
    public SendMode sendMode()
    {
        return close.sendMode();
    }

    @Override
    public void onFramesSent(final int frames, final long bytes, final int messages)
    {
        counters.onFramesSent(frames, bytes, messages);
        if (messages > 0 && !messagesSent)
        {
            messagesSent = true; // the connection is in use: the idle check sees it on its next cycle
        }
    }

    @Override
    public boolean logsFrames()
    {
        return sentFrames != null;
    }

    @Override
    public void logFrameSent(final DirectBuffer buffer, final int offset, final int length)
    {
        sentFrames.log(buffer, offset, length);
    }

    @Override
    public void onSendFailed(final IOException failure)
    {
        close.onSendFailed(failure);
    }

    @Override
    public void onSenderReleased()
    {
        close.onSenderReleased();
    }

    // ------------------------------------------------------------------------------ conductor

    /** Server, before the first duty cycle: replaces the authenticator (protocol tests). */
    void authenticator(final Authenticator authenticator)
    {
        setup.authenticator(authenticator);
    }

    /**
     * Server, before the first duty cycle: the acceptor chooses the responder from the connection's SETUP, or
     * refuses it, instead of the responder given at creation.
     */
    public void acceptor(final Acceptor acceptor)
    {
        setup.acceptor(acceptor, api, this::serve);
    }

    /** Conductor, before the application sees the connection: how {@code block()} on its replies waits. */
    public void replyWait(final ReplyWait replyWait)
    {
        api.replyWait(replyWait);
    }

    /** Conductor: the codecs routed requests on this connection encode with (the node's). */
    public void codecs(final Codecs codecs)
    {
        api.codecs(codecs);
    }

    /**
     * The one place the responder serving this connection's peer is set: at creation, or when the acceptor chose it.
     * Conductor, before any request is read.
     */
    private void serve(final Responder responder)
    {
        inboundStreams.responder(responder);
    }

    /** Client, once: sends SETUP, then the extensions' opening frames. */
    public void sendSetup(final byte[] metadata, final byte[] data)
    {
        setup.sendSetup(metadata, data);
        extensions.onSetupComplete();
    }

    /** Client, after {@link #sendSetup}: completes the sink with {@link #api()} once the server accepted SETUP. */
    public void awaitAcceptance(final Sinks.One<Connection> acceptance)
    {
        setup.awaitAcceptance(acceptance, nowNs);
    }

    /** @return true while a server's connection waits for its peer's SETUP and is not closing. */
    public boolean awaitsSetup()
    {
        return !setup.isComplete() && !close.isClosing();
    }

    /** @return true when the connection is closed and released by the sender: the conductor drops it. */
    public boolean isFinished()
    {
        return close.isFinished();
    }

    /**
     * One duty cycle for this connection.
     *
     * @param nowNs the cycle's clock.
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        this.nowNs = nowNs;
        dispatcher.nowNs(nowNs);
        if (close.isFinished())
        {
            return 0;
        }
        int work = 0;
        if (!close.isClosing())
        {
            work += setup.checkDeadline(nowNs);
        }
        if (!close.isClosing())
        {
            work += pollLink();
            work += processSignals();
            work += outbound.flushParked();
            memory.check();
            work += extensions.doWork(nowNs);
            work += checkIdle(nowNs);
            work += close.checkSendFailure();
        }
        if (close.isClosing())
        {
            work += close.progress(nowNs);
        }
        return work;
    }

    /**
     * Server: closes a connection that carried nothing but KEEPALIVE for the idle timeout, with no stream open and
     * no layer holding it, so that idle clients cannot hold the node's connection slots for ever.
     */
    private int checkIdle(final long nowNs)
    {
        if (client || settings.idleTimeoutNs() == 0 || !setup.isComplete())
        {
            return 0;
        }
        if (messagesSent || !streams.isEmpty() || extensions.keepsConnection())
        {
            messagesSent = false;
            keepalive.onActive(nowNs);
            return 0;
        }
        final long idleNs = keepalive.idleNs(nowNs);
        if (idleNs <= settings.idleTimeoutNs())
        {
            return 0;
        }
        final String reason = "idle for " + TimeUnit.NANOSECONDS.toMillis(idleNs) + " ms (rivulet.idleTimeout " +
            TimeUnit.NANOSECONDS.toMillis(settings.idleTimeoutNs()) + " ms)";
        close.closeGracefully(new ConnectionClosedException("connection from " + remoteAddress + " closed: " + reason),
            ErrorCode.CONNECTION_CLOSE, reason);
        return 1;
    }

    /**
     * The keepalive timer fired.
     *
     * @return the deadline of the next check, or 0 once the connection is closing.
     */
    public long onKeepaliveTimer(final long nowNs)
    {
        this.nowNs = nowNs;
        if (close.isClosing())
        {
            return 0;
        }
        // A server says nothing before it accepts SETUP (its ring is small and must stay empty), but a silent peer
        // is still lost.
        final long silentNs = keepalive.onTimer(nowNs, setup.isComplete());
        if (silentNs > 0)
        {
            close.lose(new ConnectionLostException("no frame from " + remoteAddress + " for " +
                TimeUnit.NANOSECONDS.toMillis(silentNs) + " ms (keepalive timeout " +
                TimeUnit.NANOSECONDS.toMillis(keepalive.timeoutNs()) + " ms)"));
            return 0;
        }
        return nowNs + keepalive.intervalNs();
    }

    /**
     * @return whether the keepalive changed (a server granted the client's, a client followed the grant): reschedule
     *         the timer to {@link #keepaliveIntervalNs()} from now.
     */
    public boolean takeKeepaliveChanged()
    {
        return keepalive.takeChanged();
    }

    /** @return how often this side sends KEEPALIVE now. */
    public long keepaliveIntervalNs()
    {
        return keepalive.intervalNs();
    }

    /** @return the id of this connection's pending keepalive timer, -1 for none. */
    public long keepaliveTimerId()
    {
        return keepalive.timerId();
    }

    public void keepaliveTimerId(final long timerId)
    {
        keepalive.timerId(timerId);
    }

    /** The node is closing: CLOSE, then drain. */
    public void closeForShutdown()
    {
        close.closeGracefully(new ConnectionClosedException("node closed"), ErrorCode.CONNECTION_CLOSE, "node closed");
    }

    /**
     * Conductor, once the connection {@link #isFinished()}: gives back what it held, frames parked for the ring
     * included, and its ring to the node's pool, neither waiting for GC.
     *
     * @return false when a producer is still inside the ring: call again later.
     */
    public boolean release()
    {
        outbound.flushParked(); // closed: every parked frame is dropped and its bytes given back
        memory.close();
        return outbound.free();
    }

    /**
     * The node's engine failed: the connection ends now as lost, its requests and streams failing with the failure
     * as their cause, and finishes without waiting for the peer (the sender has stopped).
     */
    public void fail(final Throwable failure)
    {
        close.lose(new ConnectionLostException("connection to " + remoteAddress + " lost: node failed: " + failure,
            failure));
        close.abort();
    }

    /** Forces the close to finish now (node shutdown deadline). */
    public void abort()
    {
        close.abort();
    }

    private int pollLink()
    {
        arrivalClock.pollStarted();
        try
        {
            final int frames = link.poll(dispatcher, settings.frameLimit());
            if (link.needsFlushAfterPoll(frames))
            {
                outbound.scheduleSend(); // the link may owe its peer something only a flush sends: credits
            }
            return frames;
        }
        catch (final LinkClosedException ex)
        {
            close.lose(new ConnectionClosedException("connection closed by peer " + remoteAddress));
        }
        catch (final FramingException ex)
        {
            extensions.violation(Violation.MALFORMED_FRAME, ex.getMessage());
        }
        catch (final IOException ex)
        {
            close.lose(new ConnectionLostException("connection to " + remoteAddress + " lost: " + ex.getMessage(), ex));
        }
        finally
        {
            arrivalClock.pollEnded();
        }
        return 1;
    }

    private int processSignals()
    {
        int work = adoptAnnounced();
        ProtocolStream stream;
        while ((stream = signals.poll()) != null)
        {
            stream.onSignal();
            work++;
        }
        return work;
    }

    /** The close began: the connect fails, streams and extensions end with the cause, signals are answered. */
    private void onClosing(final RivuletException cause)
    {
        setup.onClosing(cause);
        adoptAnnounced(); // closing: each is terminated
        inboundStreams.endReplies(streams.takeAllReplies(), cause);
        final ArrayList<ProtocolStream> live = streams.removeAll();
        for (int i = 0; i < live.size(); i++)
        {
            live.get(i).terminate(cause);
        }
        extensions.onClose(cause);
        processSignals();
    }

    // ------------------------------------------------------------------------------ streams

    /** @return why the connection closed (or is closing), for what ends with it. */
    RivuletException closedError()
    {
        return close.closedError();
    }

    ConnectionMemory memory()
    {
        return memory;
    }

    ProtocolSettings settings()
    {
        return settings;
    }

    AtomicCounter creditStalls()
    {
        return counters.creditStalls();
    }

    /** Any thread: the stream has something for the conductor. */
    void signal(final ProtocolStream stream)
    {
        signals.offer(stream);
        outbound.afterHandOff();
    }

    /** Any thread: a requester stream wants its id and opening frame. */
    void requestOpen(final ProtocolStream stream)
    {
        conductor.execute(() -> openRequester(stream));
    }

    /**
     * The subscriber's thread: a request-response takes its id, announces its stream so the reply can find it, and
     * writes its request into the outbound ring, all without a conductor command (as {@code offer} does).
     */
    void openDirect(final ProtocolStream stream)
    {
        final Message request = stream.request;
        stream.request = null;
        if (stream.inbound.isCancelled())
        {
            return; // cancelled in onSubscribe: nothing was sent, and nothing is owed to the subscriber
        }
        if (!close.isOpen())
        {
            stream.terminate(close.closedError()); // only this thread knows the stream
            return;
        }
        final int id = ownStreamId(stream);
        if (id == 0)
        {
            return;
        }
        stream.prepareDirectOpening(id);
        streams.announce(stream);
        if (!close.isOpen())
        {
            // The close may have adopted the announced streams already, or may never look again: whoever claims
            // the stream ends it. The request is not sent either way.
            if (stream.claimAdoption())
            {
                streams.release(id);
                stream.terminate(close.closedError());
            }
            return;
        }
        stream.sendDirectOpening(request);
    }

    /**
     * Any thread: a zero-copy request ({@code Connection.offerRequest}) takes its id and a pooled entry that waits for
     * the reply, then writes its frame into the outbound ring; nothing is allocated and no conductor command runs.
     *
     * @return the request's id, or {@code Connection.BACK_PRESSURED} / {@code Connection.CLOSED}.
     */
    long offerRequest(final DirectBuffer buffer, final int offset, final int length, final ReplyHandler handler)
    {
        final PendingReply reply = streams.openReply(settings.maxPendingRequests(), handler, System.nanoTime());
        if (reply == null)
        {
            return streams.repliesClosed() ? Connection.CLOSED : Connection.BACK_PRESSURED;
        }
        final int id = reply.streamId;
        if (outbound.offerPayloadFrame(FrameType.REQUEST_RESPONSE, id, FrameFlags.NEXT, buffer, offset, length))
        {
            return id;
        }
        // Nothing was sent. Unless the close took the entry meanwhile (its handler hears of the close, so the caller
        // gets the id), it goes back, and the caller hears why.
        final PendingReply untaken = streams.takeReply(id, true);
        if (untaken == null)
        {
            return id;
        }
        streams.recycle(untaken);
        return close.isOpen() ? Connection.BACK_PRESSURED : Connection.CLOSED;
    }

    /**
     * Any thread: cancels a zero-copy request still waiting for its reply. Taking it out of the table decides the
     * race with its reply; the CANCEL goes out from the conductor, which then frees the id.
     */
    boolean cancelRequest(final long requestId)
    {
        if (requestId <= 0 || requestId > Integer.MAX_VALUE || !streams.isOwnId((int)requestId))
        {
            return false;
        }
        final PendingReply reply = streams.takeReply((int)requestId, false);
        if (reply == null)
        {
            return false;
        }
        conductor.execute(() -> inboundStreams.cancelReply(reply, !close.isClosing()));
        return true;
    }

    /**
     * Conductor: puts the streams opened on application threads into the table (or, closing, ends them) and acts on
     * the signals they held meanwhile.
     *
     * @return the streams adopted.
     */
    private int adoptAnnounced()
    {
        int adopted = 0;
        ProtocolStream stream = streams.takeAnnounced();
        while (stream != null)
        {
            final ProtocolStream next = stream.nextAnnounced;
            stream.nextAnnounced = null;
            if (stream.claimAdoption())
            {
                adopted++;
                if (close.isClosing())
                {
                    streams.release(stream.streamId());
                    stream.terminate(close.closedError());
                }
                else
                {
                    streams.put(stream.streamId(), stream);
                    stream.onSignal();
                }
            }
            stream = next;
        }
        return adopted;
    }

    /**
     * Any thread: an id for one of this side's requests, or 0 when {@code maxPendingRequests} are open already; the
     * stream is then ended with the refusal (only its opener knows it yet).
     */
    private int ownStreamId(final ProtocolStream stream)
    {
        final int id = streams.allocateOwn(settings.maxPendingRequests());
        if (id == 0)
        {
            counters.onLimitRejection();
            stream.terminate(new LimitExceededException("request to " + remoteAddress + " refused: " +
                settings.maxPendingRequests() +
                " requests already open on this connection (rivulet.maxPendingRequests)"));
        }
        return id;
    }

    void removeStream(final ProtocolStream stream)
    {
        streams.remove(stream);
    }

    /** Conductor: a fire-and-forget too long for one frame goes as fragments on a stream id of its own. */
    void sendFragmented(final Message message, final Sinks.Empty<Void> sent)
    {
        if (close.isClosing())
        {
            sent.tryEmitError(close.closedError());
            return;
        }
        final StreamWriter writer = new StreamWriter(outbound);
        writer.streamId(streams.allocate());
        writer.sendMessage(FrameType.REQUEST_FNF, 0, FrameFlags.NEXT, message);
        sent.tryEmitEmpty();
    }

    private void openRequester(final ProtocolStream stream)
    {
        if (close.isClosing())
        {
            stream.terminate(close.closedError());
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
        final int id = ownStreamId(stream);
        if (id == 0)
        {
            return;
        }
        streams.put(id, stream);
        stream.registered(id);
        stream.sendOpening(stream.request);
        stream.request = null;
    }

    @Override
    public String toString()
    {
        return api.toString();
    }
}
