package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.UdPort;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A UD queue pair ({@code ibv_create_qp}), created straight into RTS (INIT with port and Q_Key, RTR, RTS) on the
 * context's port. Its address is the port's GID (chosen by type: see {@link UdPort}) with its number and Q_Key.
 *
 * <p>Receives get the 40-byte GRH first (when the sender's address handle set one, as always on RoCE, and the
 * completion says so): post buffers of MTU + 40 bytes. An error completion (a receive too small for a datagram,
 * a bad address handle) moves the queue pair to ERROR, after which everything is flushed: {@link #recover()} brings
 * it back to RTS with its number, so peers keep reaching it.
 *
 * <p>Not thread-safe.
 */
final class IbverbsUdQueuePair implements QueuePair, IbverbsCompletionQueue.User, IbverbsWorkQueues.SendRules
{
    private final IbverbsContext context;
    private final long qp;
    private final int qpNumber;
    private final int port;
    private final int qkey;
    private final UdAddress udAddress;
    private final int maxInlineData;
    private final IbverbsCompletionQueue sendCq;
    private final IbverbsCompletionQueue receiveCq;
    private final IbverbsWorkQueues workQueues;
    private volatile QpState state = QpState.RTS;
    private boolean closed;

    private IbverbsUdQueuePair(
        final IbverbsContext context,
        final long qp,
        final int qpNumber,
        final UdPort port,
        final QueuePairConfig config,
        final int maxInlineData,
        final IbverbsCompletionQueue sendCq,
        final IbverbsCompletionQueue receiveCq)
    {
        this.context = context;
        this.qp = qp;
        this.qpNumber = qpNumber;
        this.port = port.number();
        this.qkey = config.qkey();
        this.udAddress = new UdAddress(port.gid().format(), qpNumber, config.qkey());
        this.maxInlineData = maxInlineData;
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        this.workQueues = new IbverbsWorkQueues(
            "UD queue pair " + qpNumber, qp, config.maxSendWr(), config.maxReceiveWr(), this);
        sendCq.attach(this);
        if (receiveCq != sendCq)
        {
            receiveCq.attach(this);
        }
    }

    /**
     * Creates the queue pair and moves it to RTS; destroys it again if any step fails.
     *
     * @throws VerbsException naming the verb that failed and its errno text.
     */
    static IbverbsUdQueuePair create(final IbverbsContext context, final QueuePairConfig config, final UdPort port)
        throws IOException
    {
        final IbverbsProtectionDomain pd = context.protectionDomainOf(config.pd());
        final IbverbsCompletionQueue sendCq = context.completionQueueOf(config.sendCq());
        final IbverbsCompletionQueue receiveCq = context.completionQueueOf(config.receiveCq());
        final ByteBuffer caps = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        final long qp = Verbs.check("ibv_create_qp (UD, " + config.maxSendWr() + " send / " + config.maxReceiveWr() +
            " receive requests, inline " + config.maxInlineData() + ")",
            Verbs.createQp(pd.handle(), sendCq.handle(), receiveCq.handle(), Verbs.QPT_UD, config.maxSendWr(),
                config.maxReceiveWr(), SendWorkRequest.MAX_SGE, 1, Math.max(0, config.maxInlineData()),
                Verbs.addressOf(caps)));
        try
        {
            Verbs.check("ibv_modify_qp to RTS (port " + port.number() + ", qkey 0x" + Integer.toHexString(config.qkey()) +
                ")", Verbs.udQpToRts(qp, port.number(), 0, config.qkey()));
            return new IbverbsUdQueuePair(context, qp, caps.getInt(0), port, config, caps.getInt(20), sendCq, receiveCq);
        }
        catch (final IOException | RuntimeException ex)
        {
            Verbs.destroyQp(qp);
            throw ex;
        }
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
    public void postSend(final SendWorkRequest request) throws IOException
    {
        checkOpen();
        workQueues.postSend(request);
    }

    @Override
    public void postSend(final SendWorkRequest[] requests, final int count) throws IOException
    {
        checkOpen();
        workQueues.postSend(requests, count);
    }

    @Override
    public void postReceive(final ReceiveWorkRequest request) throws IOException
    {
        checkOpen();
        workQueues.postReceive(request);
    }

    @Override
    public void postReceive(final ReceiveWorkRequest[] requests, final int count) throws IOException
    {
        checkOpen();
        workQueues.postReceive(requests, count);
    }

    @Override
    public void validate(final SendWorkRequest request) throws VerbsException
    {
        WorkRequests.validateUdSend(request, maxInlineData);
    }

    @Override
    public long addressHandleOf(final SendWorkRequest request) throws VerbsException
    {
        return context.addressHandleOf(request.addressHandle());
    }

    @Override
    public UdAddress udAddress()
    {
        return udAddress;
    }

    /** RESET, then INIT (same port and Q_Key), RTR and RTS: the number stays, every request outstanding is gone. */
    @Override
    public void recover() throws IOException
    {
        checkOpen();
        Verbs.check("ibv_modify_qp of UD queue pair " + qpNumber + " to RESET", Verbs.modifyQpToReset(qp));
        Verbs.check("ibv_modify_qp of UD queue pair " + qpNumber + " back to RTS",
            Verbs.udQpToRts(qp, port, 0, qkey));
        state = QpState.RTS;
    }

    @Override
    public void onErrorCompletion()
    {
        if (!closed)
        {
            state = QpState.ERROR;
        }
    }

    /** {@code ibv_attach_mcast} with the MGID and MLID of a joined membership of this context. */
    @Override
    public void attachMulticast(final MulticastMembership group) throws IOException
    {
        checkOpen();
        context.membershipOf(group).attach(qp, qpNumber);
    }

    @Override
    public void detachMulticast(final MulticastMembership group) throws IOException
    {
        checkOpen();
        if (!(group instanceof io.rivulet.transport.rdma.jni.CmMulticast))
        {
            throw new VerbsException("not a membership of the ibverbs provider: " + group);
        }
        ((io.rivulet.transport.rdma.jni.CmMulticast)group).detach(qp, qpNumber);
    }

    /** @return the {@code ibv_qp} pointer, for multicast attachment. */
    long handle()
    {
        return qp;
    }

    /** Destroys the queue pair and leaves its CQs. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        state = QpState.RESET;
        IbverbsContext.warnOnFailure("ibv_destroy_qp", Verbs.destroyQp(qp));
        sendCq.detach(this);
        receiveCq.detach(this);
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "IbverbsUdQueuePair{qp=" + qpNumber + ", state=" + state + ", " + udAddress + "}";
    }

    private void checkOpen() throws VerbsException
    {
        if (closed)
        {
            throw new VerbsException("UD queue pair " + qpNumber + " is closed");
        }
    }
}
