package io.rivulet.spi;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Where frames go out: one at a time, or a run of them laid end to end, each after its length. A run is the
 * TCP link's wire format and the layout of a topic's log, so a link that frames the same way takes a whole run
 * in one copy where one frame at a time would cost a call chain and a copy per frame.
 *
 * <p>The default {@link #offerRun} hands the run's frames to {@link #offer} one by one; links and paths that can
 * do better override it.
 */
public interface FrameOutlet
{
    /** Bytes of the length before each frame of a run. */
    int RUN_PREFIX_LENGTH = Integer.BYTES;
    /** Byte order of the length before each frame of a run (the TCP link's). */
    ByteOrder RUN_PREFIX_ORDER = ByteOrder.LITTLE_ENDIAN;

    /**
     * Hands one whole frame on.
     *
     * @param buffer holding the frame.
     * @param offset of the frame.
     * @param length of the frame.
     * @return false when there is no room now: try again later.
     */
    boolean offer(DirectBuffer buffer, int offset, int length);

    /**
     * Hands on a run of frames, in order, as far as there is room: each frame is preceded by its length
     * ({@link #RUN_PREFIX_LENGTH} bytes, {@link #RUN_PREFIX_ORDER}). The caller vouches for the run: it comes from
     * the caller's own memory, every length is positive and within what {@link #offer} accepts, and the last frame
     * ends at {@code offset + length}.
     *
     * @param buffer holding the run.
     * @param offset of the first frame's length.
     * @param length of the run in bytes, lengths included.
     * @return bytes of the run taken: whole frames from its start, 0 when there is no room for the first.
     */
    default int offerRun(final DirectBuffer buffer, final int offset, final int length)
    {
        int taken = 0;
        while (taken < length)
        {
            final int frameLength = buffer.getInt(offset + taken, RUN_PREFIX_ORDER);
            if (!offer(buffer, offset + taken + RUN_PREFIX_LENGTH, frameLength))
            {
                break;
            }
            taken += RUN_PREFIX_LENGTH + frameLength;
        }
        return taken;
    }
}
