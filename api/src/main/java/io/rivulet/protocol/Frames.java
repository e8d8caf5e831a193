package io.rivulet.protocol;

import io.rivulet.codec.FrameWriter;

/** Per-thread frame writers: producers on any thread encode straight into the outbound ring. */
final class Frames
{
    /** Type id of ring records that hold one wire frame. */
    static final int FRAME_RECORD = 1;

    private static final ThreadLocal<FrameWriter> WRITERS = ThreadLocal.withInitial(FrameWriter::new);

    private Frames()
    {
    }

    static FrameWriter writer()
    {
        return WRITERS.get();
    }
}
