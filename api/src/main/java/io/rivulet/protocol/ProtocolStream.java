package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import org.reactivestreams.Publisher;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One stream of a connection: an inbound half, an outbound half, or both (a channel), and the
 * writer that orders its frames. Application threads only record intent and {@link #signal()}; the
 * conductor runs {@link #onSignal()} and every frame handler, so the state below is single-writer.
 *
 * <p>A stream leaves the connection's table when both halves are done.
 */
final class ProtocolStream
{
    /** Which side of which interaction this stream is. */
    enum Kind
    {
        REQUESTER_RESPONSE, REQUESTER_STREAM, REQUESTER_CHANNEL,
        RESPONDER_RESPONSE, RESPONDER_STREAM, RESPONDER_CHANNEL,
        /** A fragmented fire-and-forget being reassembled; it has no halves. */
        RESPONDER_FNF
    }

    private static final AtomicIntegerFieldUpdater<ProtocolStream> SIGNALLED =
        AtomicIntegerFieldUpdater.newUpdater(ProtocolStream.class, "signalled");
    private static final AtomicIntegerFieldUpdater<ProtocolStream> ADOPTED =
        AtomicIntegerFieldUpdater.newUpdater(ProtocolStream.class, "adopted");

    private final ProtocolConnection connection;
    private final Kind kind;
    private final StreamWriter writer;
    /** 1 while a signal is queued for the conductor (or, for a stream opened directly, until it is adopted). */
    private volatile int signalled;
    /** 1 once the conductor adopted a directly opened stream, or its opener took it back (closed connection). */
    private volatile int adopted;
    /** The next stream announced to the conductor before this one ({@link StreamTable#announce}). */
    ProtocolStream nextAnnounced;
    final InboundFlow inbound;
    final OutboundFlow outbound;

    // Conductor state.
    private int streamId;
    private boolean open;
    private boolean removed;
    private boolean cancelSent;
    Reassembly reassembly;
    /** Bytes of the peer's request this responder stream holds against the connection's memory budget. */
    private long heldBytes;
    /** Frame type and credits of a request whose fragments are still arriving. */
    int assemblingRequestType;
    int assemblingInitialRequestN;
    /** System.nanoTime() when a requester response's request went out, for the node's round-trip histogram. */
    private long requestSentNs;

    // The opening of a requester channel waits for the outbound producer's first signal.
    private Message firstMessage;
    private boolean outboundCompletedEarly;
    private Throwable outboundErrorEarly;
    private boolean channelOpenRequested;
    private volatile Publisher<Message> channelProducer;
    /** The request of a requester response or stream, sent when the subscriber arrives. */
    Message request;

    ProtocolStream(final ProtocolConnection connection, final Kind kind)
    {
        this.connection = connection;
        this.kind = kind;
        this.writer = new StreamWriter(connection.outbound());
        final ProtocolSettings settings = connection.settings();
        switch (kind)
        {
            case REQUESTER_RESPONSE:
                inbound = new InboundFlow(this, 0);
                outbound = null;
                signalled = 1; // opened on the caller's thread: signals wait for the conductor's adoption
                break;
            case REQUESTER_STREAM:
                inbound = new InboundFlow(this, settings.streamWindow());
                outbound = null;
                break;
            case REQUESTER_CHANNEL:
            case RESPONDER_CHANNEL:
                inbound = new InboundFlow(this, settings.streamWindow());
                outbound = new OutboundFlow(this, writer, false, settings.maxMessageLength(), connection.creditStalls());
                break;
            case RESPONDER_RESPONSE:
                inbound = null;
                outbound = new OutboundFlow(this, writer, true, settings.maxMessageLength(), connection.creditStalls());
                break;
            case RESPONDER_STREAM:
                inbound = null;
                outbound = new OutboundFlow(this, writer, false, settings.maxMessageLength(), connection.creditStalls());
                break;
            default:
                inbound = null;
                outbound = null;
        }
    }

    Kind kind()
    {
        return kind;
    }

    int streamId()
    {
        return streamId;
    }

    StreamWriter writer()
    {
        return writer;
    }

    /** Conductor: the stream got its id and is in the connection's table. */
    void registered(final int streamId)
    {
        this.streamId = streamId;
        writer.streamId(streamId);
    }

    /** Any thread: something changed that the conductor must act on. */
    void signal()
    {
        if (SIGNALLED.compareAndSet(this, 0, 1))
        {
            connection.signal(this);
        }
    }

    /**
     * Any thread, once: claims a directly opened stream, either for the conductor to adopt or for its opener to end
     * (the connection closed under it); whoever claims it is its single writer from then on.
     *
     * @return true for the one caller that claimed it.
     */
    boolean claimAdoption()
    {
        return ADOPTED.compareAndSet(this, 0, 1);
    }

    /**
     * Any thread: the inbound half got its subscriber. A requester opens its request now; a requester
     * channel first asks its producer for the message that will open it.
     */
    void onInboundSubscribed()
    {
        if (kind == Kind.REQUESTER_RESPONSE)
        {
            connection.openDirect(this);
        }
        else if (kind == Kind.REQUESTER_STREAM)
        {
            connection.requestOpen(this);
        }
        else if (kind == Kind.REQUESTER_CHANNEL)
        {
            final Publisher<Message> producer = channelProducer;
            channelProducer = null;
            producer.subscribe(outbound);
            outbound.request(1);
        }
        else
        {
            signal();
        }
    }

    /** Before subscription: the application's outbound publisher of a requester channel. */
    void channelProducer(final Publisher<Message> producer)
    {
        this.channelProducer = producer;
    }

    boolean isRequesterChannel()
    {
        return kind == Kind.REQUESTER_CHANNEL;
    }

    // ---------------------------------------------------------------- requester channel opening

    /** Producer thread: the first outbound message of a requester channel. */
    boolean holdFirst(final Message message)
    {
        synchronized (this)
        {
            if (open || channelOpenRequested)
            {
                return false;
            }
            firstMessage = message;
            channelOpenRequested = true;
        }
        connection.requestOpen(this);
        return true;
    }

    /** Producer thread: the outbound side completed before the channel opened. */
    boolean holdComplete()
    {
        synchronized (this)
        {
            if (open)
            {
                return false;
            }
            outboundCompletedEarly = true;
            if (channelOpenRequested)
            {
                return true;
            }
            channelOpenRequested = true;
        }
        connection.requestOpen(this);
        return true;
    }

    /** Producer thread: the outbound side failed before the channel opened. */
    boolean holdError(final Throwable error)
    {
        synchronized (this)
        {
            if (open)
            {
                return false;
            }
            outboundErrorEarly = error;
            if (channelOpenRequested)
            {
                return true;
            }
            channelOpenRequested = true;
        }
        connection.requestOpen(this);
        return true;
    }

    /**
     * Caller's thread, before the conductor knows the stream: a request-response opens without a conductor command.
     * Signals from the subscriber wait until the conductor adopts the stream (which then acts on them: the stream
     * is created signalled), so nothing but this thread touches the stream's state until
     * {@link StreamTable#announce} publishes it.
     */
    void prepareDirectOpening(final int streamId)
    {
        registered(streamId);
        open = true;
        requestSentNs = System.nanoTime();
    }

    /** Caller's thread, after {@link StreamTable#announce}: writes the request into the outbound ring. */
    void sendDirectOpening(final Message request)
    {
        writer.sendMessage(FrameType.REQUEST_RESPONSE, 0, FrameFlags.NEXT, request);
    }

    /**
     * Conductor: sends the opening request frame. Called once the stream is registered.
     *
     * @param request the request message (null for a channel, whose first message was held).
     */
    void sendOpening(final Message request)
    {
        switch (kind)
        {
            case REQUESTER_STREAM:
                open = true;
                writer.sendMessage(FrameType.REQUEST_STREAM, inbound.takeCreditsToGrant(), FrameFlags.NEXT, request);
                break;

            case REQUESTER_CHANNEL:
                // Under the lock so that a producer seeing 'open' writes only after the opening frame.
                synchronized (this)
                {
                    final Message first = firstMessage;
                    firstMessage = null;
                    if (first == null && outboundErrorEarly != null)
                    {
                        // Nothing was sent: fail locally without troubling the peer.
                        open = true;
                        outbound.stop();
                        inbound.onRemoteError(outboundErrorEarly);
                        break;
                    }
                    byte flags = first != null ? FrameFlags.NEXT : 0;
                    if (outboundCompletedEarly)
                    {
                        flags |= FrameFlags.COMPLETE;
                    }
                    writer.sendMessage(FrameType.REQUEST_CHANNEL, inbound.takeCreditsToGrant(), flags, first);
                    if (outboundErrorEarly != null)
                    {
                        writer.sendError(ErrorCode.APPLICATION_ERROR, String.valueOf(outboundErrorEarly.getMessage()));
                    }
                    open = true;
                }
                break;

            default:
                throw new IllegalStateException("not a requester: " + kind);
        }
        onSignal();
    }

    boolean isOpen()
    {
        return open;
    }

    /** Conductor: a responder stream is registered and live. */
    void openAsResponder()
    {
        open = true;
    }

    /** Conductor: subscribes the outbound half to the handler's producer and grants initial credits. */
    void startOutbound(final Publisher<Message> producer, final long initialCredits)
    {
        producer.subscribe(outbound);
        if (initialCredits > 0)
        {
            outbound.onCredits(initialCredits);
        }
    }

    // ---------------------------------------------------------------- conductor events

    /** Conductor: act on whatever application threads recorded. */
    void onSignal()
    {
        signalled = 0;
        if (removed)
        {
            return;
        }
        if (inbound != null && open)
        {
            // Our producer failed and an ERROR went to the peer, which ends the whole stream there: end the
            // inbound half here too, or its subscriber would wait for frames that never come.
            final Throwable outboundFailure = outbound == null ? null : outbound.failure();
            if (outboundFailure != null)
            {
                inbound.onRemoteError(outboundFailure);
            }
            // Drain first: a subscriber may cancel while it receives (next(), take(n)), and the CANCEL must
            // go out in this call, before removeIfDone() can drop the stream and its pending signal.
            inbound.drain();
            // A channel handler whose reply ended without ever subscribing to its inbound never will: cancel it,
            // or the requester's producer would wait for credits forever and the stream never leave the table.
            if (kind == Kind.RESPONDER_CHANNEL && outbound.isDone() && !inbound.isDone())
            {
                inbound.abandonIfUnsubscribed();
            }
            if (inbound.needsRemoteCancel() && !cancelSent)
            {
                cancelSent = true;
                writer.sendCancel();
                // A requester that cancels ends the whole channel; a responder that stops reading keeps replying.
                if (outbound != null && kind == Kind.REQUESTER_CHANNEL)
                {
                    outbound.stop();
                }
            }
            final int credits = inbound.takeCreditsToGrant();
            if (credits > 0)
            {
                writer.sendRequestN(credits);
            }
        }
        else if (inbound != null)
        {
            inbound.drain();
        }
        removeIfDone();
    }

    /** Conductor: a message (whole or reassembled) arrived for the inbound half. */
    boolean onMessage(final Message message, final byte flags)
    {
        if (inbound == null)
        {
            return false;
        }
        if (kind == Kind.REQUESTER_RESPONSE)
        {
            // Before the subscriber sees the reply, so that the round trip is in the histogram once it has.
            connection.counters().onRequestResponseReply(connection.replyArrivalNs() - requestSentNs);
        }
        if (FrameFlags.isSet(flags, FrameFlags.NEXT) && !inbound.onMessage(message, false))
        {
            return false;
        }
        if (FrameFlags.isSet(flags, FrameFlags.COMPLETE) || kind == Kind.REQUESTER_RESPONSE)
        {
            inbound.onRemoteComplete();
        }
        onSignal();
        return true;
    }

    /** Conductor: the message that opened a responder channel, delivered without credit. */
    void onFirstMessage(final Message message, final byte flags)
    {
        if (FrameFlags.isSet(flags, FrameFlags.NEXT))
        {
            inbound.onMessage(message, true);
        }
        if (FrameFlags.isSet(flags, FrameFlags.COMPLETE))
        {
            inbound.onRemoteComplete();
        }
    }

    /** Conductor: REQUEST_N from the peer. */
    void onRequestN(final int n)
    {
        if (outbound != null)
        {
            outbound.onCredits(n);
        }
    }

    /**
     * Conductor: CANCEL from the peer stops our producer. From a requester it ends the whole stream,
     * so a responder channel's inbound half completes; from a responder it only means "send no more".
     */
    void onCancel()
    {
        if (outbound != null)
        {
            outbound.stop();
        }
        if (inbound != null && kind == Kind.RESPONDER_CHANNEL)
        {
            inbound.onRemoteComplete();
        }
        removeIfDone();
    }

    /** Conductor: ERROR from the peer, or the connection ended. Ends both halves. */
    void onError(final Throwable error)
    {
        if (outbound != null)
        {
            outbound.stop();
        }
        if (inbound != null)
        {
            inbound.onRemoteError(error);
        }
        else if (kind == Kind.RESPONDER_FNF)
        {
            dropReassembly();
        }
        removeIfDone();
    }

    /** Conductor: the connection is gone; end everything without writing frames. */
    void terminate(final Throwable error)
    {
        firstMessage = null;
        releaseMemory();
        if (outbound != null)
        {
            outbound.stop();
        }
        if (inbound != null)
        {
            inbound.onRemoteError(error);
        }
        removed = true;
    }

    private void removeIfDone()
    {
        if (removed || !open)
        {
            return;
        }
        final boolean inboundDone = inbound == null || inbound.isDone();
        final boolean outboundDone = outbound == null || outbound.isDone();
        if (inboundDone && outboundDone && kind != Kind.RESPONDER_FNF)
        {
            removed = true;
            connection.removeStream(this);
        }
    }

    /** Conductor: a message is complete or the stream ends: its fragments' bytes go back to the budget. */
    void dropReassembly()
    {
        if (reassembly != null)
        {
            reassembly.release();
            reassembly = null;
        }
    }

    /**
     * Conductor: the peer's request stays with this responder stream while it is open.
     *
     * @return null when the budget took it, else why not.
     */
    String hold(final long bytes)
    {
        final String refused = connection.memory().reserve(bytes);
        if (refused == null)
        {
            heldBytes += bytes;
        }
        return refused;
    }

    /** Conductor: the stream left the table: everything it held goes back to the budget. */
    void releaseMemory()
    {
        dropReassembly();
        if (heldBytes > 0)
        {
            connection.memory().release(heldBytes);
            heldBytes = 0;
        }
    }

    /** Conductor: removes a stream that has no halves (a reassembled fire-and-forget). */
    void removeNow()
    {
        removed = true;
        connection.removeStream(this);
    }
}
