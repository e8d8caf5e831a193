package io.rivulet.spi;

import org.agrona.DirectBuffer;

import java.io.IOException;

/**
 * An ordered, reliable, frame-delimited link to one peer: a TCP connection or an RC queue pair.
 *
 * <p>Frames are opaque to the link: it delimits them on the wire and enforces
 * {@link TransportSettings#maxFrameLength()} on receive; the engine validates their contents.
 * Frames are 1 to {@code maxFrameLength} bytes.
 *
 * <p>Threading: the engine's sender agent calls {@link #offer}, {@link #offerRun}, {@link #flush()} and
 * {@link #isFlushed()}; the conductor calls {@link #poll}, {@link #close()} and the address accessors. In
 * DEDICATED mode these are two threads, so keep send-side and receive-side state apart. The conductor closes a
 * link only after the sender has released it. No method blocks.
 */
public interface ReliableLink extends AutoCloseable, FrameOutlet
{
    /**
     * Queues one whole frame for sending (copied into the link's send buffer).
     *
     * @param buffer holding the frame.
     * @param offset of the frame.
     * @param length of the frame, at most {@link TransportSettings#maxFrameLength()}.
     * @return false when the send buffer has no room now: back-pressure, try again after {@link #flush()}.
     */
    @Override
    boolean offer(DirectBuffer buffer, int offset, int length);

    /**
     * Writes queued bytes to the network as far as it accepts them.
     *
     * @return bytes written (0 when nothing was pending or the network is full).
     * @throws IOException when the link broke.
     */
    int flush() throws IOException;

    /** @return true when no queued bytes wait to be written. */
    boolean isFlushed();

    /**
     * Reads what the network has and hands each complete frame to the handler. The frame's bytes
     * are valid only during the call.
     *
     * @param handler    receives frames.
     * @param frameLimit the most frames to deliver in this call.
     * @return frames delivered.
     * @throws IOException when the link broke or the peer closed it ({@link LinkClosedException}),
     *                     or a frame's length is out of bounds ({@link FramingException}).
     */
    int poll(FrameHandler handler, int frameLimit) throws IOException;

    /**
     * Asked after every {@link #poll}: whether it left this link with something only {@link #flush()} sends, so that
     * the sender must look at it even when nothing was offered. An RDMA link answers true after any receive
     * completion, frames or none: a receive re-posted is a credit owed to the peer, and credits granted by the peer
     * may let it return those it owes. The default (true once frames were delivered) is safe for a transport that
     * does not say; a link whose send side changes only through {@link #offer} and {@link #flush()}, as a socket's,
     * answers false.
     *
     * @param framesDelivered what that poll returned.
     * @return whether the sender must visit the link after that poll.
     */
    default boolean needsFlushAfterPoll(final int framesDelivered)
    {
        return framesDelivered > 0;
    }

    /** @return the peer as {@code host:port}. */
    String remoteAddress();

    /** @return this end as {@code host:port}. */
    String localAddress();

    /**
     * @return the verified identity of the peer (the subject of its TLS certificate), or null when the
     *         link does not authenticate its peer. Conductor thread.
     */
    default String peerPrincipal()
    {
        return null;
    }

    /** Closes the link at once; queued bytes are discarded. Idempotent. */
    @Override
    void close();
}
