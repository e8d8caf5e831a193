package io.rivulet.bench.jmh;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A link that copies each frame into a send buffer, as the TCP link does, and then forgets it instead of
 * writing to a socket: the hand-off benchmarks measure Rivulet's own path, not the kernel's.
 */
final class DiscardLink implements ReliableLink
{
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));

    @Override
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        sendBuffer.putBytes(0, buffer, offset, length);
        return true;
    }

    @Override
    public int flush()
    {
        return 0;
    }

    @Override
    public boolean isFlushed()
    {
        return true;
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        return 0;
    }

    @Override
    public String remoteAddress()
    {
        return "discard:0";
    }

    @Override
    public String localAddress()
    {
        return "discard:0";
    }

    @Override
    public void close()
    {
    }
}
