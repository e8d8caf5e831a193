package io.rivulet.transport.rdma.disni;

import io.rivulet.transport.rdma.jni.ReceiveChain;
import io.rivulet.transport.rdma.jni.SendChain;
import io.rivulet.transport.rdma.jni.UdPort;
import io.rivulet.transport.rdma.jni.Verbs;
import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;

/**
 * A UD queue pair created by the JNI extension on DiSNI's protection domain and completion queues
 * (DiSNI 2.1 cannot create one: its {@code rdma_create_id} is hard-wired to the TCP port space).
 * Created straight into RTS (INIT with port and qkey, RTR, RTS); its completions are polled through
 * DiSNI's {@code SVCPollCq} like an RC queue pair's, with {@code src_qp} naming the sender.
 *
 * <p>Receives get the 40-byte GRH first (present only when the sender's address handle set one, as on
 * RoCE): post buffers of MTU + 40 bytes. Sends and receives post with one JNI call each and no Java
 * allocation. Multicast: {@link #attachMulticast} with a membership of its context
 * ({@link DisniVerbsContext#joinMulticast}, a fabric join through librivulet-verbs' RDMA CM). An error completion moves it to ERROR, after which everything is
 * flushed: {@link #recover()} brings it back to RTS with its number.
 *
 * <p>Not thread-safe; the state is volatile, for a sender thread that posts while the owner polls.
 */
final class DisniUdQueuePair implements QueuePair, CompletionQueueUser
{
    private final DisniVerbsContext context;
    private final long qp;
    private final int qpNumber;
    private final int port;
    private final int qkey;
    private final UdAddress udAddress;
    private final int maxSendWr;
    private final int maxReceiveWr;
    private final int maxInlineData;
    private final DisniCompletionQueue sendCq;
    private final DisniCompletionQueue receiveCq;
    private final SendChain sendChain = new SendChain(1);
    private final ReceiveChain receiveChain = new ReceiveChain(1);
    private volatile QpState state = QpState.RTS;
    private volatile boolean closed;

    private DisniUdQueuePair(
        final DisniVerbsContext context,
        final long qp,
        final int qpNumber,
        final int port,
        final UdAddress udAddress,
        final QueuePairConfig config,
        final DisniCompletionQueue sendCq,
        final DisniCompletionQueue receiveCq)
    {
        this.context = context;
        this.qp = qp;
        this.qpNumber = qpNumber;
        this.port = port;
        this.qkey = config.qkey();
        this.udAddress = udAddress;
        this.maxSendWr = config.maxSendWr();
        this.maxReceiveWr = config.maxReceiveWr();
        this.maxInlineData = Math.max(0, config.maxInlineData());
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        sendCq.attach(this, maxSendWr);
        receiveCq.attach(this, maxReceiveWr);
    }

