package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
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
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;

/**
 * A soft UD queue pair: unreliable, MTU-bounded datagrams to any peer.
 *
 * <ul>
 *   <li>A send longer than the device MTU completes with {@link WcStatus#LOCAL_LENGTH_ERROR}.</li>
 *   <li>A datagram arriving with no posted receive, with the wrong qkey, or for an unknown queue pair
 *       is dropped silently and counted ({@link SoftVerbsContext#datagramsDroppedNoReceive()}...).</li>
 *   <li>A receive gets a 40-byte GRH and then the payload; its byte length includes the 40, and its
 *       {@code sourceQpNumber} names the sender. Post receive buffers of at least MTU + 40 bytes: a
 *       smaller one that a datagram does not fit completes with LOCAL_LENGTH_ERROR.</li>
 *   <li>Any error completion moves the queue pair to ERROR (hardware puts a UD send queue in SQE,
 *       which also stops sending); later requests are flushed. {@link #recover()} brings it back to RTS with its
 *       number and Q_Key, as a RESET does on hardware: whatever was still posted is discarded without a
 *       completion, and the caller posts its receives again.</li>
 * </ul>
 *
 * <p>Posting is thread-safe; everything else runs on the device's NIC thread.
 */
final class SoftUdQueuePair implements QueuePair
{
    private static final int TRANSMIT_BATCH = 64;

    private final SoftVerbsContext context;
    private final QueuePairConfig config;
    private final SoftProtectionDomain pd;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue receiveCq;
    private final int qpNumber;
    private final SendQueue sendQueue;
    private final ReceiveQueue receiveQueue;
    private final UdAddress udAddress;
    private volatile QpState state = QpState.RTS;
    private volatile boolean destroyed;
    private boolean errorEntered;
    private long transmitIndex;

    SoftUdQueuePair(
        final SoftVerbsContext context, final QueuePairConfig config, final int qpNumber, final String gid)
    {
        this.context = context;
        this.config = config;
        this.pd = (SoftProtectionDomain)config.pd();
        this.sendCq = (SoftCompletionQueue)config.sendCq();
        this.receiveCq = (SoftCompletionQueue)config.receiveCq();
        this.qpNumber = qpNumber;
        sendQueue = new SendQueue(config.maxSendWr(), config.maxInlineData());
        receiveQueue = new ReceiveQueue(config.maxReceiveWr());
        udAddress = new UdAddress(gid, qpNumber, config.qkey());
    }

    @Override
    public QpType type()
    {
        return QpType.UD;
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
        return udAddress;
    }

