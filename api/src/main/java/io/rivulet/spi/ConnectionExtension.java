package io.rivulet.spi;

import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;

/**
 * One optional protocol layer of a connection (fan-out topics, remote regions, topic data as datagrams): the
 * part of a {@link NodeExtension} that lives as long as one connection. The connection hands it the frames of the
 * types its node extension claimed, drives it in the connection's duty cycle and closes it with the connection.
 *
 * <p>Conductor thread only. Frames are hostile input: a frame that breaks the layer's rules is reported through
 * {@link ConnectionServices#violation}, never thrown.
 */
public interface ConnectionExtension
{
    /**
     * A frame of one of the claimed types arrived on the link (after SETUP).
     *
     * @param frame the decoded frame, valid during the call only.
     * @param nowNs the conductor's clock.
     */
    void onFrame(FrameReader frame, long nowNs);

    /**
     * The SETUP exchange is done on this end (a client sent SETUP; a server accepted it): the layer may now send
     * its opening frames, which then follow SETUP on the link.
     */
    default void onSetupComplete()
    {
    }

    /**
     * One duty cycle while the connection is open.
     *
     * @return work done.
     */
    int doWork(long nowNs);

    /**
     * Whether this layer holds state on this connection that its peer uses without sending frames (a region the peer
     * looked up and reads one-sided), so that the server does not close the connection as idle
     * ({@code rivulet.idleTimeout}). Frames the peer sends keep the connection active by themselves.
     *
     * @return true while the connection must stay; false by default.
     */
    default boolean keepsConnection()
    {
        return false;
    }

    /**
     * The connection is closing: fail what is in flight with the cause and stop. Called once.
     */
    void onClose(RivuletException cause);
}
