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
import io.rivulet.transport.rdma.verbs.WcStatus;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.io.IOException;

/**
 * A soft RC queue pair: reliable and in order over its connection's {@link Wire}, with the requester
 * and responder behaviour of InfiniBand RC.
 *
 * <p><b>Requester.</b> Work requests get consecutive sequence numbers and are transmitted in order
 * (long messages as {@link Frames#MAX_SEGMENT} segments); at most {@link #MAX_RD_ATOMIC} READs and
 * atomics are outstanding. They complete in order when the responder acknowledges them: an ACK, a
 * READ or atomic response, or a NAK implicitly acknowledges everything before it. An RNR NAK rewinds
 * transmission to the refused request and retries after the RNR delay; after
 * {@code rnrRetryCount} retries (7 = forever) the request completes with RNR_RETRY_EXCEEDED_ERROR.
 *
 * <p><b>Responder.</b> Requests from the peer go to the {@link SoftRcResponder}, which applies them and
 * queues the responses this queue pair emits before transmitting its own requests.
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
    static final int INFINITE_RNR_RETRY = 7;
    private static final int TRANSMIT_BATCH = 64;

    private final SoftVerbsContext context;
    private final SoftConnection connection;
    private final QueuePairConfig config;
    private final SoftProtectionDomain pd;
    private final SoftCompletionQueue sendCq;
    private final int qpNumber;
    private final SendQueue sendQueue;
    private final ReceiveQueue receiveQueue;
    private final SoftRcResponder responder;
    private final long rnrDelayNs;
    private volatile QpState state = QpState.INIT;
    private volatile boolean destroyed;
    private int remoteQpNumber;
    private boolean completionLost;
    private boolean errorNoticePending;
    private boolean errorEntered;

    // Requester (NIC thread).
    private long transmitIndex;
    private long transmitOffset;
    private long completeIndex;
    private long highestStarted;
    private int outstandingReadAtomics;
    private int rnrRetries;
    private boolean rnrWaiting;
    private long rnrDeadlineNs;
    private long localErrorIndex = -1;
    private WcStatus localErrorStatus;
    private boolean peerErrored;

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
        this.sendCq = (SoftCompletionQueue)config.sendCq();
        this.qpNumber = qpNumber;
        this.rnrDelayNs = context.rnrDelayNs();
        sendQueue = new SendQueue(config.maxSendWr(), config.maxInlineData());
        receiveQueue = new ReceiveQueue(config.maxReceiveWr());
        // The responder only keeps this reference; it calls back on the NIC thread, after construction.
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
            work += flushSends() + responder.flushReceives();
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
            work += transmit(nowNs, wire);
        }
        finally
        {
            afterEvent();
        }
        return work;
    }

    // ------------------------------------------------------------------ requester: transmit

    private int transmit(final long nowNs, final Wire wire)
    {
        if (rnrWaiting)
        {
            if (nowNs - rnrDeadlineNs < 0)
            {
                context.nic().deadline(rnrDeadlineNs);
                return 0;
            }
            rnrWaiting = false;
        }
        int work = 0;
        final long tail = sendQueue.tail();
        while (transmitIndex < tail && localErrorIndex < 0 && work < TRANSMIT_BATCH && state == QpState.RTS)
        {
            final SendQueue.Slot slot = sendQueue.slot(transmitIndex);
            if (transmitOffset == 0)
            {
                if (peerErrored)
                {
                    localError(transmitIndex, WcStatus.RETRY_EXCEEDED_ERROR);
                    break;
                }
                if (!ScatterGather.checkLocal(slot, pd))
                {
                    localError(transmitIndex, WcStatus.LOCAL_PROTECTION_ERROR);
                    break;
                }
            }
            if (!transmitSlot(slot, wire))
            {
                break;
            }
            transmitIndex++;
            transmitOffset = 0;
            work++;
        }
        checkLocalError();
        return work;
    }

    private boolean transmitSlot(final SendQueue.Slot slot, final Wire wire)
    {
        switch (slot.opcode)
        {
            case SEND:
            case SEND_WITH_IMM:
                return transmitSegments(slot, wire, Frames.SEND);

            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                return transmitSegments(slot, wire, Frames.WRITE);

            case RDMA_READ:
            case ATOMIC_CMP_AND_SWP:
            case ATOMIC_FETCH_AND_ADD:
            {
                if (outstandingReadAtomics >= MAX_RD_ATOMIC)
                {
                    return false;
                }
                final int offset = claim(wire, Frames.HEADER_LENGTH);
                if (offset < 0)
                {
                    return false;
                }
                final MutableDirectBuffer buffer = wire.buffer();
                if (slot.opcode == Opcode.RDMA_READ)
                {
                    Frames.header(buffer, offset, Frames.HEADER_LENGTH, Frames.READ_REQUEST,
                        Frames.FLAG_FIRST | Frames.FLAG_LAST, (int)transmitIndex);
                    buffer.putInt(offset + Frames.TOTAL_LENGTH_OFFSET, (int)slot.totalLength, Frames.ORDER);
                }
                else
                {
                    final int cas = slot.opcode == Opcode.ATOMIC_CMP_AND_SWP ? Frames.FLAG_CAS : 0;
                    Frames.header(buffer, offset, Frames.HEADER_LENGTH, Frames.ATOMIC_REQUEST,
                        Frames.FLAG_FIRST | Frames.FLAG_LAST | cas, (int)transmitIndex);
                    buffer.putLong(offset + Frames.COMPARE_ADD_OFFSET, slot.compareAdd, Frames.ORDER);
                    buffer.putLong(offset + Frames.SWAP_OFFSET, slot.swap, Frames.ORDER);
                    buffer.putInt(offset + Frames.TOTAL_LENGTH_OFFSET, Long.BYTES, Frames.ORDER);
                }
                buffer.putInt(offset + Frames.KEY_OFFSET, slot.rkey, Frames.ORDER);
                buffer.putLong(offset + Frames.ADDRESS_OFFSET, slot.remoteAddress, Frames.ORDER);
                wire.commit(offset);
                started();
                outstandingReadAtomics++;
                return true;
            }

            default:
                throw new IllegalStateException("unknown opcode " + slot.opcode);
        }
    }

    private boolean transmitSegments(final SendQueue.Slot slot, final Wire wire, final int type)
    {
        final long total = slot.totalLength;
        final int seq = (int)transmitIndex;
        do
        {
            final int segment = (int)Math.min(Frames.MAX_SEGMENT, total - transmitOffset);
            final int frameLength = Frames.HEADER_LENGTH + segment;
            final int offset = claim(wire, frameLength);
            if (offset < 0)
            {
                return false;
            }
            final MutableDirectBuffer buffer = wire.buffer();
            int flags = slot.hasImm() ? Frames.FLAG_IMM : 0;
            if (transmitOffset == 0)
            {
                flags |= Frames.FLAG_FIRST;
            }
            if (transmitOffset + segment == total)
            {
                flags |= Frames.FLAG_LAST;
            }
            Frames.header(buffer, offset, frameLength, type, flags, seq);
            if (type == Frames.WRITE)
            {
                buffer.putInt(offset + Frames.KEY_OFFSET, slot.rkey, Frames.ORDER);
                buffer.putLong(offset + Frames.ADDRESS_OFFSET, slot.remoteAddress, Frames.ORDER);
            }
            buffer.putInt(offset + Frames.TOTAL_LENGTH_OFFSET, (int)total, Frames.ORDER);
            buffer.putInt(offset + Frames.SEGMENT_OFFSET_OFFSET, (int)transmitOffset, Frames.ORDER);
            buffer.putInt(offset + Frames.IMM_OFFSET, slot.imm, Frames.ORDER);
            ScatterGather.gather(slot, transmitOffset, buffer.addressOffset() + offset + Frames.HEADER_LENGTH, segment);
            wire.commit(offset);
            started();
            transmitOffset += segment;
        }
        while (transmitOffset < total);
        return true;
    }

    /** The request at {@code transmitIndex} has frames on the wire: responses to it are now valid. */
    private void started()
    {
        if (transmitIndex + 1 > highestStarted)
        {
            highestStarted = transmitIndex + 1;
        }
    }

    private void localError(final long index, final WcStatus status)
    {
        localErrorIndex = index;
        localErrorStatus = status;
    }

    /** A request that failed before transmission completes once everything before it has. */
    private void checkLocalError()
    {
        if (localErrorIndex >= 0 && completeIndex == localErrorIndex && state != QpState.ERROR)
        {
            final long index = localErrorIndex;
            localErrorIndex = -1;
            completeSlot(index, localErrorStatus);
            enterError(true);
        }
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
                    onAck(Frames.seq(buffer, offset));
                    break;

                case Frames.NAK:
                    onNak(Frames.seq(buffer, offset), Frames.key(buffer, offset));
                    break;

                case Frames.READ_RESPONSE:
                    onReadResponse(buffer, offset, length);
                    break;

                case Frames.ATOMIC_RESPONSE:
                    onAtomicResponse(Frames.seq(buffer, offset), Frames.address(buffer, offset));
                    break;

                case Frames.QP_ERROR:
                    onPeerError();
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

    // ------------------------------------------------------------------ requester: responses

    private long indexOf(final int seq)
    {
        return completeIndex + (seq - (int)completeIndex);
    }

    private boolean checkResponseIndex(final long index)
    {
        if (index < completeIndex || index >= highestStarted)
        {
            protocolError("response for request " + index + " outside [" + completeIndex + ", " +
                highestStarted + ")");
            return false;
        }
        return true;
    }

    private void onAck(final int seq)
    {
        final long index = indexOf(seq);
        if (index < completeIndex)
        {
            return; // already implied by a later response
        }
        if (checkResponseIndex(index))
        {
            completeThrough(index);
        }
    }

    private void onReadResponse(final DirectBuffer buffer, final int offset, final int length)
    {
        final long index = indexOf(Frames.seq(buffer, offset));
        if (!checkResponseIndex(index) || !completeThrough(index - 1))
        {
            return;
        }
        final SendQueue.Slot slot = sendQueue.slot(index);
        final int flags = Frames.flags(buffer, offset);
        final long segmentOffset = Frames.segmentOffset(buffer, offset);
        final int payload = length - Frames.HEADER_LENGTH;
        if (slot.opcode != Opcode.RDMA_READ || segmentOffset < 0 || segmentOffset + payload > slot.totalLength)
        {
            protocolError("bad READ response for request " + index);
            return;
        }
        ScatterGather.scatter(slot, segmentOffset, buffer.addressOffset() + offset + Frames.HEADER_LENGTH, payload);
        if ((flags & Frames.FLAG_LAST) != 0)
        {
            if (segmentOffset + payload != slot.totalLength)
            {
                protocolError("short READ response for request " + index);
                return;
            }
            outstandingReadAtomics--;
            completeSlot(index, WcStatus.SUCCESS);
            checkLocalError();
        }
    }

    private void onAtomicResponse(final int seq, final long original)
    {
        final long index = indexOf(seq);
        if (!checkResponseIndex(index) || !completeThrough(index - 1))
        {
            return;
        }
        final SendQueue.Slot slot = sendQueue.slot(index);
        if (slot.opcode != Opcode.ATOMIC_CMP_AND_SWP && slot.opcode != Opcode.ATOMIC_FETCH_AND_ADD)
        {
            protocolError("atomic response for request " + index + " which is " + slot.opcode);
            return;
        }
        Memory.putLong(slot.sgeAddress[0], original);
        outstandingReadAtomics--;
        completeSlot(index, WcStatus.SUCCESS);
        checkLocalError();
    }

    private void onNak(final int seq, final int syndrome)
    {
        final long index = indexOf(seq);
        if (!checkResponseIndex(index) || !completeThrough(index - 1))
        {
            return;
        }
        if (syndrome == Frames.NAK_RNR)
        {
            context.onRnrNakReceived();
            if (config.rnrRetryCount() != INFINITE_RNR_RETRY && rnrRetries >= config.rnrRetryCount())
            {
                completeSlot(index, WcStatus.RNR_RETRY_EXCEEDED_ERROR);
                enterError(true);
                return;
            }
            rnrRetries++;
            // Go back: the responder discards everything after the refused request until it sees it again.
            transmitIndex = index;
            transmitOffset = 0;
            outstandingReadAtomics = 0;
            localErrorIndex = -1;
            rnrWaiting = true;
            rnrDeadlineNs = context.nic().nowNs() + rnrDelayNs;
            context.nic().deadline(rnrDeadlineNs);
            return;
        }
        final WcStatus status;
        switch (syndrome)
        {
            case Frames.NAK_REMOTE_ACCESS:
                status = WcStatus.REMOTE_ACCESS_ERROR;
                break;
            case Frames.NAK_INVALID_REQUEST:
                status = WcStatus.REMOTE_INVALID_REQUEST_ERROR;
                break;
            default:
                status = WcStatus.REMOTE_OPERATION_ERROR;
                break;
        }
        completeSlot(index, status);
        enterError(true);
    }

    private void onPeerError()
    {
        peerErrored = true;
        if (completeIndex < highestStarted)
        {
            completeSlot(completeIndex, WcStatus.RETRY_EXCEEDED_ERROR);
            enterError(true);
        }
    }

    /**
     * Completes requests up to and including {@code lastIndex} successfully (an acknowledgement covers
     * everything before it).
     *
     * @return false when that was a protocol violation.
     */
    private boolean completeThrough(final long lastIndex)
    {
        while (completeIndex <= lastIndex)
        {
            final SendQueue.Slot slot = sendQueue.slot(completeIndex);
            if (slot.isReadOrAtomic())
            {
                protocolError("request " + completeIndex + " (" + slot.opcode + ") acknowledged without its response");
                return false;
            }
            completeSlot(completeIndex, WcStatus.SUCCESS);
        }
        checkLocalError();
        return state != QpState.ERROR;
    }

    private void completeSlot(final long index, final WcStatus status)
    {
        final SendQueue.Slot slot = sendQueue.slot(index);
        if (status != WcStatus.SUCCESS)
        {
            state = QpState.ERROR; // as on hardware: whoever sees an error completion sees the QP in ERROR
        }
        if (status != WcStatus.SUCCESS || slot.isSignaled())
        {
            // Reclaim first: whoever polls this completion may post into the slot at once.
            final int byteLength = slot.totalLength > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int)slot.totalLength;
            final long wrId = slot.wrId;
            final Opcode opcode = slot.opcode;
            sendQueue.freeTo(index + 1);
            if (!sendCq.offer(wrId, status, opcode.completion(), byteLength, false, 0, qpNumber, remoteQpNumber))
            {
                completionLost = true;
            }
        }
        if (status == WcStatus.SUCCESS)
        {
            rnrRetries = 0;
        }
        completeIndex = index + 1;
        if (transmitIndex < completeIndex)
        {
            transmitIndex = completeIndex;
            transmitOffset = 0;
        }
    }

    // ------------------------------------------------------------------ error notice

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

    // ------------------------------------------------------------------ requester: errors

    private int flushSends()
    {
        int work = 0;
        final long tail = sendQueue.tail();
        while (completeIndex < tail)
        {
            completeSlot(completeIndex, WcStatus.WR_FLUSH_ERROR);
            work++;
        }
        transmitIndex = completeIndex;
        transmitOffset = 0;
        highestStarted = completeIndex;
        outstandingReadAtomics = 0;
        localErrorIndex = -1;
        rnrWaiting = false;
        return work;
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
        flushSends();
        responder.flushReceives();
        responder.dropResponsesButNaks();
        errorNoticePending = notify;
    }

    // ------------------------------------------------------------------ for the responder

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
