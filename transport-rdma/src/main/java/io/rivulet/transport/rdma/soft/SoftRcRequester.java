package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.WcStatus;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The requester half of a soft RC queue pair: transmits posted work requests and completes them as the
 * responder answers.
 *
 * <p>Work requests get consecutive sequence numbers and are transmitted in order (long messages as
 * {@link Frames#MAX_SEGMENT} segments); at most {@link SoftRcQueuePair#MAX_RD_ATOMIC} READs and atomics
 * are outstanding. They complete in order when the responder acknowledges them: an ACK, a READ or atomic
 * response, or a NAK implicitly acknowledges everything before it. An RNR NAK rewinds transmission to the
 * refused request and retries after the RNR delay; after {@code rnrRetryCount} retries (7 = forever) the
 * request completes with RNR_RETRY_EXCEEDED_ERROR. A request whose local entries fail their check
 * completes with LOCAL_PROTECTION_ERROR once everything before it has.
 *
 * <p>NIC thread only; error completions move the {@link SoftRcQueuePair} to ERROR, which then calls
 * {@link #flushSends()}.
 */
final class SoftRcRequester
{
    /** The rnrRetryCount that means retry forever, as in InfiniBand. */
    private static final int INFINITE_RNR_RETRY = 7;
    private static final int TRANSMIT_BATCH = 64;

    private final SoftRcQueuePair qp;
    private final SoftVerbsContext context;
    private final QueuePairConfig config;
    private final SoftProtectionDomain pd;
    private final SoftCompletionQueue sendCq;
    private final SendQueue sendQueue;
    private final int qpNumber;
    private final long rnrDelayNs;

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

    SoftRcRequester(
        final SoftRcQueuePair qp,
        final SoftVerbsContext context,
        final QueuePairConfig config,
        final SendQueue sendQueue)
    {
        this.qp = qp;
        this.context = context;
        this.config = config;
        this.pd = (SoftProtectionDomain)config.pd();
        this.sendCq = (SoftCompletionQueue)config.sendCq();
        this.sendQueue = sendQueue;
        this.qpNumber = qp.qpNumber();
        this.rnrDelayNs = context.rnrDelayNs();
    }

    // ------------------------------------------------------------------ transmit

    /** Sends posted requests in order, a batch at a time, unless waiting out an RNR delay; returns how many. */
    int transmit(final long nowNs, final Wire wire)
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
        while (transmitIndex < tail && localErrorIndex < 0 && work < TRANSMIT_BATCH && qp.state() == QpState.RTS)
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
                if (outstandingReadAtomics >= SoftRcQueuePair.MAX_RD_ATOMIC)
                {
                    return false;
                }
                final int offset = SoftRcQueuePair.claim(wire, Frames.HEADER_LENGTH);
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
            final int offset = SoftRcQueuePair.claim(wire, frameLength);
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
        if (localErrorIndex >= 0 && completeIndex == localErrorIndex && qp.state() != QpState.ERROR)
        {
            final long index = localErrorIndex;
            localErrorIndex = -1;
            completeSlot(index, localErrorStatus);
            qp.enterError(true);
        }
    }

    // ------------------------------------------------------------------ responses

    private long indexOf(final int seq)
    {
        return completeIndex + (seq - (int)completeIndex);
    }

    private boolean checkResponseIndex(final long index)
    {
        if (index < completeIndex || index >= highestStarted)
        {
            qp.protocolError("response for request " + index + " outside [" + completeIndex + ", " +
                highestStarted + ")");
            return false;
        }
        return true;
    }

    void onAck(final int seq)
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

    void onReadResponse(final DirectBuffer buffer, final int offset, final int length)
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
            qp.protocolError("bad READ response for request " + index);
            return;
        }
        ScatterGather.scatter(slot, segmentOffset, buffer.addressOffset() + offset + Frames.HEADER_LENGTH, payload);
        if ((flags & Frames.FLAG_LAST) != 0)
        {
            if (segmentOffset + payload != slot.totalLength)
            {
                qp.protocolError("short READ response for request " + index);
                return;
            }
            outstandingReadAtomics--;
            completeSlot(index, WcStatus.SUCCESS);
            checkLocalError();
        }
    }

    void onAtomicResponse(final int seq, final long original)
    {
        final long index = indexOf(seq);
        if (!checkResponseIndex(index) || !completeThrough(index - 1))
        {
            return;
        }
        final SendQueue.Slot slot = sendQueue.slot(index);
        if (slot.opcode != Opcode.ATOMIC_CMP_AND_SWP && slot.opcode != Opcode.ATOMIC_FETCH_AND_ADD)
        {
            qp.protocolError("atomic response for request " + index + " which is " + slot.opcode);
            return;
        }
        Memory.putLong(slot.sgeAddress[0], original);
        outstandingReadAtomics--;
        completeSlot(index, WcStatus.SUCCESS);
        checkLocalError();
    }

    void onNak(final int seq, final int syndrome)
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
                qp.enterError(true);
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
        qp.enterError(true);
    }

    /** The peer entered ERROR: nothing we started will be answered (a responder that stopped answering). */
    void onPeerError()
    {
        peerErrored = true;
        if (completeIndex < highestStarted)
        {
            completeSlot(completeIndex, WcStatus.RETRY_EXCEEDED_ERROR);
            qp.enterError(true);
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
                qp.protocolError("request " + completeIndex + " (" + slot.opcode +
                    ") acknowledged without its response");
                return false;
            }
            completeSlot(completeIndex, WcStatus.SUCCESS);
        }
        checkLocalError();
        return qp.state() != QpState.ERROR;
    }

    private void completeSlot(final long index, final WcStatus status)
    {
        final SendQueue.Slot slot = sendQueue.slot(index);
        if (status != WcStatus.SUCCESS)
        {
            qp.markError(); // as on hardware: whoever sees an error completion sees the QP in ERROR
        }
        if (status != WcStatus.SUCCESS || slot.isSignaled())
        {
            // Reclaim first: whoever polls this completion may post into the slot at once.
            final int byteLength = slot.totalLength > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int)slot.totalLength;
            final long wrId = slot.wrId;
            final Opcode opcode = slot.opcode;
            sendQueue.freeTo(index + 1);
            if (!sendCq.offer(wrId, status, opcode.completion(), byteLength, false, 0, qpNumber, qp.remoteQpNumber()))
            {
                qp.onCompletionLost();
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

    // ------------------------------------------------------------------ errors

    /** In ERROR: completes every outstanding and posted request with WR_FLUSH_ERROR and rewinds transmission. */
    int flushSends()
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
}
