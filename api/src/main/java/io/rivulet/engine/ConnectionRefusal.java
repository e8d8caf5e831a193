package io.rivulet.engine;

import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.ReliableLink;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;

/**
 * A link the node will not serve (it holds {@code maxConnections} already): it gets one ERROR
 * (REJECTED_SETUP) naming the limit, then the conductor waits a bounded time for the peer to close before
 * closing it, because closing with the peer's SETUP unread would reset the connection and the reset can
 * discard the ERROR before the peer reads it. No connection state, ring or sender slot is created for it.
 *
 * <p>Conductor thread only; the sender never sees the link, so the conductor may write to it.
 */
final class ConnectionRefusal
{
    private static final FrameHandler DISCARD = (buffer, offset, length) -> { };

    private final ReliableLink link;
    private final long deadlineNs;

    /**
     * Writes the ERROR frame at once.
     *
     * @param link       the accepted link to refuse.
     * @param reason     sent to the peer.
     * @param deadlineNs when to close the link even if the peer has not closed it.
     */
    ConnectionRefusal(final ReliableLink link, final String reason, final long deadlineNs)
    {
        this.link = link;
        this.deadlineNs = deadlineNs;
        final byte[] text = FrameWriter.utf8(reason, 512);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameWriter.errorLength(text.length)]);
        final int length = new FrameWriter().writeError(frame, 0, 0, ErrorCode.REJECTED_SETUP, text);
        try
        {
            if (link.offer(frame, 0, length))
            {
                link.flush();
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            // The peer gone already: the next progress closes the link.
        }
    }

    /**
     * @return true once the link is closed: the peer closed its side, the link failed, or time ran out.
     */
    boolean progress(final long nowNs)
    {
        try
        {
            if (!link.isFlushed())
            {
                link.flush();
            }
            link.poll(DISCARD, 16);
            if (nowNs - deadlineNs < 0)
            {
                return false;
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            // End of stream or a reset: either way the peer is done with it.
        }
        link.close();
        return true;
    }

    /** Closes the link now (node shutting down). */
    void close()
    {
        link.close();
    }
}
