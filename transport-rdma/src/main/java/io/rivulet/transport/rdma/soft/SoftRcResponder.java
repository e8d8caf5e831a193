package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.WcOpcode;
import io.rivulet.transport.rdma.verbs.WcStatus;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The responder half of a soft RC queue pair: executes the peer's requests in sequence order and queues
 * the responses that answer them.
 *
 * <p>SEND consumes the oldest posted receive (none: RNR NAK, and everything after the refused request is
 * discarded until it is sent again); WRITE, READ and atomics are applied to registered memory by the NIC
 * thread after checking the rkey in the queue pair's protection domain, the bounds and the access flags.
 * A violation is NAKed (REMOTE_ACCESS_ERROR at the requester) and touches nothing. WRITE_WITH_IMM
 * consumes a receive that reports RECV_RDMA_WITH_IMM. Its errors (remote access, a SEND longer than the
 * receive) move the whole queue pair to ERROR.
 *
 * <p>Responses (cumulative ACKs, NAKs, READ data, atomic results) wait in a bounded ring until the wire
 * takes them; READ data is copied out of the region only as it is sent.
 *
 * <p>NIC thread only.
 */
final class SoftRcResponder
{
    private static final int RESPONSE_CAPACITY = 64;

    private static final int RESPONSE_ACK = 1;
    private static final int RESPONSE_NAK = 2;
    private static final int RESPONSE_READ = 3;
    private static final int RESPONSE_ATOMIC = 4;

    private final SoftRcQueuePair qp;
    private final SoftVerbsContext context;
    private final SoftProtectionDomain pd;
    private final SoftCompletionQueue receiveCq;
    private final ReceiveQueue receiveQueue;
    private final int qpNumber;

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

    SoftRcResponder(
        final SoftRcQueuePair qp,
        final SoftVerbsContext context,
        final QueuePairConfig config,
        final ReceiveQueue receiveQueue)
    {
        this.qp = qp;
        this.context = context;
        this.pd = (SoftProtectionDomain)config.pd();
        this.receiveCq = (SoftCompletionQueue)config.receiveCq();
        this.receiveQueue = receiveQueue;
        this.qpNumber = qp.qpNumber();
    }

    // ------------------------------------------------------------------ requests

    /** A SEND, WRITE, READ or atomic frame from the peer; requests must arrive in sequence. */
    void onRequest(final int type, final MutableDirectBuffer buffer, final int offset, final int length)
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
                qp.protocolError("request " + seq + " out of sequence, expected " + expectedSeq);
                return;
            }
        }
        else if (!inMessage || seq != messageSeq || type != messageType)
        {
            qp.protocolError("continuation of request " + seq + " without its start");
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
                qp.protocolError("negative message length");
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
                qp.markError();
                receiveCq.offer(wrId, WcStatus.LOCAL_LENGTH_ERROR, WcOpcode.RECV, total, false, 0, qpNumber,
                    qp.remoteQpNumber());
                fatalNak(seq, Frames.NAK_INVALID_REQUEST);
                return;
            }
            if (total > 0)
            {
                final SoftMemoryRegion region = pd.local(lkey);
                if (region == null || !region.contains(address, total) || !region.allows(Access.LOCAL_WRITE))
                {
                    qp.markError();
                    receiveCq.offer(wrId, WcStatus.LOCAL_PROTECTION_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber,
                        qp.remoteQpNumber());
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
                qp.protocolError("message " + seq + " ended short");
                return;
            }
            final boolean hasImm = (flags & Frames.FLAG_IMM) != 0;
            if (!receiveCq.offer(messageReceiveWrId, WcStatus.SUCCESS, WcOpcode.RECV, (int)messageTotal, hasImm,
                hasImm ? Frames.imm(buffer, offset) : 0, qpNumber, qp.remoteQpNumber()))
            {
                qp.onCompletionLost();
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
                qp.protocolError("negative message length");
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
                qp.protocolError("message " + seq + " ended short");
                return;
            }
            if (hasImm)
            {
                // Checked non-empty at the first segment; only this thread consumes receives.
                final long wrId = receiveQueue.headWrId();
                receiveQueue.consume();
                if (!receiveCq.offer(wrId, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int)messageTotal, true,
                    Frames.imm(buffer, offset), qpNumber, qp.remoteQpNumber()))
                {
                    qp.onCompletionLost();
                }
            }
            endMessage(seq);
        }
    }

    private void onReadRequest(final DirectBuffer buffer, final int offset, final int seq, final int flags)
    {
        if ((flags & Frames.FLAG_LAST) == 0)
        {
            qp.protocolError("segmented READ request");
            return;
        }
        final int total = Frames.totalLength(buffer, offset);
        final long address = Frames.address(buffer, offset);
        final int rkey = Frames.key(buffer, offset);
        if (total < 0)
        {
            qp.protocolError("negative READ length");
            return;
        }
        if (total > 0 && !remoteAccessAllowed(rkey, address, total, Access.REMOTE_READ))
        {
            fatalNak(seq, Frames.NAK_REMOTE_ACCESS);
            return;
        }
        if (pendingReadAtomics >= SoftRcQueuePair.MAX_RD_ATOMIC)
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
            qp.protocolError("segmented atomic request");
            return;
        }
        final long address = Frames.address(buffer, offset);
        if (!remoteAccessAllowed(Frames.key(buffer, offset), address, Long.BYTES, Access.REMOTE_ATOMIC))
        {
            fatalNak(seq, Frames.NAK_REMOTE_ACCESS);
            return;
        }
        if ((address & (Long.BYTES - 1)) != 0 || pendingReadAtomics >= SoftRcQueuePair.MAX_RD_ATOMIC)
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
            qp.protocolError("segment at " + segmentOffset + " of " + payload + " bytes does not continue message " +
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
        qp.enterError(true);
    }

    // ------------------------------------------------------------------ responses

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
            qp.protocolError("too many responses pending");
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

    /** Sends queued responses in order until the wire is full; returns how many went out in full. */
    int emitResponses(final Wire wire)
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
                    final int offset = SoftRcQueuePair.claim(wire, Frames.HEADER_LENGTH);
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
                    final int offset = SoftRcQueuePair.claim(wire, Frames.HEADER_LENGTH);
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
                        final int offset = SoftRcQueuePair.claim(wire, frameLength);
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

    // ------------------------------------------------------------------ errors

    /** @return true while responses wait for the wire (the queue pair's error notice goes after them). */
    boolean hasPendingResponses()
    {
        return responseCount > 0;
    }

    /**
     * The queue pair entered ERROR: a receive consumed by the message in progress completes flushed, and
     * requests still in flight are forgotten.
     */
    void abortMessage()
    {
        if (inMessage && messageHasReceive)
        {
            receiveCq.offer(messageReceiveWrId, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber,
                qp.remoteQpNumber());
        }
        inMessage = false;
        messageHasReceive = false;
        discarding = false;
    }

    /** The queue pair entered ERROR: drops pending responses but NAKs (the peer must learn why). */
    void dropResponsesButNaks()
    {
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
    }

    /** In ERROR: completes every posted receive with WR_FLUSH_ERROR. */
    int flushReceives()
    {
        int work = 0;
        while (!receiveQueue.isEmpty())
        {
            final long wrId = receiveQueue.headWrId();
            receiveQueue.consume(); // before the completion: its poller may post again at once
            receiveCq.offer(wrId, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber, qp.remoteQpNumber());
            work++;
        }
        return work;
    }
}
