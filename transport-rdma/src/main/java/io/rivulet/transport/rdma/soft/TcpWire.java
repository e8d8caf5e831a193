package io.rivulet.transport.rdma.soft;

import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A wire over a non-blocking TCP connection, the soft provider's "RoCE over TCP". Frames are
 * length-prefixed (see {@link Frames}); outbound and inbound buffers are bounded, so a slow peer is
 * back-pressure. Used by its NIC thread only.
 */
final class TcpWire implements Wire
{
    static final int BUFFER_LENGTH = 256 * 1024;

    private final SocketChannel channel;
    private final ByteBuffer out = BufferUtil.allocateDirectAligned(BUFFER_LENGTH, 64);
    private final ByteBuffer in = BufferUtil.allocateDirectAligned(BUFFER_LENGTH, 64);
    private final UnsafeBuffer outBuffer = new UnsafeBuffer(out);
    private final UnsafeBuffer inBuffer = new UnsafeBuffer(in);
    private SelectionKey key;
    private int claimedLength;
    private boolean readReady = true;
    private boolean endOfStream;
    private boolean closed;
    private boolean outputShutdown;

    TcpWire(final SocketChannel channel)
    {
        this.channel = channel;
    }

    SocketChannel channel()
    {
        return channel;
    }

    void key(final SelectionKey key)
    {
        this.key = key;
    }

    /** The selector saw the channel readable. */
    void onReadable()
    {
        readReady = true;
    }

    @Override
    public MutableDirectBuffer buffer()
    {
        return outBuffer;
    }

    @Override
    public int claim(final int length) throws IOException
    {
        if (closed || outputShutdown)
        {
            return -1;
        }
        if (out.remaining() < length)
        {
            flush();
            if (out.remaining() < length)
            {
                return -1;
            }
        }
        claimedLength = length;
        return out.position();
    }

    @Override
    public void commit(final int offset)
    {
        out.position(offset + claimedLength);
    }

    @Override
    public int poll(final FrameHandler handler) throws IOException
    {
        if (closed || endOfStream)
        {
            return 0;
        }
        boolean eof = false;
        if (readReady)
        {
            readReady = false;
            int read;
            try
            {
                read = channel.read(in);
            }
            catch (final IOException ex)
            {
                read = -1; // reset by the peer: the same as end of stream to the connection above
            }
            if (read < 0)
            {
                eof = true;
            }
            else if (read > 0 && !in.hasRemaining())
            {
                readReady = true; // the buffer filled: more may be waiting
            }
        }

        int frames = 0;
        final int limit = in.position();
        int offset = 0;
        while (limit - offset >= Integer.BYTES && !closed)
        {
            final int length = inBuffer.getInt(offset + Frames.LENGTH_OFFSET, Frames.ORDER);
            if (length < Frames.HEADER_LENGTH || length > Frames.MAX_FRAME)
            {
                throw new IOException("not a soft RC frame: length " + length);
            }
            if (limit - offset < length)
            {
                break;
            }
            handler.onFrame(inBuffer, offset, length);
            frames++;
            offset += length;
        }
        if (offset > 0 && !closed)
        {
            in.limit(limit).position(offset);
            in.compact();
        }
        if (eof)
        {
            endOfStream = true;
        }
        return frames;
    }

    @Override
    public boolean isEndOfStream()
    {
        return endOfStream;
    }

    @Override
    public boolean flush() throws IOException
    {
        if (closed)
        {
            return true;
        }
        if (out.position() > 0)
        {
            out.flip();
            try
            {
                channel.write(out);
            }
            finally
            {
                out.compact();
            }
        }
        final boolean drained = out.position() == 0;
        if (key != null && key.isValid())
        {
            final int interest = drained ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE;
            if (key.interestOps() != interest)
            {
                key.interestOps(interest);
            }
        }
        return drained;
    }

    /**
     * Flushes what it can and half-closes, so the peer reads every frame and then end of stream.
     * The caller keeps polling (and discarding) until end of stream before {@link #close()}, so unread
     * input does not turn the close into a reset that could destroy frames still on their way.
     */
    void shutdownOutput()
    {
        if (!outputShutdown && !closed)
        {
            if (!channel.isConnected())
            {
                outputShutdown = true;
                endOfStream = true;
                return;
            }
            try
            {
                flush();
                if (out.position() == 0)
                {
                    outputShutdown = true;
                    channel.shutdownOutput();
                }
            }
            catch (final IOException ex)
            {
                outputShutdown = true;
            }
        }
    }

    /** Reads and throws away input; for lingering closes. */
    void discardInput()
    {
        if (closed || endOfStream)
        {
            return;
        }
        if (!channel.isConnected())
        {
            endOfStream = true;
            return;
        }
        try
        {
            in.clear();
            final int read = channel.read(in);
            if (read < 0)
            {
                endOfStream = true;
            }
            in.clear();
        }
        catch (final IOException ex)
        {
            endOfStream = true;
        }
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            if (key != null)
            {
                key.cancel();
            }
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // closing anyway
            }
        }
    }

    @Override
    public boolean isClosed()
    {
        return closed;
    }

    @Override
    public String toString()
    {
        return "TcpWire{" + channel + ", closed=" + closed + ", endOfStream=" + endOfStream + "}";
    }
}
