package io.rivulet.tck;

import io.rivulet.spi.FrameOutlet;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

/** Runs of frames for {@link FrameOutlet#offerRun} tests: the frames laid end to end, each after its length. */
public final class FrameRuns
{
    private FrameRuns()
    {
    }

    /** @return the frames as one run. */
    public static UnsafeBuffer of(final List<byte[]> frames)
    {
        final List<Integer> ends = ends(frames);
        final UnsafeBuffer run = new UnsafeBuffer(new byte[ends.isEmpty() ? 0 : ends.get(ends.size() - 1)]);
        int offset = 0;
        for (final byte[] frame : frames)
        {
            run.putInt(offset, frame.length, FrameOutlet.RUN_PREFIX_ORDER);
            run.putBytes(offset + FrameOutlet.RUN_PREFIX_LENGTH, frame);
            offset += FrameOutlet.RUN_PREFIX_LENGTH + frame.length;
        }
        return run;
    }

    /** @return the offsets in the run of these frames where each frame ends: where a link may stop taking it. */
    public static List<Integer> ends(final List<byte[]> frames)
    {
        final List<Integer> ends = new ArrayList<>(frames.size());
        int offset = 0;
        for (final byte[] frame : frames)
        {
            offset += FrameOutlet.RUN_PREFIX_LENGTH + frame.length;
            ends.add(offset);
        }
        return ends;
    }
}