    @Override
    public void postSend(final SendWorkRequest request) throws IOException
    {
        if (destroyed)
        {
            throw new VerbsException("queue pair closed");
        }
        final Opcode opcode = request.opcode();
        if (opcode != Opcode.SEND && opcode != Opcode.SEND_WITH_IMM)
        {
            throw new VerbsException("UD queue pairs support SEND and SEND_WITH_IMM only, not " + opcode);
        }
        if (!(request.addressHandle() instanceof SoftAddressHandle))
        {
            throw new VerbsException("a UD send needs an address handle of this provider");
        }
        final SoftAddressHandle addressHandle = (SoftAddressHandle)request.addressHandle();
        if (addressHandle.isClosed() || addressHandle.context() != context)
        {
            throw new VerbsException("address handle closed or of another device");
        }
        final long total = ScatterGather.checkSges(request);
        final boolean inline = ScatterGather.checkInline(request, total, config.maxInlineData(), pd);
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

    /** NIC thread: sends posted datagrams, or flushes when in ERROR. */
    int doWork(final SoftNic nic)
    {
        if (state == QpState.ERROR)
        {
            return flush();
        }
        final SoftDatagrams datagrams = nic.datagrams();
        final long tail = sendQueue.tail();
        int work = 0;
        while (transmitIndex < tail && work < TRANSMIT_BATCH)
        {
            final SendQueue.Slot slot = sendQueue.slot(transmitIndex);
            final WcStatus status = check(slot, datagrams.mtu());
            if (status != WcStatus.SUCCESS)
            {
                complete(slot, status);
                enterError();
                return work + 1;
            }
            datagrams.send(this, slot);
            complete(slot, WcStatus.SUCCESS);
            work++;
        }
        return work;
    }

    private WcStatus check(final SendQueue.Slot slot, final int mtu)
    {
        if (slot.totalLength > mtu)
        {
            return WcStatus.LOCAL_LENGTH_ERROR;
        }
        return ScatterGather.checkLocal(slot, pd) ? WcStatus.SUCCESS : WcStatus.LOCAL_PROTECTION_ERROR;
    }

    private void complete(final SendQueue.Slot slot, final WcStatus status)
    {
        final long index = transmitIndex++;
        if (status != WcStatus.SUCCESS)
        {
            state = QpState.ERROR; // as on hardware: whoever sees an error completion sees the QP in ERROR
        }
        if (status != WcStatus.SUCCESS || slot.isSignaled())
        {
            // Reclaim first: whoever polls this completion may post into the slot at once.
            final long wrId = slot.wrId;
            final int byteLength = (int)slot.totalLength;
            sendQueue.freeTo(index + 1);
            if (!sendCq.offer(wrId, status, WcOpcode.SEND, byteLength, false, 0, qpNumber, 0) &&
                status == WcStatus.SUCCESS)
            {
                enterError();
            }
        }
    }

    /** NIC thread: a datagram addressed to this queue pair. */
    void onDatagram(
        final SoftDatagrams datagrams,
        final int sourceQpNumber,
        final int qkey,
        final boolean hasImm,
        final int imm,
        final UnsafeBuffer datagram,
        final int offset,
        final int payloadLength)
    {
        if (state != QpState.RTS)
        {
            context.onDatagramNoQueuePair();
            return;
        }
        if (qkey != config.qkey())
        {
            context.onDatagramBadQkey();
            return;
        }
        if (receiveQueue.isEmpty())
        {
            context.onDatagramNoReceive();
            return;
        }
        final long wrId = receiveQueue.headWrId();
        final long address = receiveQueue.headAddress();
        final int length = receiveQueue.headLength();
        final int lkey = receiveQueue.headLkey();
        receiveQueue.consume();

        final int byteLength = SoftDatagrams.GRH_LENGTH + payloadLength;
        if (byteLength > length)
        {
            state = QpState.ERROR;
            receiveCq.offer(wrId, WcStatus.LOCAL_LENGTH_ERROR, WcOpcode.RECV, byteLength, false, 0, qpNumber,
                sourceQpNumber);
            enterError();
            return;
        }
        final SoftMemoryRegion region = pd.local(lkey);
        if (region == null || !region.contains(address, byteLength) || !region.allows(Access.LOCAL_WRITE))
        {
            state = QpState.ERROR;
            receiveCq.offer(wrId, WcStatus.LOCAL_PROTECTION_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber,
                sourceQpNumber);
            enterError();
            return;
        }
        datagrams.writeGrh(address, datagram, offset, payloadLength);
        Memory.copy(
            datagram.addressOffset() + offset + SoftDatagrams.HEADER_LENGTH,
            address + SoftDatagrams.GRH_LENGTH,
            payloadLength);
        if (!receiveCq.offer(wrId, WcStatus.SUCCESS, WcOpcode.RECV, byteLength, hasImm, hasImm ? imm : 0,
            qpNumber, sourceQpNumber, true))
        {
            enterError();
        }
    }

    private void enterError()
    {
        if (!errorEntered)
        {
            errorEntered = true;
            state = QpState.ERROR;
            flush();
        }
    }

    private int flush()
    {
        int work = 0;
        final long tail = sendQueue.tail();
        while (transmitIndex < tail)
        {
            final SendQueue.Slot slot = sendQueue.slot(transmitIndex);
            complete(slot, WcStatus.WR_FLUSH_ERROR);
            work++;
        }
        while (!receiveQueue.isEmpty())
        {
            final long wrId = receiveQueue.headWrId();
            receiveQueue.consume(); // before the completion: its poller may post again at once
            receiveCq.offer(wrId, WcStatus.WR_FLUSH_ERROR, WcOpcode.RECV, 0, false, 0, qpNumber, 0);
            work++;
        }
        return work;
    }

    /**
     * RESET, then INIT, RTR and RTS, in one step on the NIC thread: requests still posted are discarded without
     * completions (those already flushed stay in the completion queues), datagrams are received again.
     *
     * @throws VerbsException when the queue pair was closed.
     */
    @Override
    public void recover() throws IOException
    {
        final boolean[] recovered = new boolean[1];
        if (!destroyed)
        {
            context.nic().runSync(() -> recovered[0] = resetOnNic());
        }
        if (!recovered[0])
        {
            throw new VerbsException("UD queue pair " + qpNumber + " is closed");
        }
    }

    private boolean resetOnNic()
    {
        if (destroyed)
        {
            return false;
        }
        transmitIndex = sendQueue.tail();
        sendQueue.freeTo(transmitIndex);
        receiveQueue.discardAll();
        errorEntered = false;
        state = QpState.RTS;
        return true;
    }

    /**
     * Receives the group's datagrams from now on (in process: the fabric's group). Synchronous, so a datagram sent once
     * this returns reaches it.
     *
     * @throws VerbsException unless a joined membership of this queue pair's device.
     */
    @Override
    public void attachMulticast(final MulticastMembership group) throws IOException
    {
        final SoftMulticastGroup fabricGroup = groupOf(group);
        final boolean[] done = new boolean[1];
        context.nic().runSync(() -> done[0] = !destroyed && context.nic().datagrams().attach(fabricGroup, this));
        if (!done[0])
        {
            throw new VerbsException(destroyed ? "queue pair closed" :
                "UD queue pair " + qpNumber + " is attached to " + group.group().getHostAddress() + " already");
        }
    }

    @Override
    public void detachMulticast(final MulticastMembership group) throws IOException
    {
        if (!(group instanceof SoftMulticastMembership) || ((SoftMulticastMembership)group).context() != context)
        {
            throw new VerbsException("not a multicast membership of this device: " + group);
        }
        final SoftMulticastGroup fabricGroup = ((SoftMulticastMembership)group).attachedGroup();
        final boolean[] done = new boolean[1];
        if (null != fabricGroup)
        {
            context.nic().runSync(() -> done[0] = context.nic().datagrams().detach(fabricGroup.id(), this));
        }
        if (!done[0])
        {
            throw new VerbsException("UD queue pair " + qpNumber + " is not attached to " +
                group.group().getHostAddress());
        }
    }

    private SoftMulticastGroup groupOf(final MulticastMembership group) throws VerbsException
    {
        if (!(group instanceof SoftMulticastMembership) || ((SoftMulticastMembership)group).context() != context)
        {
            throw new VerbsException("not a multicast membership of this device: " + group);
        }
        final SoftMulticastGroup fabricGroup = ((SoftMulticastMembership)group).fabricGroup();
        if (null == fabricGroup)
        {
            throw new VerbsException("the membership of " + group.group().getHostAddress() + " is " + group.state() +
                ", not JOINED");
        }
        return fabricGroup;
    }

    /** NIC thread: flush and forget. */
    void destroyOnNic()
    {
        if (!destroyed)
        {
            final SoftDatagrams datagrams = context.nic().datagrams();
            if (null != datagrams)
            {
                datagrams.detachEverywhere(this);
            }
            destroyed = true;
            state = QpState.ERROR;
            flush();
        }
    }

    @Override
    public void close()
    {
        if (destroyed)
        {
            return;
        }
        final SoftNic nic = context.nic();
        nic.runSync(() ->
        {
            destroyOnNic();
            nic.removeUdQueuePair(this);
        });
    }

    @Override
    public String toString()
    {
        return "SoftUdQueuePair{qpn=" + qpNumber + ", state=" + state + ", address=" + udAddress + "}";
    }
}
