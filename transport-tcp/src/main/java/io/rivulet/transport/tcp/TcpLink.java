package io.rivulet.transport.tcp;

import io.rivulet.spi.SocketAddresses;
import io.rivulet.spi.FrameHandler;
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
 * as views over that buffer, keeping a partial frame for the next read. Neither path allocates.
 *
 * <p>Over TLS the same buffers hold plaintext: {@link TlsSession} wraps what {@link #flush()} would write and
 * unwraps what {@link #poll} reads, and the link is created only once its handshake is complete.
 *
 * <p>Not thread-safe: owned by the engine thread of the {@link TcpTransportDriver} that created it, whose
 * {@link TcpTransportDriver#doWork(long)} must run each duty cycle to report the socket readable.
 */
public final class TcpLink implements ReliableLink, Selectable
{
    /** Bytes of the length prefix before each frame. */
    public static final int LENGTH_PREFIX_LENGTH = Integer.BYTES;

    private static final ByteOrder PREFIX_ORDER = ByteOrder.LITTLE_ENDIAN;

    private final TcpTransportDriver driver;
    private final SocketChannel channel;
    private final SelectionKey selectionKey;
    private final int maxFrameLength;
    private final String remoteAddress;
    private final String localAddress;

    private final ByteBuffer sendByteBuffer;
    private final UnsafeBuffer sendBuffer;
    private final int sendCapacity;
    private int sendHead;
    private int sendTail;

    private final ByteBuffer receiveByteBuffer;
    private final UnsafeBuffer receiveBuffer;
    private final int receiveCapacity;
    private int receiveHead;
    private int receiveTail;

    // True when the selector reported data or the last read filled the buffer (the socket may hold more).
    // Bytes already in the receive buffer are delivered regardless, so a frame limit never strands them.
    private boolean readable = true;
    private boolean endOfStream;
    private boolean closed;
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

        sendCapacity = settings.sendBufferLength();
        sendByteBuffer = ByteBuffer.allocateDirect(sendCapacity);
        sendBuffer = new UnsafeBuffer(sendByteBuffer);

        receiveCapacity = settings.receiveBufferLength();
        receiveByteBuffer = ByteBuffer.allocateDirect(receiveCapacity);
        receiveBuffer = new UnsafeBuffer(receiveByteBuffer);

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

        final int required = LENGTH_PREFIX_LENGTH + length;
        if (sendTail + required > sendCapacity)
        {
            if ((sendTail - sendHead) + required > sendCapacity)
            {
                return false;
            }
            compactSendBuffer();
        }

        sendBuffer.putInt(sendTail, length, PREFIX_ORDER);
        sendBuffer.putBytes(sendTail + LENGTH_PREFIX_LENGTH, buffer, offset, length);
        sendTail += required;

        return true;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int flush() throws IOException
    {
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
     * once per call, and only when the selector reported it readable or the last read filled the buffer.
     */
    @Override
    public int poll(final FrameHandler handler, final int frameLimit) throws IOException
    {
        int frames = deliverFrames(handler, 0, frameLimit);

        if (frames < frameLimit && readable && !endOfStream && !closed)
        {
            if (read() > 0)
            {
                frames = deliverFrames(handler, frames, frameLimit);
            }
        }

        if (0 == frames && endOfStream)
        {
            throw new LinkClosedException(tls != null && tls.isCloseNotifyReceived() ?
                "TLS closed (close_notify) by peer " + remoteAddress : "closed by peer " + remoteAddress);
        }

        return frames;
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
     * @return true once {@link #close()} has been called.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            sendHead = 0;
            sendTail = 0;
            if (tls != null)
            {
                tls.closeQuietly(); // close_notify; the sender released the link before the conductor closes it
            }
            selectionKey.cancel();
            TcpTransportDriver.closeQuietly(channel);
            driver.onChannelClosed();
        }
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
        compactReceiveBuffer();

        final int space = receiveCapacity - receiveTail;
        if (0 == space)
        {
            // Cannot happen while capacity holds a whole frame, but a zero-length read must not clear readable.
            return 0;
        }

        receiveByteBuffer.limit(receiveCapacity).position(receiveTail);
        final int bytesRead = tls == null ? channel.read(receiveByteBuffer) : tls.read(receiveByteBuffer);
        if (bytesRead > 0)
        {
            receiveTail += bytesRead;
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

    private void compactReceiveBuffer()
    {
        final int head = receiveHead;
        if (head == receiveTail)
        {
            receiveHead = 0;
            receiveTail = 0;
        }
        else if (head > 0 && receiveCapacity - head < maxFrameLength + LENGTH_PREFIX_LENGTH)
        {
            // Move the partial frame down only when a frame of the maximum length might not fit after it.
            receiveByteBuffer.limit(receiveTail).position(head);
            receiveByteBuffer.compact();
            receiveTail -= head;
            receiveHead = 0;
        }
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
