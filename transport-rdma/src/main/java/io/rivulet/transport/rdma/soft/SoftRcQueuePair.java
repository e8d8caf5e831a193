package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.MutableDirectBuffer;

import java.io.IOException;

/**
 * A soft RC queue pair: reliable and in order over its connection's {@link Wire}, with the requester
 * and responder behaviour of InfiniBand RC.
 *
 * <p>The queue pair owns the state (INIT, RTR, RTS, ERROR), validates posts, and routes frames: requests
 * from the peer to its {@link SoftRcResponder}, responses to its {@link SoftRcRequester}. Each NIC duty
 * cycle emits responses first, so requests from the peer never wait behind ours, then transmits.
 *
 * <p><b>Errors.</b> Any error completion moves the queue pair to ERROR; outstanding and later requests
 * and receives complete with WR_FLUSH_ERROR. Responder errors (remote access, a SEND longer than the
 * receive) move the responder to ERROR too, as InfiniBand class C errors do. A queue pair that enters
 * ERROR tells its peer, whose outstanding requests then complete with RETRY_EXCEEDED_ERROR (what a
 * requester sees on hardware when the responder stops answering).
 *
 * <p>Posting is thread-safe (serialised per queue); everything else runs on the device's NIC thread.
 */
final class SoftRcQueuePair implements QueuePair
{
    /** Outstanding READ and atomic requests per queue pair (max_rd_atomic / max_dest_rd_atomic). */
    static final int MAX_RD_ATOMIC = 16;

    private final SoftVerbsContext context;
    private final SoftConnection connection;
    private final QueuePairConfig config;
    private final SoftProtectionDomain pd;
    private final int qpNumber;
    private final SendQueue sendQueue;
    private final ReceiveQueue receiveQueue;
    private final SoftRcRequester requester;
    private final SoftRcResponder responder;
    private volatile QpState state = QpState.INIT;
    private volatile boolean destroyed;
    private int remoteQpNumber;
    private boolean completionLost;
    private boolean errorNoticePending;
    private boolean errorEntered;

    SoftRcQueuePair(
        final SoftVerbsContext context,
        final SoftConnection connection,
        final QueuePairConfig config,
        final int qpNumber)
    {
        this.context = context;
        this.connection = connection;
        this.config = config;
        this.pd = (SoftProtectionDomain)config.pd();
        this.qpNumber = qpNumber;
        sendQueue = new SendQueue(config.maxSendWr(), config.maxInlineData());
        receiveQueue = new ReceiveQueue(config.maxReceiveWr());
        // The halves only keep this reference; they call back on the NIC thread, after construction.
        requester = new SoftRcRequester(this, context, config, sendQueue);
        responder = new SoftRcResponder(this, context, config, receiveQueue);
    }

    // ------------------------------------------------------------------ QueuePair

    @Override
    public QpType type()
    {
        return QpType.RC;
    }

    @Override
    public QpState state()
    {
        return state;
    }

    @Override
    public int qpNumber()
    {
        return qpNumber;
    }

    @Override
    public UdAddress udAddress()
    {
        return null;
    }

    @Override
    public void postSend(final SendWorkRequest request) throws IOException
    {
        if (destroyed)
        {
            throw new VerbsException("queue pair closed");
        }
        final QpState current = state;
        if (current != QpState.RTS && current != QpState.ERROR)
        {
            throw new VerbsException("queue pair not ready to send (state " + current + ")");
        }
        final Opcode opcode = request.opcode();
        if (opcode == null)
        {
            throw new VerbsException("no opcode");
        }
        final long total = ScatterGather.checkSges(request);
        if (opcode == Opcode.ATOMIC_CMP_AND_SWP || opcode == Opcode.ATOMIC_FETCH_AND_ADD)
        {
            if (request.sgeCount() != 1 || request.sge(0).length() != Long.BYTES)
            {
                throw new VerbsException("atomics take exactly one 8-byte scatter-gather entry");
            }
        }
        final boolean inline = ScatterGather.checkInline(request, total, config.maxInlineData(), pd);
        if (inline && (opcode == Opcode.RDMA_READ || opcode.isOneSided() && opcode != Opcode.RDMA_WRITE))
        {
            throw new VerbsException("INLINE applies to SEND and WRITE only, not " + opcode);
        }
        sendQueue.post(request, total, inline);
        context.nic().wake();
    }

    @Override
    public void postReceive(final ReceiveWorkRequest request) throws IOException
    {
        if (destroyed)
        {
            throw new VerbsException("queue pair closed");
        }
        if (request.sge().length() < 0)
        {
            throw new VerbsException("negative receive length");
        }
        receiveQueue.post(request);
        context.nic().wake();
    }

    @Override
    public void close()
    {
        connection.close();
    }

    // ------------------------------------------------------------------ connection events (NIC thread)

    /** The connection was accepted: receives may arrive once established. */
    void onReadyToReceive()
    {
        if (state == QpState.INIT)
        {
            state = QpState.RTR;
        }
    }

