package io.rivulet.spi;

import io.rivulet.tck.FrameRuns;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FrameOutletTest
{
    /** Takes frames until it holds {@code room} of them; keeps their first byte. */
    private static final class Outlet implements FrameOutlet
    {
        final List<Integer> frames = new ArrayList<>();
        final List<Integer> lengths = new ArrayList<>();
        int room;

        Outlet(final int room)
        {
            this.room = room;
        }

        @Override
        public boolean offer(final DirectBuffer buffer, final int offset, final int length)
        {
            if (room == 0)
            {
                return false;
            }
            room--;
            frames.add((int)buffer.getByte(offset));
            lengths.add(length);
            return true;
        }
    }

    /** Frames of 1, 2, 3, ... bytes, each filled with its number, as a run. */
    private static UnsafeBuffer run(final int frames)
    {
        final List<byte[]> run = new ArrayList<>();
        for (int frame = 1; frame <= frames; frame++)
        {
            final byte[] bytes = new byte[frame];
            Arrays.fill(bytes, (byte)frame);
            run.add(bytes);
        }
        return FrameRuns.of(run);
    }

    @Test
    void shouldOfferEveryFrameOfARunInOrder()
    {
        final Outlet outlet = new Outlet(10);
        final UnsafeBuffer run = run(5);

        assertThat(outlet.offerRun(run, 0, run.capacity())).isEqualTo(run.capacity());
        assertThat(outlet.frames).containsExactly(1, 2, 3, 4, 5);
        assertThat(outlet.lengths).containsExactly(1, 2, 3, 4, 5);
    }

    @Test
    void shouldStopAtTheFirstFrameRefusedAndCountOnlyWholeFramesTaken()
    {
        final Outlet outlet = new Outlet(3);
        final UnsafeBuffer run = run(5);

        final int taken = outlet.offerRun(run, 0, run.capacity());

        assertThat(taken).isEqualTo(3 * FrameOutlet.RUN_PREFIX_LENGTH + 1 + 2 + 3);
        assertThat(outlet.frames).containsExactly(1, 2, 3);
        outlet.room = 10;
        assertThat(outlet.offerRun(run, taken, run.capacity() - taken)).isEqualTo(run.capacity() - taken);
        assertThat(outlet.frames).containsExactly(1, 2, 3, 4, 5);
    }

    @Test
    void shouldTakeNothingWhenTheFirstFrameIsRefused()
    {
        final Outlet outlet = new Outlet(0);
        final UnsafeBuffer run = run(2);

        assertThat(outlet.offerRun(run, 0, run.capacity())).isZero();
        assertThat(outlet.frames).isEmpty();
    }
}
