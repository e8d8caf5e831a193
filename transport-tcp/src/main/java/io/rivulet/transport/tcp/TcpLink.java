package io.rivulet.transport.tcp;

import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.FrameOutlet;
import io.rivulet.spi.FramingException;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.ReliableLink;
import io.rivulet.spi.TransportSettings;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * One TCP connection carrying length-prefixed frames.
 *
 * <p>Wire layout of each frame, repeated back to back on the stream:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              Frame Length (int32, little-endian)              |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Frame (Frame Length bytes)                  ...
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The length excludes its own 4 bytes and must be in {@code 1..maxFrameLength}.
 *
 * <p>Sending: {@link #offer} copies prefix and frame into a direct send buffer, so many frames leave
 * in one {@code write} on {@link #flush()}; a partial write keeps the rest for the next flush.
 * Receiving: {@link #poll} reads into a direct receive buffer and hands complete frames to the handler
 * as views over that buffer, keeping a partial frame for the next read.
 *
 * <p>Both buffers are {@link GrowableBuffer}s: none is allocated until the first byte comes or goes, the first is a
 * few KiB, and they grow on demand to the configured lengths, keeping the bytes in flight: the receive buffer when a
 * frame longer than it announces itself or when reads fill it (a busy peer), the send buffer when an offer does not
 * fit. So a connection that never completes SETUP holds a few KiB at most, and once the buffers have grown neither
 * path allocates. Closing frees them explicitly: the receive side at once, or when a {@link #poll} that closed its
 * own link from a frame handler returns; the send side at once when the closing thread is the one that sends, else
 * at the driver's next duty cycle (the sender has released the link by then; see {@link #close()}).
 *
 * <p>Over TLS the same buffers hold plaintext: {@link TlsSession} wraps what {@link #flush()} would write and
 * unwraps what {@link #poll} reads, and the link is created only once its handshake is complete.
 *
 * <p>Threading as {@link ReliableLink} says: {@link #offer}, {@link #flush()} and {@link #isFlushed()} belong to the
 * engine's sender, everything else to the conductor, the thread of the {@link TcpTransportDriver} that created the
 * link, whose {@link TcpTransportDriver#doWork(long)} must run each duty cycle to report the socket readable. The
 * two halves share no buffer; once closed, neither touches one.
 */
public final class TcpLink implements ReliableLink, Selectable
{
    /** Bytes of the length prefix before each frame. */
    public static final int LENGTH_PREFIX_LENGTH = FrameOutlet.RUN_PREFIX_LENGTH;

    /** The same as a run's ({@link FrameOutlet#RUN_PREFIX_ORDER}): {@link #offerRun} copies runs as they are. */
    private static final ByteOrder PREFIX_ORDER = FrameOutlet.RUN_PREFIX_ORDER;
    /** Wrapped by the views once their buffers are freed: a stray access then fails its bounds check. */
    private static final byte[] NO_BYTES = new byte[0];

    private final TcpTransportDriver driver;
    private final SocketChannel channel;
    private final SelectionKey selectionKey;
    private final int maxFrameLength;
    private final String remoteAddress;
    private final String localAddress;

    // Send side: the sender's thread.
    private final GrowableBuffer send;
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(NO_BYTES);
    private ByteBuffer sendByteBuffer;
    private int sendCapacity;
    private int sendHead;
    private int sendTail;
    /** The thread that sends, once it has: a close from any other thread leaves the send side to the driver. */
    private Thread sendThread;

    // Receive side: the conductor's thread.
    private final GrowableBuffer receive;
    private final UnsafeBuffer receiveBuffer = new UnsafeBuffer(NO_BYTES);
    private ByteBuffer receiveByteBuffer;
    private int receiveCapacity;
    private int receiveHead;
    private int receiveTail;

    // True when the selector reported data or the last read filled the buffer (the socket may hold more).
    // Bytes already in the receive buffer are delivered regardless, so a frame limit never strands them.
    private boolean readable;
    /** The driver lets this link be read directly ({@link #readDirectly}); conductor state. */
    private boolean directAllowed;
    /**
     * Read on every poll, out of the selector's interest: allowed, and the receive buffer a read needs exists already
     * (an idle link holds none until its first bytes come); conductor state.
     */
    private boolean directReads;
    /** The last read filled most of the receive buffer: a busy peer, whose reads a bigger buffer would batch. */
    private boolean busy;
    private boolean endOfStream;
    /** Set by the conductor; read by the sender, which must not touch buffers the close frees. */
    private volatile boolean closed;
    /** Inside {@link #poll}: a close from a frame handler leaves the receive buffer to be freed when poll returns. */
    private boolean polling;
    /** TLS between the socket and the buffers, or null for plain TCP. The handshake is complete. */
    private final TlsSession tls;
    private final String peerPrincipal;

    TcpLink(
        final TcpTransportDriver driver,
        final Selector selector,
        final SocketChannel channel,
        final TransportSettings settings,
        final TlsSession tls) throws IOException
    {
        this.driver = driver;
        this.channel = channel;
        this.maxFrameLength = settings.maxFrameLength();
        this.tls = tls;
        this.peerPrincipal = tls == null ? null : tls.peerPrincipal();

        configure(channel, settings);
        remoteAddress = SocketAddresses.format(channel.getRemoteAddress());
        localAddress = SocketAddresses.format(channel.getLocalAddress());

        final int frameCapacity = LENGTH_PREFIX_LENGTH + maxFrameLength;
        send = new GrowableBuffer(driver.bufferMemory(), Math.min(frameCapacity, settings.sendBufferLength()),
            settings.sendBufferLength());
        receive = new GrowableBuffer(driver.bufferMemory(), Math.min(frameCapacity, settings.receiveBufferLength()),
            settings.receiveBufferLength());
        // A plain socket's data is reported by the selector; TLS may hold bytes it read during the handshake.
        readable = null != tls && tls.hasPendingInput();

        // A connector's channel is already registered: this replaces its interest set and attachment.
        selectionKey = channel.register(selector, SelectionKey.OP_READ, this);
    }

    /**
     * Applies the socket options every link uses; before connecting so the buffer sizes shape the
     * TCP window negotiation.
     *
     * @param channel  to configure.
     * @param settings giving the kernel buffer sizes.
     * @throws IOException when an option cannot be set.
     */
    static void configure(final SocketChannel channel, final TransportSettings settings) throws IOException
    {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, Boolean.TRUE);
        if (settings.socketSendBufferLength() > 0)
        {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, settings.socketSendBufferLength());
        }
        if (settings.socketReceiveBufferLength() > 0)
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, settings.socketReceiveBufferLength());
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when length is not in {@code 1..maxFrameLength}.
     */
    @Override
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length <= 0 || length > maxFrameLength)
        {
            throw new IllegalArgumentException(
                "frame length " + length + " must be between 1 and maximum " + maxFrameLength + " to " + remoteAddress);
        }
        if (closed)
        {
            return true; // discarded, as close() discards what was queued; the buffer may be freed
        }

        final int required = LENGTH_PREFIX_LENGTH + length;
        if (sendTail + required > sendCapacity && !makeRoomToSend(required))
        {
            return false;
        }

        sendBuffer.putInt(sendTail, length, PREFIX_ORDER);
        sendBuffer.putBytes(sendTail + LENGTH_PREFIX_LENGTH, buffer, offset, length);
        sendTail += required;

        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A run is this link's wire format already: it is copied into the send buffer whole when it fits, frame by
     * frame as far as there is room when it does not.
     */
    @Override
    public int offerRun(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closed)
        {
            return length; // discarded, as offer discards
        }
        if (sendTail + length > sendCapacity && !makeRoomToSend(length))
        {
            return ReliableLink.super.offerRun(buffer, offset, length);
        }
        sendBuffer.putBytes(sendTail, buffer, offset, length);
        sendTail += length;
        return length;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int flush() throws IOException
    {
        if (closed)
        {
            throw new IOException("link to " + remoteAddress + " is closed");
        }
        if (null == sendThread)
        {
            sendThread = Thread.currentThread();
        }
        if (sendHead == sendTail)
        {
            if (tls != null && !tls.isFlushed())
            {
                tls.flush();
            }
            return 0;
        }

        sendByteBuffer.limit(sendTail).position(sendHead);
        final int written = tls == null ? channel.write(sendByteBuffer) : tls.write(sendByteBuffer);
        sendHead += written;
        if (sendHead == sendTail)
        {
            // Drained: start again at 0 so offers never have to compact in the common case.
            sendHead = 0;
            sendTail = 0;
        }

        return written;
    }

    /**
     * {@inheritDoc}
     *
     * <p>False: what arrives never makes this link send (a TLS 1.3 key update is answered on the next write).
     */
    @Override
    public boolean needsFlushAfterPoll(final int framesDelivered)
    {
        return false;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean isFlushed()
    {
        return sendHead == sendTail && (tls == null || tls.isFlushed());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Frames already buffered are delivered first without a system call; the socket is read at most
     * once per call, and only when the selector reported it readable, the last read filled the buffer, or the link
     * is read directly ({@link #readDirectly}).
     */
    @Override
    public int poll(final FrameHandler handler, final int frameLimit) throws IOException
    {
        if (closed)
        {
            return 0;
        }
        polling = true;
        try
        {
            int frames = deliverFrames(handler, 0, frameLimit);

            if (frames < frameLimit && (readable || directReads) && !endOfStream && !closed)
            {
                if (read() > 0)
                {
                    frames = deliverFrames(handler, frames, frameLimit);
                }
            }

            if (0 == frames && endOfStream && !closed)
            {
                throw new LinkClosedException(tls != null && tls.isCloseNotifyReceived() ?
                    "TLS closed (close_notify) by peer " + remoteAddress : "closed by peer " + remoteAddress);
            }

            return frames;
        }
        finally
        {
            polling = false;
            if (closed)
            {
                freeReceiveSide(); // a frame handler closed this link: its view of the buffer has ended now
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String remoteAddress()
    {
        return remoteAddress;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String localAddress()
    {
        return localAddress;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Over mutual TLS, the subject of the peer's verified certificate.
     */
    @Override
    public String peerPrincipal()
    {
        return peerPrincipal;
    }

    /**
     * @return true when this link runs over TLS.
     */
    public boolean isTls()
    {
        return tls != null;
    }

    /**
     * @return bytes offered but not yet written to the socket, prefixes included.
     */
    public int pendingSendBytes()
    {
        return sendTail - sendHead;
    }

    /**
     * @return bytes read from the socket but not yet delivered as frames, prefixes included.
     */
    public int bufferedReceiveBytes()
    {
        return receiveTail - receiveHead;
    }

    /**
     * @return bytes of the send buffer allocated now (0 until the first offer); sender thread.
     */
    public int sendCapacity()
    {
        return sendCapacity;
    }

    /**
     * @return bytes of the receive buffer allocated now (0 until the first byte arrives); conductor thread.
     */
    public int receiveCapacity()
    {
        return receiveCapacity;
    }

    /**
     * @return true once {@link #close()} has been called.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Frees the buffers: the receive side now, or when the {@link #poll} this is called from returns; the send side
     * now when this thread is the one that sent (or nothing was sent), else at the driver's next duty cycle. The
     * engine closes a link only after its sender has released it; the delay keeps even a sender that broke that
     * rule out of freed memory, and a driver closed before then leaves those buffers to the GC.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            if (tls != null)
            {
                tls.closeQuietly(); // close_notify; the sender released the link before the conductor closes it
            }
            selectionKey.cancel();
            TcpTransportDriver.closeQuietly(channel);
            final Thread sender = sendThread;
            if (null == sender || Thread.currentThread() == sender)
            {
                freeSendSide();
            }
            else
            {
                driver.freeSendSideLater(this);
            }
            if (!polling)
            {
                freeReceiveSide();
            }
            driver.onLinkClosed(this);
        }
    }

    /** Frees the send buffer and TLS's encrypted output; the sender no longer uses them. Idempotent. */
    void freeSendSide()
    {
        sendBuffer.wrap(NO_BYTES);
        sendByteBuffer = null;
        sendCapacity = 0;
        sendHead = 0;
        sendTail = 0;
        send.free();
        if (null != tls)
        {
            tls.freeSendSide();
        }
    }

    /** Drops the send side for the GC to free: the driver closed before it was safe to free it. Idempotent. */
    void abandonSendSide()
    {
        send.abandon();
        if (null != tls)
        {
            tls.abandonSendSide();
        }
    }

    private void freeReceiveSide()
    {
        receiveBuffer.wrap(NO_BYTES);
        receiveByteBuffer = null;
        receiveCapacity = 0;
        receiveHead = 0;
        receiveTail = 0;
        receive.free();
        if (null != tls)
        {
            tls.freeReceiveSide();
        }
    }

    /**
     * Conductor: whether this link is read on every {@link #poll} instead of when the selector reports it readable.
     * Read directly, the socket leaves the selector's interest, so it is in no epoll set and a peer's write that
     * lands in it runs no epoll callback ({@link TcpTransportDriver} says when).
     *
     * @param direct true to read on every poll, from the first bytes on (until then the selector reports them, so
     *               an idle link allocates no buffer); false to go back to the selector, which reports what came
     *               meanwhile at its next select (level-triggered).
     */
    void readDirectly(final boolean direct)
    {
        if (closed || !selectionKey.isValid())
        {
            return;
        }
        directAllowed = direct;
        if (!direct && directReads)
        {
            directReads = false;
            selectionKey.interestOps(SelectionKey.OP_READ);
        }
        else if (direct && !directReads && receiveCapacity > 0)
        {
            enterDirectReads();
        }
    }

    private void enterDirectReads()
    {
        directReads = true;
        selectionKey.interestOps(0);
    }

    /** @return true while the link is read on every poll ({@link #readDirectly}); conductor. */
    boolean readsDirectly()
    {
        return directReads;
    }

    /** @return the selector's interest in this link's socket (tests). */
    int selectionKeyInterest()
    {
        return selectionKey.interestOps();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void onReady(final int readyOps)
    {
        if ((readyOps & SelectionKey.OP_READ) != 0)
        {
            readable = true;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "TcpLink{" + localAddress + " -> " + remoteAddress + (tls != null ? ", " + tls.protocol() : "") +
            (closed ? ", closed}" : "}");
    }

    private int deliverFrames(final FrameHandler handler, final int framesSoFar, final int frameLimit)
        throws FramingException
    {
        int frames = framesSoFar;
        while (frames < frameLimit && !closed)
        {
            final int head = receiveHead;
            final int available = receiveTail - head;
            if (available < LENGTH_PREFIX_LENGTH)
            {
                break;
            }

            // Checked before the body arrives so a hostile length is rejected at once, never buffered for.
            final int length = receiveBuffer.getInt(head, PREFIX_ORDER);
            if (length <= 0 || length > maxFrameLength)
            {
                throw framingException(length);
            }

            if (available < LENGTH_PREFIX_LENGTH + length)
            {
                break;
            }

            // Consumed before the callback so a handler that throws does not see the frame again.
            receiveHead = head + LENGTH_PREFIX_LENGTH + length;
            frames++;
            handler.onFrame(receiveBuffer, head + LENGTH_PREFIX_LENGTH, length);
        }

        return frames;
    }

    private int read() throws IOException
    {
        if (!makeRoomToRead())
        {
            // Cannot happen while capacity holds a whole frame, but a zero-length read must not clear readable.
            return 0;
        }

        final int space = receiveCapacity - receiveTail;
        receiveByteBuffer.limit(receiveCapacity).position(receiveTail);
        final int bytesRead = tls == null ? channel.read(receiveByteBuffer) : tls.read(receiveByteBuffer);
        busy = bytesRead == space && space >= receiveCapacity / 2;
        if (bytesRead > 0)
        {
            receiveTail += bytesRead;
            if (directAllowed && !directReads)
            {
                enterDirectReads();
            }
            // A short read drained the socket; a full one may have left more for the next poll.
            readable = bytesRead == space || (tls != null && tls.hasBufferedInput());
        }
        else if (0 == bytesRead && tls != null && tls.hasBufferedInput())
        {
            readable = true; // decrypted bytes wait for room in the receive buffer
        }
        else if (0 == bytesRead)
        {
            readable = false;
        }
        else
        {
            readable = false;
            endOfStream = true;
        }

        return bytesRead;
    }

    /**
     * Before a read: allocates the receive buffer on first use, grows it when the frame being received announced
     * itself longer than the buffer or the last read found a busy peer, and moves a partial frame to the start when
     * the rest of it would not fit after it.
     *
     * @return true when there is room to read into.
     */
    private boolean makeRoomToRead()
    {
        if (receiveHead == receiveTail)
        {
            receiveHead = 0;
            receiveTail = 0;
        }
        final int buffered = receiveTail - receiveHead;
        final int frameNeed = nextFrameNeed(buffered);
        final int wanted = busy && receiveCapacity < receive.max() ? 2 * receiveCapacity : 0;
        if (frameNeed > receiveCapacity || wanted > receiveCapacity)
        {
            receive.grow(frameNeed, wanted, receiveHead, receiveTail);
            if (receive.byteBuffer() != receiveByteBuffer)
            {
                receiveByteBuffer = receive.byteBuffer();
                receiveBuffer.wrap(receiveByteBuffer);
                receiveCapacity = receive.capacity();
                receiveHead = 0;
                receiveTail = buffered;
            }
        }
        final int head = receiveHead;
        if (head > 0 && receiveCapacity - head < Math.max(frameNeed, Math.min(receiveCapacity, receive.floor())))
        {
            // Move the partial frame down only when the rest of it, or a frame of the maximum length, might not fit.
            receiveByteBuffer.limit(receiveTail).position(head);
            receiveByteBuffer.compact();
            receiveTail -= head;
            receiveHead = 0;
        }

        return receiveTail < receiveCapacity;
    }

    /**
     * @param buffered bytes of the partial frame at the head.
     * @return the bytes that frame takes, prefix included, once its length is known; else the prefix's.
     */
    private int nextFrameNeed(final int buffered)
    {
        if (buffered < LENGTH_PREFIX_LENGTH)
        {
            return LENGTH_PREFIX_LENGTH;
        }
        final int length = receiveBuffer.getInt(receiveHead, PREFIX_ORDER); // checked by deliverFrames already
        return LENGTH_PREFIX_LENGTH + Math.max(0, Math.min(length, maxFrameLength));
    }

    /**
     * Sender: an offer did not fit after the tail. Moves pending bytes to the start, or grows the buffer (doubling,
     * as far as the configured length and the driver's budget allow) with them.
     *
     * @return false when the frame does not fit even so: back-pressure.
     */
    private boolean makeRoomToSend(final int required)
    {
        final int pending = sendTail - sendHead;
        if (pending + required <= sendCapacity)
        {
            compactSendBuffer();
            return true;
        }
        sendThread = Thread.currentThread();
        if (!send.grow(pending + required, 2 * sendCapacity, sendHead, sendTail))
        {
            return false;
        }
        if (send.byteBuffer() != sendByteBuffer)
        {
            sendByteBuffer = send.byteBuffer();
            sendBuffer.wrap(sendByteBuffer);
            sendCapacity = send.capacity();
            sendHead = 0;
            sendTail = pending;
        }
        return sendTail + required <= sendCapacity;
    }

    private void compactSendBuffer()
    {
        sendByteBuffer.limit(sendTail).position(sendHead);
        sendByteBuffer.compact();
        sendTail -= sendHead;
        sendHead = 0;
    }

    private FramingException framingException(final int length)
    {
        if (length > maxFrameLength)
        {
            return new FramingException(
                "frame length " + length + " exceeds maximum " + maxFrameLength + " from " + remoteAddress);
        }

        return new FramingException("invalid frame length " + length + " from " + remoteAddress);
    }
}
