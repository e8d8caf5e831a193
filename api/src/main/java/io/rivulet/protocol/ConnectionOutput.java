package io.rivulet.protocol;

import io.rivulet.spi.ReliableLink;
import org.agrona.DirectBuffer;

import java.io.IOException;

/**
 * A connection as the sender agent sees it: the ring to drain, the link to drain it to, what to do now, and
 * where to report. The sender knows nothing else of the protocol.
 *
 * <p>Threading: every method is called on the sender's thread; the connection publishes {@link #sendMode()}
 * through a volatile field.
 */
public interface ConnectionOutput
{
    /** @return the link frames go to. */
    ReliableLink link();

    /** @return the ring frames come from. */
    Outbound outbound();

    /** @return what the sender should do with this connection now. */
    SendMode sendMode();

    /** Frames the sender wrote to the link in one pass, for the connection's counters. */
    void onFramesSent(int frames, long bytes, int messages);

    /**
     * @return whether the sender should pass each frame it writes to {@link #logFrameSent} (the frame logger was at
     * DEBUG when the connection was created); asked once per pass over the connection.
     */
    default boolean logsFrames()
    {
        return false;
    }

    /** A frame the sender just wrote to the link, in order, for the frame logger; only when {@link #logsFrames()}. */
    default void logFrameSent(final DirectBuffer buffer, final int offset, final int length)
    {
    }

    /** Writing to the link failed; the conductor loses the connection. */
    void onSendFailed(IOException failure);

    /** The sender no longer touches this connection's link. */
    void onSenderReleased();
}
