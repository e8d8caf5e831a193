package io.rivulet.transport.rdma.soft;

import org.agrona.MutableDirectBuffer;

import java.io.IOException;

/**
 * The reliable, ordered frame pipe under one soft RC connection: a TCP connection or an in-memory ring
 * pair. Owned by one NIC thread per end; frames are laid out as {@link Frames} describes.
 */
interface Wire
{
    /** Receives whole frames; the buffer is valid only during the call. */
    interface FrameHandler
    {
        void onFrame(MutableDirectBuffer buffer, int offset, int length);
    }

    /** @return the buffer that offsets from {@link #claim(int)} refer to. */
    MutableDirectBuffer buffer();

    /**
     * Reserves room for a frame of {@code length} bytes.
     *
     * @return the offset to write the frame at, or -1 when the wire is full (back-pressure: try later).
     */
    int claim(int length) throws IOException;

    /** Publishes the frame claimed at {@code offset}. */
    void commit(int offset);

    /**
     * Delivers received whole frames.
     *
     * @return how many frames were delivered.
     * @throws IOException when the peer sent something that is not a frame.
     */
    int poll(FrameHandler handler) throws IOException;

    /** @return true once the peer closed and every frame it sent was delivered. */
    boolean isEndOfStream();

    /**
     * Pushes committed frames towards the peer.
     *
     * @return true when nothing is left to push.
     */
    boolean flush() throws IOException;

    /** Closes this end; frames already committed still reach the peer when the medium allows. */
    void close();

    boolean isClosed();
}
