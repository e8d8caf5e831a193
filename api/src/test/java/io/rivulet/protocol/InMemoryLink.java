package io.rivulet.protocol;

import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.LinkClosedException;
import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One end of an in-memory pair of {@link ReliableLink}s: {@link #offer} copies the frame into the
 * peer's inbox, the peer's {@link #poll} delivers it. Everything sent is also recorded, decoded, for
 * assertions. {@link #blocked(boolean)} makes offers fail (a full send buffer); {@link #inject(byte[])}
 * puts a raw frame into this end's inbox as if the peer had sent it.
 *
 * <p>Test support; single-threaded like the engine that drives it.
 */
final class InMemoryLink implements ReliableLink
{
    private final String localAddress;
    private final String remoteAddress;
    private final ArrayDeque<byte[]> inbox = new ArrayDeque<>();
    private final List<SentFrame> sent = new ArrayList<>();
    private InMemoryLink peer;
    private boolean blocked;
    private boolean closed;
    private int refusedOffers;

    private InMemoryLink(final String localAddress, final String remoteAddress)
    {
        this.localAddress = localAddress;
        this.remoteAddress = remoteAddress;
    }

    /** @return a connected pair: [0] the client's end, [1] the server's end. */
    static InMemoryLink[] pair()
    {
        final InMemoryLink client = new InMemoryLink("client:1", "server:2");
        final InMemoryLink server = new InMemoryLink("server:2", "client:1");
        client.peer = server;
        server.peer = client;
        return new InMemoryLink[]{ client, server };
    }

    @Override
    public boolean offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closed)
        {
            return true; // discarded, like bytes queued on a closed socket
        }
        if (blocked)
        {
            refusedOffers++;
            return false;
        }
        final byte[] frame = new byte[length];
        buffer.getBytes(offset, frame);
        sent.add(SentFrame.decode(frame));
        if (!peer.closed)
        {
            peer.inbox.add(frame);
        }
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
    public int poll(final FrameHandler handler, final int frameLimit) throws IOException
    {
        if (closed)
        {
            throw new IOException("link " + localAddress + " is closed");
        }
        int frames = 0;
        byte[] frame;
        while (frames < frameLimit && (frame = inbox.poll()) != null)
        {
            handler.onFrame(new UnsafeBuffer(frame), 0, frame.length);
            frames++;
            if (closed)
            {
                return frames;
            }
        }
        if (frames == 0 && peer.closed)
        {
            throw new LinkClosedException("peer " + remoteAddress + " closed the link");
        }
        return frames;
    }

    @Override
    public String remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public String localAddress()
    {
        return localAddress;
    }

    @Override
    public void close()
    {
        closed = true;
    }

    boolean isClosed()
    {
        return closed;
    }

    /** While blocked, offers fail as if the send buffer were full. */
    void blocked(final boolean blocked)
    {
        this.blocked = blocked;
    }

    int refusedOffers()
    {
        return refusedOffers;
    }

    /** Delivers a raw frame to this end, as if the peer had sent it. */
    void inject(final byte[] frame)
    {
        inbox.add(frame.clone());
    }

    /** @return frames this end sent, oldest first. */
    List<SentFrame> sent()
    {
        return sent;
    }

    /** @return frames waiting to be polled by this end. */
    int pending()
    {
        return inbox.size();
    }
}
