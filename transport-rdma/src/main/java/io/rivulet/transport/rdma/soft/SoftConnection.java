package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.verbs.CmConnection;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import org.agrona.MutableDirectBuffer;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * One RC connection: the connection-manager handshake over a {@link Wire}, then the carrier of its
 * queue pair's frames.
 * <pre>
 *   active                                 passive
 *   CONNECT_REQUEST(qpn)   --------->      listener queue -> CmRequest.accept()
 *                          <---------      CONNECT_REPLY(qpn)    (QP in RTR)
 *   READY_TO_USE (QP RTS)  --------->      (QP RTS)
 *   ... data frames in both directions ...
 *   end of stream (close) --------->       disconnected, QP to ERROR, requests flushed
 * </pre>
 * <p>Application threads call {@link #poll()}, {@link #isDisconnected()} and {@link #close()}; every
 * state change happens on the NIC thread.
 */
final class SoftConnection implements CmConnection, Wire.FrameHandler, Selectable
{
    enum State
    {
        CONNECTING, REQUEST_SENT, AWAITING_REQUEST, REQUESTED, REPLY_SENT, ESTABLISHED, REJECTED, FAILED, CLOSED
    }

    private final SoftVerbsContext context;
    private final SoftNic nic;
    private final boolean active;
    private final SoftListener listener;
    private volatile State state;
    private volatile IOException failure;
    private volatile boolean disconnected;
    private volatile boolean finished;
    private volatile SoftRcQueuePair queuePair;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress remoteAddress;
    private Wire wire;
    private long deadlineNs;
    private int remoteQpNumber;

    private SoftConnection(
        final SoftVerbsContext context,
        final boolean active,
        final SoftListener listener,
        final State state,
        final InetSocketAddress localAddress,
        final InetSocketAddress remoteAddress)
    {
        this.context = context;
        this.nic = context.nic();
        this.active = active;
        this.listener = listener;
        this.state = state;
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
    }

    /** An outgoing connection; its queue pair is created with it. */
    static SoftConnection active(
        final SoftVerbsContext context,
        final QueuePairConfig config,
        final InetSocketAddress localAddress,
        final InetSocketAddress remoteAddress)
    {
        final SoftConnection connection = new SoftConnection(
            context, true, null, State.CONNECTING, localAddress, remoteAddress);
        connection.queuePair = new SoftRcQueuePair(context, connection, config, context.nextQpNumber());
        return connection;
    }

    /** An incoming connection waiting for its request. */
    static SoftConnection passive(
        final SoftVerbsContext context,
        final SoftListener listener,
        final InetSocketAddress localAddress,
        final InetSocketAddress remoteAddress)
    {
        return new SoftConnection(context, false, listener, State.AWAITING_REQUEST, localAddress, remoteAddress);
    }

    // ------------------------------------------------------------------ CmConnection (any thread)

    @Override
    public QueuePair poll() throws IOException
    {
        switch (state)
        {
            case ESTABLISHED:
                return queuePair;
            case FAILED:
            case REJECTED:
                throw failure;
            case CLOSED:
                if (failure != null)
                {
                    throw failure;
                }
                throw new IOException("connection closed");
            default:
                return null;
        }
    }

    @Override
    public QueuePair queuePair()
    {
        return queuePair;
    }

    @Override
    public boolean isDisconnected()
    {
        return disconnected;
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    @Override
    public void close()
    {
        if (state != State.CLOSED)
        {
            nic.runSync(this::closeOnNic);
        }
    }

    SoftVerbsContext context()
    {
        return context;
    }

    /**
     * Accepts a request (application thread): creates the queue pair, then lets the NIC reply.
     */
    SoftConnection accept(final QueuePairConfig config)
    {
        final SoftRcQueuePair qp = new SoftRcQueuePair(context, this, config, context.nextQpNumber());
        qp.onReadyToReceive();
        queuePair = qp;
        nic.execute(this::onAccepted);
        return this;
    }

    void reject()
    {
        nic.execute(() ->
        {
            if (state == State.REQUESTED)
            {
                sendControl(Frames.REJECT, 0);
                state = State.REJECTED;
                failure = new IOException("rejected");
                closeWire();
                finished = true;
            }
        });
    }

    // ------------------------------------------------------------------ NIC thread

    /** Starts an outgoing connection on a fresh wire. */
    void startActive(final Wire wire)
    {
        this.wire = wire;
        deadlineNs = nic.nowNs() + context.connectTimeoutNs();
        nic.addConnection(this);
        if (state != State.CONNECTING)
        {
            closeWire();
            finished = queuePair == null;
            return;
        }
        try
        {
            if (wire instanceof TcpWire)
            {
                final TcpWire tcp = (TcpWire)wire;
                final SocketChannel channel = tcp.channel();
                if (channel.isConnectionPending())
                {
                    tcp.key(nic.register(channel, SelectionKey.OP_CONNECT, this));
                    return;
                }
                tcp.key(nic.register(channel, SelectionKey.OP_READ, this));
                localAddress = (InetSocketAddress)channel.getLocalAddress();
            }
            else
            {
                ((MemoryWire)wire).attach(nic);
            }
            sendConnectRequest();
        }
        catch (final IOException ex)
        {
            fail(ex);
        }
    }

    /** An outgoing connection that failed before it started (in-process: nobody listens there). */
    void startFailed(final IOException cause)
    {
        nic.addConnection(this);
        fail(cause);
    }

    /** Starts an incoming connection: waits for the connection request on this wire. */
    void startPassive(final Wire wire) throws IOException
    {
        this.wire = wire;
        deadlineNs = nic.nowNs() + context.connectTimeoutNs();
        if (wire instanceof TcpWire)
        {
            final TcpWire tcp = (TcpWire)wire;
            tcp.key(nic.register(tcp.channel(), SelectionKey.OP_READ, this));
        }
        else
        {
            ((MemoryWire)wire).attach(nic);
        }
        nic.addConnection(this);
    }

    @Override
    public void onSelected(final int readyOps)
    {
        if (!(wire instanceof TcpWire))
        {
            return;
        }
        final TcpWire tcp = (TcpWire)wire;
        if ((readyOps & SelectionKey.OP_CONNECT) != 0 && state == State.CONNECTING)
        {
            try
            {
                if (tcp.channel().finishConnect())
                {
                    tcp.channel().keyFor(nic.selector()).interestOps(SelectionKey.OP_READ);
                    localAddress = (InetSocketAddress)tcp.channel().getLocalAddress();
                    sendConnectRequest();
                }
            }
            catch (final IOException ex)
            {
                final ConnectException refused = new ConnectException(
                    "soft RC connection to " + remoteAddress + " failed: " + ex.getMessage());
                refused.initCause(ex);
                fail(refused);
            }
        }
        if ((readyOps & SelectionKey.OP_READ) != 0)
        {
            tcp.onReadable();
        }
    }

    private void sendConnectRequest()
    {
        if (sendControl(Frames.CONNECT_REQUEST, queuePair.qpNumber()))
        {
            state = State.REQUEST_SENT;
        }
        else
        {
            fail(new IOException("could not send the connection request"));
        }
    }

    private void onAccepted()
    {
        final SoftRcQueuePair qp = queuePair;
        if (state != State.REQUESTED)
        {
            if (failure == null)
            {
                failure = new IOException("connection request from " + remoteAddress + " was withdrawn");
            }
            state = State.FAILED;
            qp.onDisconnected();
            if (finished)
            {
                // Dropped when the connector gave up; drive it again so the new queue pair flushes.
                finished = false;
                nic.addConnection(this);
            }
            return;
        }
        if (sendControl(Frames.CONNECT_REPLY, qp.qpNumber()))
        {
            state = State.REPLY_SENT;
            deadlineNs = nic.nowNs() + context.connectTimeoutNs();
        }
        else
        {
            fail(new IOException("could not send the connection reply"));
        }
    }

    /** @return true once the NIC no longer needs to drive this connection. */
    boolean isFinished()
    {
        return finished;
    }

    int doWork(final long nowNs)
    {
        if (finished)
        {
            return 0;
        }
        int work = 0;
        final SoftRcQueuePair qp = queuePair;
        try
        {
            if (wire != null && !wire.isClosed() && state != State.CONNECTING)
            {
                work += wire.poll(this);
                if (wire.isEndOfStream() && !wire.isClosed())
                {
                    onEndOfStream();
                }
            }
            if (qp != null)
            {
                work += qp.doWork(nowNs, state == State.ESTABLISHED ? wire : null);
            }
            if (wire != null && !wire.isClosed() && state != State.CONNECTING)
            {
                wire.flush();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            context.onProtocolError();
            abort(ex instanceof IOException ? (IOException)ex : new IOException(ex));
            work++;
        }
        checkDeadline(nowNs);
        return work;
    }

    private void checkDeadline(final long nowNs)
    {
        switch (state)
        {
            case CONNECTING:
            case REQUEST_SENT:
            case REPLY_SENT:
                if (nowNs - deadlineNs >= 0)
                {
                    fail(new SocketTimeoutException("soft RC connection " + (active ? "to " : "from ") +
                        remoteAddress + " timed out after " + TimeUnit.NANOSECONDS.toMillis(
                        context.connectTimeoutNs()) + " ms"));
                }
                else
                {
                    nic.deadline(deadlineNs);
                }
                break;

            case AWAITING_REQUEST:
                if (nowNs - deadlineNs >= 0)
                {
                    closeWire(); // a client that never asked: forget it
                    state = State.CLOSED;
                    finished = true;
                }
                else
                {
                    nic.deadline(deadlineNs);
                }
                break;

            default:
                break;
        }
    }

    @Override
    public void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final int type = Frames.type(buffer, offset);
        switch (type)
        {
            case Frames.CONNECT_REQUEST:
                onConnectRequest(buffer, offset);
                return;

            case Frames.CONNECT_REPLY:
                if (active && state == State.REQUEST_SENT)
                {
                    final int remoteQpn = Frames.key(buffer, offset);
                    if (sendControl(Frames.READY_TO_USE, 0))
                    {
                        queuePair.onEstablished(remoteQpn);
                        state = State.ESTABLISHED;
                    }
                    else
                    {
                        fail(new IOException("could not complete the connection"));
                    }
                    return;
                }
                break;

            case Frames.REJECT:
                if (active && state == State.REQUEST_SENT)
                {
                    final ConnectException rejected = new ConnectException(
                        "soft RC connection to " + remoteAddress + " rejected by the peer");
                    failure = rejected;
                    state = State.REJECTED;
                    queuePair.onDisconnected();
                    closeWire();
                    return;
                }
                break;

            case Frames.READY_TO_USE:
                if (!active && state == State.REPLY_SENT)
                {
                    queuePair.onEstablished(remoteQpNumber);
                    state = State.ESTABLISHED;
                    return;
                }
                break;

            case Frames.DISCONNECT:
                onEndOfStream();
                return;

            default:
                if (state == State.ESTABLISHED)
                {
                    queuePair.onFrame(buffer, offset, length);
                    return;
                }
                break;
        }
        context.onProtocolError();
        abort(new IOException("soft RC: frame type " + type + " unexpected in state " + state));
    }

    private void onConnectRequest(final MutableDirectBuffer buffer, final int offset)
    {
        if (active || state != State.AWAITING_REQUEST || Frames.address(buffer, offset) != Frames.MAGIC)
        {
            context.onProtocolError();
            abort(new IOException("not a soft RC connection request"));
            return;
        }
        remoteQpNumber = Frames.key(buffer, offset);
        state = State.REQUESTED;
        if (!listener.offerRequest(new SoftCmRequest(this)))
        {
            sendControl(Frames.REJECT, 0);
            state = State.REJECTED;
            failure = new IOException("rejected: listener backlog full or closed");
            closeWire();
            finished = true;
        }
    }

    private void onEndOfStream()
    {
        final SoftRcQueuePair qp = queuePair;
        switch (state)
        {
            case ESTABLISHED:
                disconnected = true;
                if (qp != null)
                {
                    qp.onDisconnected();
                }
                closeWire();
                break;

            case AWAITING_REQUEST:
                closeWire();
                state = State.CLOSED;
                finished = true;
                break;

            default:
                disconnected = true;
                fail(new IOException("soft RC connection " + (active ? "to " : "from ") + remoteAddress +
                    " closed by the peer during set-up"));
                break;
        }
    }

    /** Set-up failed: remember why, flush the queue pair, drop the wire. */
    private void fail(final IOException cause)
    {
        if (state == State.CLOSED || state == State.FAILED)
        {
            return;
        }
        failure = cause;
        state = State.FAILED;
        final SoftRcQueuePair qp = queuePair;
        if (qp != null)
        {
            qp.onDisconnected();
        }
        closeWire();
        if (qp == null)
        {
            finished = true;
        }
    }

    /** The wire broke or the peer misbehaved: a disconnection, whatever the state. */
    void abort(final IOException cause)
    {
        if (state == State.ESTABLISHED)
        {
            disconnected = true;
            final SoftRcQueuePair qp = queuePair;
            if (qp != null)
            {
                qp.onDisconnected();
            }
            closeWire();
        }
        else
        {
            fail(cause);
        }
    }

    /** NIC thread (or after the NIC stopped): destroy the queue pair, disconnect, forget. */
    void closeOnNic()
    {
        if (state == State.CLOSED)
        {
            return;
        }
        final SoftRcQueuePair qp = queuePair;
        if (qp != null)
        {
            qp.destroyOnNic();
        }
        if (wire != null && !wire.isClosed() && state != State.CONNECTING)
        {
            sendControl(Frames.DISCONNECT, 0);
        }
        closeWire();
        state = State.CLOSED;
        finished = true;
    }

    private boolean sendControl(final int type, final int key)
    {
        final Wire w = wire;
        if (w == null || w.isClosed())
        {
            return false;
        }
        try
        {
            final int offset = w.claim(Frames.HEADER_LENGTH);
            if (offset < 0)
            {
                return false;
            }
            final MutableDirectBuffer buffer = w.buffer();
            Frames.header(buffer, offset, Frames.HEADER_LENGTH, type, 0, 0);
            buffer.putInt(offset + Frames.KEY_OFFSET, key, Frames.ORDER);
            buffer.putLong(offset + Frames.ADDRESS_OFFSET, Frames.MAGIC, Frames.ORDER);
            w.commit(offset);
            w.flush();
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private void closeWire()
    {
        final Wire w = wire;
        if (w == null || w.isClosed())
        {
            return;
        }
        if (w instanceof TcpWire && !nic.isTerminated() && nic.isNicThread())
        {
            nic.linger((TcpWire)w);
        }
        else
        {
            w.close();
        }
    }

    @Override
    public String toString()
    {
        return "SoftConnection{" + (active ? "active" : "passive") + ", state=" + state + ", local=" + localAddress +
            ", remote=" + remoteAddress + ", disconnected=" + disconnected + "}";
    }
}