    void onEstablished(final int remoteQpNumber)
    {
        this.remoteQpNumber = remoteQpNumber;
        if (state == QpState.INIT || state == QpState.RTR)
        {
            state = QpState.RTS;
        }
    }

    /** The peer disconnected or the wire broke: flush, no notice (nobody is listening). */
    void onDisconnected()
    {
        enterError(false);
    }

    void destroyOnNic()
    {
        enterError(false);
        destroyed = true;
    }

    /**
     * Duty cycle: flushes in ERROR, otherwise emits responses first (so requests from the peer never
     * wait behind ours) and then transmits posted requests.
     */
    int doWork(final long nowNs, final Wire wire)
    {
        int work = 0;
        final boolean wireUsable = wire != null && !wire.isClosed();
        if (state == QpState.ERROR)
        {
            enterError(true); // no-op once entered
            work += requester.flushSends() + responder.flushReceives();
            if (wireUsable)
            {
                work += responder.emitResponses(wire);
                if (errorNoticePending && !responder.hasPendingResponses())
                {
                    work += emitErrorNotice(wire);
                }
            }
            return work;
        }
        if (state != QpState.RTS || !wireUsable)
        {
            return 0;
        }
        try
        {
            work += responder.emitResponses(wire);
            work += requester.transmit(nowNs, wire);
        }
        finally
        {
            afterEvent();
        }
        return work;
    }

    // ------------------------------------------------------------------ frames (NIC thread)

    void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        if (state == QpState.ERROR || destroyed)
        {
            return; // a QP in ERROR answers nothing; its peer was told
        }
        try
        {
            final int type = Frames.type(buffer, offset);
            switch (type)
            {
                case Frames.SEND:
                case Frames.WRITE:
                case Frames.READ_REQUEST:
                case Frames.ATOMIC_REQUEST:
                    responder.onRequest(type, buffer, offset, length);
                    break;

                case Frames.ACK:
                    requester.onAck(Frames.seq(buffer, offset));
                    break;

                case Frames.NAK:
                    requester.onNak(Frames.seq(buffer, offset), Frames.key(buffer, offset));
                    break;

                case Frames.READ_RESPONSE:
                    requester.onReadResponse(buffer, offset, length);
                    break;

                case Frames.ATOMIC_RESPONSE:
                    requester.onAtomicResponse(Frames.seq(buffer, offset), Frames.address(buffer, offset));
                    break;

                case Frames.QP_ERROR:
                    requester.onPeerError();
                    break;

                default:
                    protocolError("unexpected frame type " + type);
            }
        }
        finally
        {
            afterEvent();
        }
    }

    private void afterEvent()
    {
        if (completionLost && !errorEntered)
        {
            enterError(true);
        }
    }

    private int emitErrorNotice(final Wire wire)
    {
        final int offset = claim(wire, Frames.HEADER_LENGTH);
        if (offset < 0)
        {
            return 0;
        }
        Frames.header(wire.buffer(), offset, Frames.HEADER_LENGTH, Frames.QP_ERROR, 0, 0);
        wire.commit(offset);
        errorNoticePending = false;
        return 1;
    }

    // ------------------------------------------------------------------ errors

    void protocolError(final String reason)
    {
        context.onProtocolError();
        connection.abort(new IOException("soft RC protocol error: " + reason));
    }

    /**
     * Moves to ERROR: flushes the send and receive queues, drops pending responses but NAKs (the peer
     * must learn why), and, when {@code notify}, tells the peer once the NAKs are out.
     */
    void enterError(final boolean notify)
    {
        if (errorEntered)
        {
            return;
        }
        errorEntered = true;
        state = QpState.ERROR;
        context.onQueuePairError();
        // The order matters when sends and receives share a completion queue: the receive that the message
        // in progress took is the oldest, then come the sends, then the receives still posted.
        responder.abortMessage();
        requester.flushSends();
        responder.flushReceives();
        responder.dropResponsesButNaks();
        errorNoticePending = notify;
    }

    // ------------------------------------------------------------------ for the requester and responder

    /** The remote queue pair number, once established; completions report it. */
    int remoteQpNumber()
    {
        return remoteQpNumber;
    }

    /**
     * ERROR without the flush, for whoever reports an error completion: as on hardware, whoever polls it
     * sees the queue pair in ERROR. Callers go on to {@link #enterError(boolean)}, or are in it already.
     */
    void markError()
    {
        state = QpState.ERROR;
    }

    /** A completion queue overran: the queue pair moves to ERROR once the current event is handled. */
    void onCompletionLost()
    {
        completionLost = true;
    }

    /** @return the offset claimed on the wire, or -1 when the wire is full or broken. */
    static int claim(final Wire wire, final int length)
    {
        try
        {
            return wire.claim(length);
        }
        catch (final IOException ex)
        {
            return -1; // the connection notices the broken wire on its next read
        }
    }

    @Override
    public String toString()
    {
        return "SoftRcQueuePair{qpn=" + qpNumber + ", state=" + state + ", remoteQpn=" + remoteQpNumber + "}";
    }
}
