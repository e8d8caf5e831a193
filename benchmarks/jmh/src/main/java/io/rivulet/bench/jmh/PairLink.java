package io.rivulet.bench.jmh;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.FrameOutlet;
import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * One end of an in-memory pair of links, for benchmarks that run both ends of a connection on one thread:
 * {@link #offer} appends the frame to the peer's inbox (a direct buffer, as the TCP link's receive buffer), the
 * peer's {@link #poll} hands each frame to its handler and empties the inbox. The inbox holds frames after their
 * lengths, as a run and TCP's wire do, so {@link #offerRun} copies a run whole, as the TCP link does (unless
 * {@link #runsFrameByFrame}). No allocation, no locks: single-threaded like the engine that drives it.
 */
final class PairLink implements ReliableLink
{
    private static final int INBOX_LENGTH = 4 * 1024 * 1024;

    private final UnsafeBuffer inbox = new UnsafeBuffer(ByteBuffer.allocateDirect(INBOX_LENGTH));
    private final String name;
    private int inboxLength;
    private PairLink peer;
    /** When set, {@link #offerRun} offers a run's frames one by one (the default of {@link FrameOutlet}). */
    boolean runsFrameByFrame;

    private PairLink(final String name)
    {
        this.name = name;
    }

    /** @return a connected pair: [0] the client's end, [1] the server's end. */
    static PairLink[] pair()
    {
        final PairLink client = new PairLink("client");
        final PairLink server = new PairLink("server");
        client.peer = server;
        server.peer = client;
        return new PairLink[]{client, server};
    }

    @Override
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        final PairLink to = peer;
        if (to.inboxLength + 4 + length > INBOX_LENGTH)
        {
            return false;
        }
        to.inbox.putInt(to.inboxLength, length, RUN_PREFIX_ORDER);
        to.inbox.putBytes(to.inboxLength + 4, buffer, offset, length);
        to.inboxLength += 4 + length;
        return true;
    }

    @Override
    public int offerRun(final DirectBuffer buffer, final int offset, final int length)
    {
        final PairLink to = peer;
        if (runsFrameByFrame || to.inboxLength + length > INBOX_LENGTH)
        {
            return ReliableLink.super.offerRun(buffer, offset, length);
        }
        to.inbox.putBytes(to.inboxLength, buffer, offset, length);
        to.inboxLength += length;
        return length;
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
        int frames = 0;
        int position = 0;
        while (position < inboxLength)
        {
            final int length = inbox.getInt(position, RUN_PREFIX_ORDER);
            handler.onFrame(inbox, position + 4, length);
            position += 4 + length;
            frames++;
        }
        inboxLength = 0;
        return frames;
    }

    @Override
    public String remoteAddress()
    {
        return "pair:" + peer.name;
    }

    @Override
    public String localAddress()
    {
        return "pair:" + name;
    }

    @Override
    public void close()
    {
    }
}
