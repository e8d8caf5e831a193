package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcOpcode;
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
 * <p><b>Responder.</b> SEND consumes the oldest posted receive (none: RNR NAK, and everything after
 * the refused request is discarded until it is sent again); WRITE, READ and atomics are applied to
 * registered memory by the NIC thread after checking the rkey in this queue pair's protection domain,
 * the bounds and the access flags. A violation is NAKed (REMOTE_ACCESS_ERROR at the requester) and
 * touches nothing. WRITE_WITH_IMM consumes a receive that reports RECV_RDMA_WITH_IMM.
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
    private static final int RESPONSE_CAPACITY = 64;
    private static final int TRANSMIT_BATCH = 64;

    private static final int RESPONSE_ACK = 1;
    private static final int RESPONSE_NAK = 2;
    private static final int RESPONSE_READ = 3;
    private static final int RESPONSE_ATOMIC = 4;

    private final SoftVerbsContext context;
    private final SoftConnection connection;
    private final QueuePairConfig config;
    private final SoftProtectionDomain pd;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue receiveCq;
    private final int qpNumber;
    private final SendQueue sendQueue;
    private final ReceiveQueue receiveQueue;
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

    // Responder (NIC thread).
    private int expectedSeq;
    private boolean inMessage;
    private int messageSeq;
    private int messageType;
    private long messageTotal;
    private long messageOffset;
    private long messageAddress;
    private boolean messageHasReceive;
    private long messageReceiveWrId;
    private boolean discarding;
    private int nakSeq;
    private int pendingReadAtomics;
    private final int[] responseKind = new int[RESPONSE_CAPACITY];
    private final int[] responseSeq = new int[RESPONSE_CAPACITY];
    private final int[] responseSyndrome = new int[RESPONSE_CAPACITY];
    private final long[] responseAddress = new long[RESPONSE_CAPACITY];
    private final long[] responseLength = new long[RESPONSE_CAPACITY];
    private final long[] responseProgress = new long[RESPONSE_CAPACITY];
    private final long[] responseValue = new long[RESPONSE_CAPACITY];
    private final SoftMemoryRegion[] responseRegion = new SoftMemoryRegion[RESPONSE_CAPACITY];
    private int responseHead;
    private int responseCount;

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
        this.receiveCq = (SoftCompletionQueue)config.receiveCq();
        this.qpNumber = qpNumber;
        this.rnrDelayNs = context.rnrDelayNs();
        sendQueue = new SendQueue(config.maxSendWr(), config.maxInlineData());
        receiveQueue = new ReceiveQueue(config.maxReceiveWr());
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
            work += flushSends() + flushReceives();
            if (wireUsable)
            {
                work += emitResponses(wire);
                if (errorNoticePending && responseCount == 0)
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
            work += emitResponses(wire);
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

    private static int claim(final Wire wire, final int length)
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
                    onRequest(type, buffer, offset, length);
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

    // ------------------------------------------------------------------ responder

    private void onRequest(final int type, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final int seq = Frames.seq(buffer, offset);
        final int flags = Frames.flags(buffer, offset);
        final boolean first = (flags & Frames.FLAG_FIRST) != 0;
        if (discarding)
        {
            if (seq != nakSeq || !first)
            {
                return; // sent before the requester saw our RNR NAK; it will send them again
            }
            discarding = false;
        }
        if (first)
        {
            if (inMessage || seq != expectedSeq)
            {
                protocolError("request " + seq + " out of sequence, expected " + expectedSeq);
                return;
            }
        }
        else if (!inMessage || seq != messageSeq || type != messageType)
        {
            protocolError("continuation of request " + seq + " without its start");
            return;
        }

        switch (type)
        {
            case Frames.SEND:
                onSendSegment(buffer, offset, length, seq, flags, first);
                break;

            case Frames.WRITE:
                onWriteSegment(buffer, offset, length, seq, flags, first);
                break;

            case Frames.READ_REQUEST:
                onReadRequest(buffer, offset, seq, flags);
                break;

            default:
                onAtomicRequest(buffer, offset, seq, flags);
                break;
        }
    }

    private void onSendSegment(
        final MutableDirectBuffer buffer,
        final int offset,
        final int length,
        final int seq,
        final int flags,
        final boolean first)
    {
        if (first)
        {
            final int total = Frames.totalLength(buffer, offset);
            if (total < 0)
            {
                protocolError("negative message length");
                return;
            }
            if (receiveQueue.isEmpty())
            {
                rnrNak(seq);
                return;
            }
            final long wrId = receiveQueue.headWrId();
            final long address = receiveQueue.headAddress();
            final int receiveLength = receiveQueue.headLength();
            final int lkey = receiveQueue.headLkey();
            receiveQueue.consume();
            if (total > receiveLength)
            {
                state = QpState.ERROR;
                receiveCq.offer(wrId, WcStatus.LOCAL_LENGTH_ERROR, WcOpcode.RECV, total, false, 0, qpNumber,
                    remoteQpNumber);
                fatalNak(seq, Frames.NAK_INVALID_REQUEST);
                return;
            }
            if (total > 0)
            {
                final SoftMemoryRegion region = pd.local(lkey);
                if (region == null || !region.contains(address, total) || !region.allows(Access.LOCAL_WRITE))
                {
                    state = QpState.ERROR;
                    receiveCq.offer(wrId, WcStatus.LOCAL_PROTECTION_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber,
                        remoteQpNumber);
                    fatalNak(seq, Frames.NAK_REMOTE_OPERATION);
                    return;
                }
            }
            startMessage(seq, Frames.SEND, total, address);
            messageHasReceive = true;
            messageReceiveWrId = wrId;
        }
        if (!copySegment(buffer, offset, length))
        {
            return;
        }
        if ((flags & Frames.FLAG_LAST) != 0)
        {
            if (messageOffset != messageTotal)
            {
                protocolError("message " + seq + " ended short");
                return;
            }
            final boolean hasImm = (flags & Frames.FLAG_IMM) != 0;
            if (!receiveCq.offer(messageReceiveWrId, WcStatus.SUCCESS, WcOpcode.RECV, (int)messageTotal, hasImm,
                hasImm ? Frames.imm(buffer, offset) : 0, qpNumber, remoteQpNumber))
            {
                completionLost = true;
            }
            endMessage(seq);
        }
    }

    private void onWriteSegment(
        final MutableDirectBuffer buffer,
        final int offset,
        final int length,
        final int seq,
        final int flags,
        final boolean first)
    {
        final boolean hasImm = (flags & Frames.FLAG_IMM) != 0;
        if (first)
        {
            final int total = Frames.totalLength(buffer, offset);
            final long address = Frames.address(buffer, offset);
            if (total < 0)
            {
                protocolError("negative message length");
                return;
            }
            // A zero-length WRITE checks no rkey (InfiniBand spec, 9.7.4.1.5).
            if (total > 0 && !remoteAccessAllowed(Frames.key(buffer, offset), address, total, Access.REMOTE_WRITE))
            {
                fatalNak(seq, Frames.NAK_REMOTE_ACCESS);
                return;
            }
            if (hasImm && receiveQueue.isEmpty())
            {
                rnrNak(seq);
                return;
            }
            startMessage(seq, Frames.WRITE, total, address);
            messageHasReceive = false;
        }
        if (!copySegment(buffer, offset, length))
        {
            return;
        }
        if ((flags & Frames.FLAG_LAST) != 0)
        {
            if (messageOffset != messageTotal)
            {
                protocolError("message " + seq + " ended short");
                return;
            }
            if (hasImm)
            {
                // Checked non-empty at the first segment; only this thread consumes receives.
                final long wrId = receiveQueue.headWrId();
                receiveQueue.consume();
                if (!receiveCq.offer(wrId, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int)messageTotal, true,
                    Frames.imm(buffer, offset), qpNumber, remoteQpNumber))
                {
                    completionLost = true;
                }
            }
            endMessage(seq);
        }
    }

    private void onReadRequest(final DirectBuffer buffer, final int offset, final int seq, final int flags)
    {
        if ((flags & Frames.FLAG_LAST) == 0)
        {
            protocolError("segmented READ request");
            return;
        }
        final int total = Frames.totalLength(buffer, offset);
        final long address = Frames.address(buffer, offset);
        final int rkey = Frames.key(buffer, offset);
        if (total < 0)
        {
            protocolError("negative READ length");
            return;
        }
        if (total > 0 && !remoteAccessAllowed(rkey, address, total, Access.REMOTE_READ))
        {
            fatalNak(seq, Frames.NAK_REMOTE_ACCESS);
            return;
        }
        if (pendingReadAtomics >= MAX_RD_ATOMIC)
        {
            fatalNak(seq, Frames.NAK_INVALID_REQUEST);
            return;
        }
        final int i = appendResponse(RESPONSE_READ, seq);
        if (i >= 0)
        {
            responseRegion[i] = pd.remote(rkey);
            responseAddress[i] = address;
            responseLength[i] = total;
            responseProgress[i] = 0;
            pendingReadAtomics++;
            expectedSeq = seq + 1;
        }
    }

    private void onAtomicRequest(final DirectBuffer buffer, final int offset, final int seq, final int flags)
    {
        if ((flags & Frames.FLAG_LAST) == 0)
        {
            protocolError("segmented atomic request");
            return;
        }
        final long address = Frames.address(buffer, offset);
        if (!remoteAccessAllowed(Frames.key(buffer, offset), address, Long.BYTES, Access.REMOTE_ATOMIC))
        {
            fatalNak(seq, Frames.NAK_REMOTE_ACCESS);
            return;
        }
        if ((address & (Long.BYTES - 1)) != 0 || pendingReadAtomics >= MAX_RD_ATOMIC)
        {
            fatalNak(seq, Frames.NAK_INVALID_REQUEST);
            return;
        }
        final long original = (flags & Frames.FLAG_CAS) != 0 ?
            Memory.compareAndSwap(address, Frames.compareAdd(buffer, offset), Frames.swap(buffer, offset)) :
            Memory.fetchAndAdd(address, Frames.compareAdd(buffer, offset));
        final int i = appendResponse(RESPONSE_ATOMIC, seq);
        if (i >= 0)
        {
            responseValue[i] = original;
            pendingReadAtomics++;
            expectedSeq = seq + 1;
        }
    }

    private boolean remoteAccessAllowed(final int rkey, final long address, final long length, final int access)
    {
        final SoftMemoryRegion region = pd.remote(rkey);
        final boolean allowed = region != null && region.allows(access) && region.contains(address, length);
        if (!allowed)
        {
            context.onRemoteAccessViolation();
        }
        return allowed;
    }

    private void startMessage(final int seq, final int type, final long total, final long address)
    {
        inMessage = true;
        messageSeq = seq;
        messageType = type;
        messageTotal = total;
        messageOffset = 0;
        messageAddress = address;
    }

    private boolean copySegment(final DirectBuffer buffer, final int offset, final int length)
    {
        final int payload = length - Frames.HEADER_LENGTH;
        final long segmentOffset = Frames.segmentOffset(buffer, offset);
        if (segmentOffset != messageOffset || payload > messageTotal - messageOffset)
        {
            protocolError("segment at " + segmentOffset + " of " + payload + " bytes does not continue message " +
                messageSeq + " at " + messageOffset + " of " + messageTotal);
            return false;
        }
        Memory.copy(buffer.addressOffset() + offset + Frames.HEADER_LENGTH, messageAddress + segmentOffset, payload);
        messageOffset += payload;
        return true;
    }

    private void endMessage(final int seq)
    {
        inMessage = false;
        messageHasReceive = false;
        expectedSeq = seq + 1;
        appendResponse(RESPONSE_ACK, seq);
    }

    private void rnrNak(final int seq)
    {
        final int i = appendResponse(RESPONSE_NAK, seq);
        if (i >= 0)
        {
            responseSyndrome[i] = Frames.NAK_RNR;
            discarding = true;
            nakSeq = seq;
            context.onRnrNakSent();
        }
    }

    private void fatalNak(final int seq, final int syndrome)
    {
        final int i = appendResponse(RESPONSE_NAK, seq);
        if (i >= 0)
        {
            responseSyndrome[i] = syndrome;
        }
        enterError(true);
    }

    private int tailIndex()
    {
        return (responseHead + responseCount - 1) % RESPONSE_CAPACITY;
    }

    /** @return the slot of the new (or merged) item, or -1 after a protocol error. */
    private int appendResponse(final int kind, final int seq)
    {
        if (kind == RESPONSE_ACK && responseCount > 0 && responseKind[tailIndex()] == RESPONSE_ACK)
        {
            responseSeq[tailIndex()] = seq; // acknowledgements are cumulative: keep the latest
            return tailIndex();
        }
        if (responseCount == RESPONSE_CAPACITY)
        {
            protocolError("too many responses pending");
            return -1;
        }
        final int i = (responseHead + responseCount) % RESPONSE_CAPACITY;
        responseKind[i] = kind;
        responseSeq[i] = seq;
        responseSyndrome[i] = 0;
        responseRegion[i] = null;
        responseCount++;
        return i;
    }

    private void popResponse()
    {
        responseRegion[responseHead] = null;
        responseHead = (responseHead + 1) % RESPONSE_CAPACITY;
        responseCount--;
    }

    private int emitResponses(final Wire wire)
    {
        int work = 0;
        while (responseCount > 0)
        {
            final int i = responseHead;
            final MutableDirectBuffer buffer = wire.buffer();
            switch (responseKind[i])
            {
                case RESPONSE_ACK:
                case RESPONSE_NAK:
                {
                    final int offset = claim(wire, Frames.HEADER_LENGTH);
                    if (offset < 0)
                    {
                        return work;
                    }
                    final boolean nak = responseKind[i] == RESPONSE_NAK;
                    Frames.header(buffer, offset, Frames.HEADER_LENGTH, nak ? Frames.NAK : Frames.ACK, 0,
                        responseSeq[i]);
                    buffer.putInt(offset + Frames.KEY_OFFSET, responseSyndrome[i], Frames.ORDER);
                    wire.commit(offset);
                    break;
                }

                case RESPONSE_ATOMIC:
                {
                    final int offset = claim(wire, Frames.HEADER_LENGTH);
                    if (offset < 0)
                    {
                        return work;
                    }
                    Frames.header(buffer, offset, Frames.HEADER_LENGTH, Frames.ATOMIC_RESPONSE,
                        Frames.FLAG_FIRST | Frames.FLAG_LAST, responseSeq[i]);
                    buffer.putLong(offset + Frames.ADDRESS_OFFSET, responseValue[i], Frames.ORDER);
                    wire.commit(offset);
                    pendingReadAtomics--;
                    break;
                }

                default:
                {
                    final long total = responseLength[i];
                    do
                    {
                        final long progress = responseProgress[i];
                        final int segment = (int)Math.min(Frames.MAX_SEGMENT, total - progress);
                        final int frameLength = Frames.HEADER_LENGTH + segment;
                        final int offset = claim(wire, frameLength);
                        if (offset < 0)
                        {
                            return work;
                        }
                        int flags = progress == 0 ? Frames.FLAG_FIRST : 0;
                        if (progress + segment == total)
                        {
                            flags |= Frames.FLAG_LAST;
                        }
                        Frames.header(buffer, offset, frameLength, Frames.READ_RESPONSE, flags, responseSeq[i]);
                        buffer.putInt(offset + Frames.TOTAL_LENGTH_OFFSET, (int)total, Frames.ORDER);
                        buffer.putInt(offset + Frames.SEGMENT_OFFSET_OFFSET, (int)progress, Frames.ORDER);
                        Memory.copy(responseAddress[i] + progress,
                            buffer.addressOffset() + offset + Frames.HEADER_LENGTH, segment);
                        wire.commit(offset);
                        responseProgress[i] = progress + segment;
                    }
                    while (responseProgress[i] < total);
                    pendingReadAtomics--;
                    break;
                }
            }
            popResponse();
            work++;
        }
        return work;
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

    private void protocolError(final String reason)
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
        if (inMessage && messageHasReceive)
        {
            receiveCq.offer(messageReceiveWrId, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber,
                remoteQpNumber);
        }
        inMessage = false;
        messageHasReceive = false;
        discarding = false;
        flushSends();
        flushReceives();

        int kept = 0;
        for (int n = 0; n < responseCount; n++)
        {
            final int i = (responseHead + n) % RESPONSE_CAPACITY;
            if (responseKind[i] == RESPONSE_NAK)
            {
                final int j = (responseHead + kept) % RESPONSE_CAPACITY;
                responseKind[j] = RESPONSE_NAK;
                responseSeq[j] = responseSeq[i];
                responseSyndrome[j] = responseSyndrome[i];
                kept++;
            }
            else
            {
                responseRegion[i] = null;
            }
        }
        responseCount = kept;
        pendingReadAtomics = 0;
        errorNoticePending = notify;
    }

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

    private int flushReceives()
    {
        int work = 0;
        while (!receiveQueue.isEmpty())
        {
            final long wrId = receiveQueue.headWrId();
            receiveQueue.consume(); // before the completion: its poller may post again at once
            receiveCq.offer(wrId, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber, remoteQpNumber);
            work++;
        }
        return work;
    }

    @Override
    public String toString()
    {
        return "SoftRcQueuePair{qpn=" + qpNumber + ", state=" + state + ", remoteQpn=" + remoteQpNumber + "}";
    }
}