    /**
     * Creates the queue pair and moves it to RTS; destroys it again if any step fails.
     *
     * @param pdHandle the DiSNI protection domain's {@code ibv_pd} pointer.
     * @param port     the device port ({@link UdPort}).
     * @throws VerbsException naming the verb that failed and its errno text.
     */
    static DisniUdQueuePair create(
        final DisniVerbsContext context,
        final QueuePairConfig config,
        final long pdHandle,
        final DisniCompletionQueue sendCq,
        final DisniCompletionQueue receiveCq,
        final UdPort port) throws IOException
    {
        final long qp = Verbs.check("ibv_create_qp (UD, " + config.maxSendWr() + " send / " +
            config.maxReceiveWr() + " receive requests, inline " + config.maxInlineData() + ")",
            Verbs.createQp(
                pdHandle,
                DisniHandles.handleOf(sendCq.ibvCq(), "send completion queue"),
                DisniHandles.handleOf(receiveCq.ibvCq(), "receive completion queue"),
                Verbs.QPT_UD,
                config.maxSendWr(),
                config.maxReceiveWr(),
                SendWorkRequest.MAX_SGE,
                1,
                Math.max(0, config.maxInlineData()),
                0));
        try
        {
            Verbs.check("ibv_modify_qp to RTS (port " + port.number() + ", qkey 0x" + Integer.toHexString(config.qkey()) +
                ")", Verbs.udQpToRts(qp, port.number(), 0, config.qkey()));
            final int qpNumber = (int)Verbs.check("reading qp_num", Verbs.qpNumber(qp));
            final UdAddress address = new UdAddress(port.gid().format(), qpNumber, config.qkey());
            return new DisniUdQueuePair(context, qp, qpNumber, port.number(), address, config, sendCq, receiveCq);
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
        if (closed)
        {
            throw new VerbsException("UD queue pair " + qpNumber + " is closed");
        }
        WorkRequests.validateUdSend(request, maxInlineData);
        final long ah = context.addressHandleOf(request.addressHandle());
        final int rc = sendChain.fill(0, request, ah).post(qp, 1);
        if (rc != 0)
        {
            throw postFailure("ibv_post_send", rc, "send queue full (maxSendWr " + maxSendWr + "): poll the send " +
                "completion queue, and signal at least every maxSendWr-th send");
        }
    }

    @Override
    public void postReceive(final ReceiveWorkRequest request) throws IOException
    {
        if (closed)
        {
            throw new VerbsException("UD queue pair " + qpNumber + " is closed");
        }
        if (request.sge().length() < 0)
        {
            throw new VerbsException("receive buffer length is negative: " + request.sge().length());
        }
        final int rc = receiveChain.fill(0, request).post(qp, 1);
        if (rc != 0)
        {
            throw postFailure("ibv_post_recv", rc, "receive queue full (maxReceiveWr " + maxReceiveWr + ")");
        }
    }

    @Override
    public UdAddress udAddress()
    {
        return udAddress;
    }

    /**
     * RESET, then INIT (same port and Q_Key), RTR and RTS, through the JNI extension: the number stays, so peers keep
     * reaching it; every request outstanding when it failed is gone.
     */
    @Override
    public void recover() throws IOException
    {
        if (closed)
        {
            throw new VerbsException("UD queue pair " + qpNumber + " is closed");
        }
        Verbs.check("ibv_modify_qp of UD queue pair " + qpNumber + " to RESET", Verbs.modifyQpToReset(qp));
        Verbs.check("ibv_modify_qp of UD queue pair " + qpNumber + " back to RTS", Verbs.udQpToRts(qp, port, 0, qkey));
        state = QpState.RTS;
    }

    @Override
    public void onError()
    {
        if (!closed)
        {
            state = QpState.ERROR;
        }
    }

    /** @return the {@code ibv_qp} pointer, for multicast attachment. */
    /** {@code ibv_attach_mcast} through the JNI extension, with the MGID and MLID the context's join gave. */
    @Override
    public void attachMulticast(final io.rivulet.transport.rdma.verbs.MulticastMembership group) throws IOException
    {
        context.membershipOf(group).attach(handle(), qpNumber);
    }

    @Override
    public void detachMulticast(final io.rivulet.transport.rdma.verbs.MulticastMembership group) throws IOException
    {
        if (!(group instanceof io.rivulet.transport.rdma.jni.CmMulticast))
        {
            throw new VerbsException("not a membership of the disni provider: " + group);
        }
        ((io.rivulet.transport.rdma.jni.CmMulticast)group).detach(handle(), qpNumber);
    }

    long handle() throws VerbsException
    {
        if (closed)
        {
            throw new VerbsException("UD queue pair " + qpNumber + " is closed");
        }
        return qp;
    }

    DisniVerbsContext context()
    {
        return context;
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
        final int rc = Verbs.destroyQp(qp);
        if (rc != 0)
        {
            DisniVerbsContext.warn("ibv_destroy_qp", Verbs.failure("ibv_destroy_qp", rc));
        }
        sendCq.detach(this, maxSendWr);
        receiveCq.detach(this, maxReceiveWr);
        context.forget(this);
    }

    @Override
    public String toString()
    {
        return "DisniUdQueuePair{qp=" + qpNumber + ", state=" + state + ", " + udAddress + "}";
    }

    private VerbsException postFailure(final String call, final int rc, final String whenFull)
    {
        if (Verbs.chainErrno(rc) == Verbs.ENOMEM)
        {
            return new VerbsException(call + " on UD queue pair " + qpNumber + ": " + whenFull);
        }
        return new VerbsException(call + " on UD queue pair " + qpNumber + " (" + state + ") failed: " +
            Verbs.errorText(-Verbs.chainErrno(rc)));
    }
}
