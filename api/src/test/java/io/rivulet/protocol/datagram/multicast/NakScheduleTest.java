package io.rivulet.protocol.datagram.multicast;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class NakScheduleTest
{
    private static final long DELAY_NS = 50_000;
    private static final long RETRY_NS = 2_000_000;
    private static final long RETRY_MAX_NS = 16_000_000;

    private final List<long[]> sent = new ArrayList<>();
    private final NakSchedule.NakSender sender = (position, length) -> sent.add(new long[]{position, length});

    private static NakSchedule schedule(final long backoffNs)
    {
        return new NakSchedule(4, DELAY_NS, RETRY_NS, RETRY_MAX_NS, new FeedbackDelay(backoffNs, 16,
            new SplittableRandom(1)));
    }

    @Test
    void shouldNakAGapAfterTheReorderDelayThenRetryDoubling()
    {
        final NakSchedule naks = schedule(0);
        naks.update(new long[]{100}, new long[]{200}, 1, 0);
        assertThat(naks.sendDue(DELAY_NS - 1, 1 << 20, sender)).isZero();
        assertThat(naks.sendDue(DELAY_NS, 1 << 20, sender)).isEqualTo(1);
        assertThat(sent.get(0)).containsExactly(100, 100);
        assertThat(naks.sendDue(DELAY_NS + RETRY_NS - 1, 1 << 20, sender)).isZero();
        assertThat(naks.sendDue(DELAY_NS + RETRY_NS, 1 << 20, sender)).isEqualTo(1);
        assertThat(naks.sendDue(DELAY_NS + 3 * RETRY_NS - 1, 1 << 20, sender)).isZero();
        assertThat(naks.sendDue(DELAY_NS + 3 * RETRY_NS, 1 << 20, sender)).isEqualTo(1);
    }

    @Test
    void shouldCountAGapThatFilledBeforeItsNakAsSuppressed()
    {
        final NakSchedule naks = schedule(0);
        naks.update(new long[]{100}, new long[]{200}, 1, 0);
        naks.update(new long[0], new long[0], 0, 10); // a repair for someone else's NAK filled it
        assertThat(naks.suppressed()).isEqualTo(1);
        assertThat(naks.sendDue(DELAY_NS, 1 << 20, sender)).isZero();
    }

    @Test
    void shouldKeepTheTimerOfAGapThatSplitOrShrank()
    {
        final NakSchedule naks = schedule(0);
        naks.update(new long[]{100}, new long[]{200}, 1, 0);
        naks.update(new long[]{100, 150}, new long[]{120, 200}, 2, DELAY_NS / 2); // a datagram landed inside
        assertThat(naks.suppressed()).isZero();
        assertThat(naks.sendDue(DELAY_NS, 1 << 20, sender)).isEqualTo(2); // both halves, on the original deadline
        assertThat(sent.get(0)).containsExactly(100, 20);
        assertThat(sent.get(1)).containsExactly(150, 50);
    }

    @Test
    void shouldRetryAtTheRoundTripItMeasuredOnceARepairArrived()
    {
        final NakSchedule naks = schedule(0);
        naks.update(new long[]{100}, new long[]{200}, 1, 0);
        naks.sendDue(DELAY_NS, 1 << 20, sender);
        naks.update(new long[0], new long[0], 0, DELAY_NS + 30_000); // filled 30 us after the NAK
        assertThat(naks.repairRttNs()).isEqualTo(30_000);
        naks.update(new long[]{500}, new long[]{600}, 1, 1_000_000);
        naks.sendDue(1_000_000 + DELAY_NS, 1 << 20, sender);
        sent.clear();
        assertThat(naks.sendDue(1_000_000 + DELAY_NS + 60_000 - 1, 1 << 20, sender)).isZero();
        assertThat(naks.sendDue(1_000_000 + DELAY_NS + 60_000, 1 << 20, sender)).isEqualTo(1);
    }

    @Test
    void shouldCutALongGapIntoNaksOfTheLongestLength()
    {
        final NakSchedule naks = schedule(0);
        naks.update(new long[]{0}, new long[]{10_000}, 1, 0);
        naks.sendDue(DELAY_NS, 4096, sender);
        assertThat(sent.get(0)).containsExactly(0, 4096);
    }

    @Test
    void shouldDrawBackOffsWithinTheMaximumMostlyLate()
    {
        final FeedbackDelay delay = new FeedbackDelay(1_000_000, 16, new SplittableRandom(2));
        int early = 0;
        for (int i = 0; i < 10_000; i++)
        {
            final long draw = delay.nextNs();
            assertThat(draw).isBetween(0L, 1_000_000L);
            if (draw < 250_000)
            {
                early++;
            }
        }
        // The truncated exponential for 16 receivers: P(t < T/4) = (e^(λ/4) - 1) / (e^λ - 1), about 4 %.
        assertThat(early).isBetween(200, 700);
    }
}
