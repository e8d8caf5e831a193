package io.rivulet.transport.rdma.ibverbs;

import io.rivulet.transport.rdma.jni.WorkRequests;
import io.rivulet.transport.rdma.verbs.DeviceAttributes;
import io.rivulet.transport.rdma.verbs.QpState;
import io.rivulet.transport.rdma.verbs.QpType;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsException;

import java.io.IOException;

/**
 * An RC queue pair created through RDMA CM ({@code rdma_create_qp}), owned by its {@link IbverbsConnection}: the
 * connection manager moves it to RTR and RTS on connect or accept.
 *
 * <p>{@link #state()} is tracked, not queried: INIT when created, RTS once RDMA CM reports ESTABLISHED, ERROR
 * after a disconnect, a failed set-up or an error completion. Sends are refused before RTS (the device would reject
 * them with an opaque EINVAL); receives may be posted from INIT on, so they are in place before the peer can send.
 * Atomics are refused when the device has none ({@code atomic_cap} IBV_ATOMIC_NONE): posted anyway, they would
 * fail as an error completion that breaks the connection.
 *
 * <p>Sends are posted by one thread and receives by one (possibly another); the state is volatile.
 */
final class IbverbsQueuePair implements QueuePair, IbverbsCompletionQueue.User, IbverbsWorkQueues.SendRules
{
    private final IbverbsConnection connection;
    private final long qp;
    private final int qpNumber;
    private final int maxInlineData;
    private final boolean atomics;
    private final IbverbsCompletionQueue sendCq;
    private final IbverbsCompletionQueue receiveCq;
    private final IbverbsWorkQueues workQueues;
    private volatile QpState state = QpState.INIT;
    private volatile boolean destroyed;

    IbverbsQueuePair(
        final IbverbsConnection connection,
        final long qp,
        final int qpNumber,
        final int maxSendWr,
        final int maxReceiveWr,
        final int maxInlineData,
        final DeviceAttributes attributes,
        final IbverbsCompletionQueue sendCq,
        final IbverbsCompletionQueue receiveCq)
    {
        this.connection = connection;
        this.qp = qp;
        this.qpNumber = qpNumber;
        this.maxInlineData = maxInlineData;
        this.atomics = attributes.supportsAtomics();
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        this.workQueues = new IbverbsWorkQueues("queue pair " + qpNumber, qp, maxSendWr, maxReceiveWr, this);
        sendCq.attach(this);
        if (receiveCq != sendCq)
        {
            receiveCq.attach(this);
        }
    }

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

    /** @return the largest inline send the device granted. */
    int maxInlineData()
    {
        return maxInlineData;
    }

    @Override
    public void postSend(final SendWorkRequest request) throws IOException
    {
        checkSendable();
        workQueues.postSend(request);
    }

    @Override
    public void postSend(final SendWorkRequest[] requests, final int count) throws IOException
    {
        checkSendable();
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
        WorkRequests.validateSend(request, maxInlineData);
        if (!atomics && WorkRequests.isAtomic(request.opcode()))
        {
            throw new VerbsException(request.opcode() + " on queue pair " + qpNumber + ": the device executes no " +
                "atomics (atomic_cap IBV_ATOMIC_NONE)");
        }
    }

    @Override
    public long addressHandleOf(final SendWorkRequest request)
    {
        return 0;
    }

    @Override
    public UdAddress udAddress()
    {
        return null;
    }

    /** Disconnects and destroys the queue pair with its connection. Idempotent. */
    @Override
    public void close()
    {
        connection.close();
    }

    @Override
    public void onErrorCompletion()
    {
        if (!destroyed)
        {
            state = QpState.ERROR;
        }
    }

    @Override
    public String toString()
    {
        return "IbverbsQueuePair{qp=" + qpNumber + ", state=" + state + "}";
    }

    long handle()
    {
        return qp;
    }

    void onEstablished()
    {
        if (state == QpState.INIT)
        {
            state = QpState.RTS;
        }
    }

    void onLost()
    {
        onErrorCompletion();
    }

    /** Leaves the CQs; the connection then destroys the queue pair. */
    void release()
    {
        if (destroyed)
        {
            return;
        }
        destroyed = true;
        state = QpState.RESET;
        sendCq.detach(this);
        receiveCq.detach(this);
    }

    private void checkOpen() throws VerbsException
    {
        if (destroyed)
        {
            throw new VerbsException("queue pair " + qpNumber + " is closed");
        }
    }

    private void checkSendable() throws VerbsException
    {
        checkOpen();
        final QpState current = state;
        if (current == QpState.INIT || current == QpState.RESET)
        {
            throw new VerbsException("queue pair " + qpNumber + " is in " + current + ": sends need an established " +
                "connection (CmConnection.poll() returned the queue pair)");
        }
    }
}
