package io.rivulet.bench.floors;

import io.rivulet.bench.harness.Payloads;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * The busy-polling floor's connection: a non-blocking {@link SocketChannel} with direct buffers, read and
 * written in a spin loop by one thread. Frames as in {@link Frames}.
 *
 * <p>Not thread-safe: one polling thread.
 */
final class SpinChannel
{
    /** Receives one frame; the payload is {@code length} bytes at {@code offset} of {@code buffer}. */
    interface Handler
    {
        void onFrame(ByteBuffer buffer, int offset, int length) throws IOException;
    }

    private static final int BUFFER_LENGTH = 1024 * 1024;

    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer out = ByteBuffer.allocateDirect(BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);

    SpinChannel(final SocketChannel channel) throws IOException
    {
        this.channel = channel;
        channel.configureBlocking(false);
        channel.socket().setTcpNoDelay(true);
    }

    /** Appends a frame, first writing out what is queued when there is no room (spinning). */
    void queue(final byte[] payload, final int length) throws IOException
    {
        while (out.remaining() < Frames.LENGTH_FIELD + length)
        {
            writeSome();
        }
        out.putInt(length).put(payload, 0, length);
    }

    /** Appends a frame copied from a received buffer (the echo). */
    void queue(final ByteBuffer source, final int offset, final int length) throws IOException
    {
        while (out.remaining() < Frames.LENGTH_FIELD + length)
        {
            writeSome();
        }
        out.putInt(length).put(out.position(), source, offset, length);
        out.position(out.position() + length);
    }

    /** @return true when nothing queued is left to write. */
    boolean writeSome() throws IOException
    {
        if (out.position() == 0)
        {
            return true;
        }
        out.flip();
        channel.write(out);
        out.compact();
        return out.position() == 0;
    }

    void flush() throws IOException
    {
        while (!writeSome())
        {
            Thread.onSpinWait();
        }
    }

    /** Reads what the socket has and hands each whole frame to the handler. @return frames handled. */
    int poll(final Handler handler) throws IOException
    {
        final int read = channel.read(in);
        if (read < 0)
        {
            throw new EOFException("peer closed the connection");
        }
        if (in.position() < Frames.LENGTH_FIELD)
        {
            return 0;
        }
        in.flip();
        int frames = 0;
        while (in.remaining() >= Frames.LENGTH_FIELD)
        {
            final int position = in.position();
            final int length = in.getInt(position);
            if (length < Payloads.MIN_SIZE || length > Frames.MAX_PAYLOAD)
            {
                throw new IOException("bad frame length " + length);
            }
            if (in.remaining() < Frames.LENGTH_FIELD + length)
            {
                break;
            }
            handler.onFrame(in, position + Frames.LENGTH_FIELD, length);
            in.position(position + Frames.LENGTH_FIELD + length);
            frames++;
        }
        in.compact();
        return frames;
    }

    static int kind(final ByteBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + Payloads.KIND_OFFSET);
    }

    static int seq(final ByteBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + Payloads.SEQ_OFFSET);
    }

    static long value(final ByteBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + Payloads.VALUE_OFFSET);
    }

    void close() throws IOException
    {
        channel.close();
    }
}
