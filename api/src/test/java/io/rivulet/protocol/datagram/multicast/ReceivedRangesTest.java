package io.rivulet.protocol.datagram.multicast;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class ReceivedRangesTest
{
    @Test
    void shouldMoveTheRebuildPositionWhenAGapFills()
    {
        final ReceivedRanges ranges = new ReceivedRanges(8);
        ranges.reset(100);
        assertThat(ranges.add(150, 200)).isTrue();
        assertThat(ranges.add(300, 400)).isTrue();
        assertThat(ranges.rebuild()).isEqualTo(100);
        assertThat(ranges.count()).isEqualTo(2);

        ranges.add(100, 150);
        assertThat(ranges.rebuild()).isEqualTo(200);
        assertThat(ranges.count()).isEqualTo(1);
        ranges.add(200, 300);
        assertThat(ranges.rebuild()).isEqualTo(400);
        assertThat(ranges.count()).isZero();
    }

    @Test
    void shouldListTheGapsUpToTheHighestPositionSeen()
    {
        final ReceivedRanges ranges = new ReceivedRanges(8);
        ranges.reset(0);
        ranges.add(10, 20);
        ranges.add(30, 40);
        final long[] starts = new long[8];
        final long[] ends = new long[8];
        assertThat(ranges.gaps(50, starts, ends)).isEqualTo(3);
        assertThat(starts).startsWith(0, 20, 40);
        assertThat(ends).startsWith(10, 30, 50);
        assertThat(ranges.gaps(40, starts, ends)).isEqualTo(2); // nothing known beyond the last range
    }

    @Test
    void shouldMergeOverlappingAndDuplicateBytes()
    {
        final ReceivedRanges ranges = new ReceivedRanges(8);
        ranges.reset(0);
        ranges.add(10, 20);
        ranges.add(30, 40);
        ranges.add(15, 35); // bridges both
        assertThat(ranges.count()).isEqualTo(1);
        assertThat(ranges.start(0)).isEqualTo(10);
        assertThat(ranges.end(0)).isEqualTo(40);
        ranges.add(12, 18); // inside: nothing changes
        ranges.add(0, 5);   // below everything: moves the rebuild position only
        assertThat(ranges.rebuild()).isEqualTo(5);
        assertThat(ranges.count()).isEqualTo(1);
    }

    @Test
    void shouldRefuseANewRangeWhenEverySlotIsTakenAndMarkNothing()
    {
        final ReceivedRanges ranges = new ReceivedRanges(2);
        ranges.reset(0);
        ranges.add(10, 20);
        ranges.add(30, 40);
        assertThat(ranges.add(50, 60)).isFalse();
        assertThat(ranges.count()).isEqualTo(2);
        assertThat(ranges.add(20, 25)).isTrue(); // extends a range: no slot needed
        assertThat(ranges.add(0, 10)).isTrue();
        assertThat(ranges.rebuild()).isEqualTo(25);
    }

    @Test
    void shouldSkipToALossAndKeepWhatLiesBeyond()
    {
        final ReceivedRanges ranges = new ReceivedRanges(8);
        ranges.reset(0);
        ranges.add(10, 20);
        ranges.add(40, 50);
        ranges.skipTo(40);
        assertThat(ranges.rebuild()).isEqualTo(50);
        assertThat(ranges.count()).isZero();
    }

    @Test
    void shouldAgreeWithABitSetForRandomArrivals()
    {
        final SplittableRandom random = new SplittableRandom(9);
        for (int round = 0; round < 200; round++)
        {
            final ReceivedRanges ranges = new ReceivedRanges(16);
            final BitSet marked = new BitSet();
            ranges.reset(0);
            for (int i = 0; i < 300; i++)
            {
                final int from = random.nextInt(2000);
                final int to = from + 1 + random.nextInt(60);
                if (ranges.add(from, to))
                {
                    marked.set(from, to);
                }
                final long rebuild = ranges.rebuild();
                assertThat(marked.nextClearBit(0)).isEqualTo((int)rebuild);
                for (int r = 0; r < ranges.count(); r++)
                {
                    assertThat(ranges.start(r)).isGreaterThan(r == 0 ? rebuild : ranges.end(r - 1));
                    assertThat(marked.get((int)ranges.start(r), (int)ranges.end(r)).cardinality())
                        .isEqualTo((int)(ranges.end(r) - ranges.start(r)));
                    assertThat(marked.get((int)ranges.start(r) - 1)).isFalse();
                    assertThat(marked.get((int)ranges.end(r))).isFalse();
                }
            }
        }
    }
}
