package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import io.rivulet.transport.rdma.jni.NativeLibrary;
import io.rivulet.transport.rdma.jni.SendChain;
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
 * An RC queue pair through DiSNI, posting with prebuilt stateful verb calls ({@link PostSendCalls},
 * {@link PostRecvCalls}); atomics, whose operands DiSNI 2.1 never writes to native memory, are posted on
 * the same {@code ibv_qp} through the JNI extension ({@link Verbs#postSend}), and refused when the device has none
 * ({@code atomic_cap} IBV_ATOMIC_NONE).
 *
 * <p>{@link #state()} is tracked, not queried (DiSNI 2.1 has no {@code ibv_query_qp}): INIT when
 * created, RTS once RDMA CM reports ESTABLISHED, ERROR after a disconnect, a failed set-up or an error
 * completion seen on a CQ it has to itself. Sends are refused before RTS (the device would reject them
 * with an opaque EINVAL); receives may be posted from INIT on.
 *
 * <p>Sends are posted by one thread and receives by one (possibly another); the connection manager's events, on
 * the context's owner thread, move the state, which is volatile.
 */
final class DisniQueuePair implements QueuePair, CompletionQueueUser
{
    private final DisniConnection connection;
    private final IbvQP qp;
    private final int qpNumber;
    private final int maxSendWr;
    private final int maxReceiveWr;
    private final int maxInlineData;
    private final boolean atomics;
    private final DisniCompletionQueue sendCq;
    private final DisniCompletionQueue receiveCq;
    private final PostSendCalls sendCalls;
    private final PostRecvCalls receiveCalls;
    private volatile QpState state = QpState.INIT;
    private volatile boolean destroyed;
    private SendChain atomicRequest;
    private long nativeQp;

    DisniQueuePair(
        final DisniConnection connection,
        final IbvQP qp,
        final QueuePairConfig config,
        final DisniCompletionQueue sendCq,
        final DisniCompletionQueue receiveCq,
        final int immCacheSize,
        final boolean atomics) throws IOException
    {
        this.connection = connection;
        this.qp = qp;
        this.qpNumber = qp.getQp_num();
        this.maxSendWr = config.maxSendWr();
        this.maxReceiveWr = config.maxReceiveWr();
        this.maxInlineData = Math.max(0, config.maxInlineData());
        this.atomics = atomics;
        this.sendCq = sendCq;
        this.receiveCq = receiveCq;
        this.sendCalls = new PostSendCalls(wrs -> qp.postSend(wrs, null), immCacheSize);
        this.receiveCalls = new PostRecvCalls(wrs -> qp.postRecv(wrs, null), Math.max(64, 2 * maxReceiveWr));
        sendCq.attach(this, maxSendWr);
        receiveCq.attach(this, maxReceiveWr);
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

    @Override
    public void postSend(final SendWorkRequest request) throws IOException
    {
        if (destroyed)
        {
            throw new VerbsException("queue pair " + qpNumber + " is closed");
        }
        final QpState current = state;
        if (current == QpState.INIT || current == QpState.RESET)
        {
            throw new VerbsException("queue pair " + qpNumber + " is in " + current + ": sends need an established " +
                "connection (CmConnection.poll() returned the queue pair)");
        }
        final boolean atomic = WorkRequests.isAtomic(request.opcode());
        if (atomic && null == atomicRequest)
        {
            // Without the library the device's atomic_cap is unknown (attributes() assumes NONE): say what is missing.
            NativeLibrary.require(request.opcode().name() + " through DiSNI");
        }
        validateSend(request, maxInlineData, atomics, qpNumber);
        if (atomic)
        {
            postAtomic(request);
            return;
        }
        final SVCPostSend call = sendCalls.prepare(request);
        try
        {
            call.execute();
        }
        catch (final IOException ex)
        {
            throw postFailure("ibv_post_send", ex, "send queue full (maxSendWr " + maxSendWr + "): poll the send " +
                "completion queue, and signal at least every maxSendWr-th send");
        }
    }

    /**
     * @param atomics whether the device executes atomics ({@code atomic_cap} other than IBV_ATOMIC_NONE).
     * @throws VerbsException for a malformed request, or an atomic the device does not execute: posted anyway, it
     *                        would fail as an error completion that breaks the connection.
     */
    static void validateSend(final SendWorkRequest request, final int maxInlineData, final boolean atomics,
        final int qpNumber) throws VerbsException
    {
        WorkRequests.validateSend(request, maxInlineData);
        if (!atomics && WorkRequests.isAtomic(request.opcode()))
        {
            throw new VerbsException(request.opcode() + " on queue pair " + qpNumber + ": the device executes no " +
                "atomics (atomic_cap IBV_ATOMIC_NONE)");
        }
    }

    private void postAtomic(final SendWorkRequest request) throws IOException
    {
        if (null == atomicRequest)
        {
            nativeQp = DisniHandles.handleOf(qp, "queue pair " + qpNumber);
            atomicRequest = new SendChain(1);
        }
        final int rc = atomicRequest.fill(0, request, 0).post(nativeQp, 1);
        if (rc != 0)
        {
            if (Verbs.chainErrno(rc) == Verbs.ENOMEM)
            {
                throw new VerbsException("ibv_post_send on queue pair " + qpNumber + ": send queue full (maxSendWr " +
                    maxSendWr + "): poll the send completion queue, and signal at least every maxSendWr-th send");
            }
            throw new VerbsException("ibv_post_send of " + request.opcode() + " on queue pair " + qpNumber + " (" +
                state + ") failed: " + Verbs.errorText(-Verbs.chainErrno(rc)));
        }
    }

    @Override
    public void postReceive(final ReceiveWorkRequest request) throws IOException
    {
        if (destroyed)
        {
            throw new VerbsException("queue pair " + qpNumber + " is closed");
        }
        if (request.sge().length() < 0)
        {
            throw new VerbsException("receive buffer length is negative: " + request.sge().length());
        }
        final SVCPostRecv call = receiveCalls.prepare(request);
        try
        {
            call.execute();
        }
        catch (final IOException ex)
        {
            throw postFailure("ibv_post_recv", ex, "receive queue full (maxReceiveWr " + maxReceiveWr + ")");
        }
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
    public String toString()
    {
        return "DisniQueuePair{qp=" + qpNumber + ", state=" + state + "}";
    }

    long sendCallBuilds()
    {
        return sendCalls.builds();
    }

    long receiveCallBuilds()
    {
        return receiveCalls.builds();
    }

    @Override
    public void onError()
    {
        if (!destroyed)
        {
            state = QpState.ERROR;
        }
    }

    void onEstablished()
    {
        if (state == QpState.INIT)
        {
            state = QpState.RTS;
        }
    }

    /** Frees the prebuilt calls and leaves the CQs; the connection then destroys the QP. */
    void release()
    {
        if (destroyed)
        {
            return;
        }
        destroyed = true;
        state = QpState.RESET;
        sendCalls.close();
        receiveCalls.close();
        sendCq.detach(this, maxSendWr);
        receiveCq.detach(this, maxReceiveWr);
    }

    private VerbsException postFailure(final String call, final IOException ex, final String whenFull)
    {
        final String text = DisniAvailability.text(ex);
        if (text.contains("Cannot allocate memory"))
        {
            return new VerbsException(call + " on queue pair " + qpNumber + ": " + whenFull, ex);
        }
        return new VerbsException(call + " on queue pair " + qpNumber + " (" + state + ") failed: " + text, ex);
    }
}
