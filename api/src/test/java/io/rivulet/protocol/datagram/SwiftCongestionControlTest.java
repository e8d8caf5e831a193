package io.rivulet.protocol.datagram;

import io.rivulet.spi.SwiftSettings;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Steps the Swift window with synthetic delays and an injected clock. */
class SwiftCongestionControlTest
{
    private static final long TARGET = 100_000;
    private static final long RTT = 50_000;
    private static final double EPSILON = 1e-9;

    private static SwiftSettings settings()
    {
        return new SwiftSettings()
            .targetDelayNs(TARGET)
            .additiveIncrement(1)
            .beta(0.8)
            .maxDecrease(0.5)
            .nakDecrease(0.5)
            .timeoutDecrease(0.3)
            .retransmitLimit(3)
            .minWindow(0.01)
            .maxWindow(64)
            .initialWindow(8);
    }

    @Test
    void increasesAdditivelyWhileDelayIsBelowTarget()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings());
        cc.onAck(1_000, TARGET - 1, RTT, 8);
        assertEquals(9, cc.window(), EPSILON, "ai * acked / cwnd = 8 / 8");
        cc.onAck(2_000, TARGET / 2, RTT, 3);
        assertEquals(9 + 3.0 / 9, cc.window(), EPSILON);
        cc.onAck(3_000, 0, RTT, 0);
        assertEquals(9 + 3.0 / 9, cc.window(), EPSILON, "an ACK that acknowledges nothing new adds nothing");
        assertEquals(0, cc.decreases());
    }

    @Test
    void aWindowOfOneWindowPerRttGrowsByAboutOnePerRtt()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings());
        long now = 0;
        for (int rtt = 0; rtt < 10; rtt++)
        {
            final int acks = (int)cc.window();
            final double before = cc.window();
            for (int i = 0; i < acks; i++)
            {
                cc.onAck(now, TARGET / 2, RTT, 1);
            }
            now += RTT;
            assertTrue(cc.window() - before > 0.8 && cc.window() - before < 1.01, "growth per RTT " + (cc.window() - before));
        }
    }

    @Test
    void belowOneDatagramTheIncreaseIsNotDividedByTheWindow()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings().initialWindow(0.25));
        cc.onAck(0, TARGET / 2, RTT, 1);
        assertEquals(1.25, cc.window(), EPSILON);
    }

    @Test
    void decreasesInProportionToTheExcessDelay()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings());
        final long delay = 2 * TARGET;
        cc.onAck(1_000, delay, RTT, 4);
        // 1 - beta * (delay - target) / delay = 1 - 0.8 * 0.5 = 0.6
        assertEquals(8 * 0.6, cc.window(), EPSILON);

        final SwiftCongestionControl slight = new SwiftCongestionControl(settings());
        slight.onAck(1_000, TARGET + TARGET / 4, RTT, 4);
        assertEquals(8 * (1 - 0.8 * 0.2), slight.window(), EPSILON, "a small excess, a small decrease");

        final SwiftCongestionControl atTarget = new SwiftCongestionControl(settings());
        atTarget.onAck(1_000, TARGET, RTT, 4);
        assertEquals(8, atTarget.window(), EPSILON, "at the target: no increase, a zero decrease");
    }

    @Test
    void theDelayDecreaseIsCapped()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings());
        cc.onAck(1_000, 100 * TARGET, RTT, 4);
        assertEquals(8 * 0.5, cc.window(), EPSILON, "min(0.8 * 0.99, maxDecrease 0.5)");
    }

    @Test
    void decreasesAtMostOncePerRtt()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings());
        long now = 1_000_000;
        cc.onAck(now, 3 * TARGET, RTT, 1);
        final double afterFirst = cc.window();
        assertTrue(afterFirst < 8);
        for (int i = 0; i < 10; i++)
        {
            now += RTT / 20;
            cc.onAck(now, 3 * TARGET, RTT, 1);
            cc.onNak(now, RTT);
        }
        assertEquals(afterFirst, cc.window(), EPSILON, "no second decrease within one RTT");
        assertEquals(1, cc.decreases());
        now = 1_000_000 + RTT;
        cc.onAck(now, 3 * TARGET, RTT, 1);
        assertTrue(cc.window() < afterFirst, "one RTT later it decreases again");
        assertEquals(2, cc.decreases());
    }

    @Test
    void aNakDecreasesMoreThanASmallDelayExcessAndOnlyOncePerRtt()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings().initialWindow(32));
        cc.onNak(0, RTT);
        assertEquals(16, cc.window(), EPSILON);
        cc.onNak(RTT - 1, RTT);
        assertEquals(16, cc.window(), EPSILON);
        cc.onNak(RTT, RTT);
        assertEquals(8, cc.window(), EPSILON);
    }

    @Test
    void timeoutsDecreaseAndTheRetransmitLimitDropsToTheMinimum()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings().initialWindow(10));
        cc.onTimeout(0, 1);
        assertEquals(7, cc.window(), EPSILON, "1 - timeoutDecrease 0.3");
        cc.onTimeout(1, 2);
        assertEquals(4.9, cc.window(), EPSILON, "timeouts are not limited to one per RTT");
        cc.onTimeout(2, 3);
        assertEquals(0.01, cc.window(), EPSILON, "retransmitLimit reached: minWindow");
    }

    @Test
    void theWindowStaysWithinItsFloorAndCap()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings());
        long now = 0;
        for (int i = 0; i < 100; i++)
        {
            now += RTT;
            cc.onAck(now, 1000 * TARGET, RTT, 1);
            assertTrue(cc.window() >= 0.01 - EPSILON);
        }
        assertEquals(0.01, cc.window(), EPSILON, "floor");
        for (int i = 0; i < 100_000; i++)
        {
            cc.onAck(now, 0, RTT, 64);
            assertTrue(cc.window() <= 64 + EPSILON);
        }
        assertEquals(64, cc.window(), EPSILON, "cap");
    }

    @Test
    void belowOneDatagramItPacesOneDatagramPerRttOverWindow()
    {
        final SwiftCongestionControl cc = new SwiftCongestionControl(settings().initialWindow(0.25));
        final long start = 10_000_000;
        assertTrue(cc.canSend(0, start));
        cc.onSend(start, RTT);
        assertEquals(start + 4 * RTT, cc.nextSendTimeNs(), "rtt / cwnd = 4 RTTs");
        assertFalse(cc.canSend(0, start + 4 * RTT - 1));
        assertTrue(cc.canSend(0, start + 4 * RTT));

        final SwiftCongestionControl wide = new SwiftCongestionControl(settings().initialWindow(2.5));
        assertTrue(wide.canSend(2, start), "2 in flight < 2.5");
        assertFalse(wide.canSend(3, start));
        wide.onSend(start, RTT);
        assertTrue(wide.canSend(2, start), "no pacing at or above one datagram");
    }

    @Test
    void flowScalingRaisesTheTargetForSmallWindowsOnly()
    {
        final SwiftSettings scaled = settings().flowScalingRangeNs(50_000).initialWindow(0.1).minWindow(0.01);
        final SwiftCongestionControl small = new SwiftCongestionControl(scaled);
        assertEquals(TARGET + 50_000, small.targetDelayNs(), 1, "full range at a window of 0.1");
        final SwiftCongestionControl large = new SwiftCongestionControl(scaled.initialWindow(64).maxWindow(128));
        final SwiftCongestionControl larger = new SwiftCongestionControl(scaled.initialWindow(100).maxWindow(128));
        assertTrue(large.targetDelayNs() > TARGET && large.targetDelayNs() < TARGET + 5_000);
        assertEquals(TARGET, larger.targetDelayNs(), 1, "nothing at 100");
        assertEquals(TARGET, new SwiftCongestionControl(settings()).targetDelayNs(), "off by default");
    }

    @Test
    void settingsNameTheBadValue()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().beta(0).validate())
            .getMessage().contains("rivulet.ud.beta"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().maxDecrease(1).validate())
            .getMessage().contains("rivulet.ud.maxDecrease"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().minWindow(0).validate())
            .getMessage().contains("rivulet.ud.minWindow"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().maxWindow(0.5).validate())
            .getMessage().contains("rivulet.ud.maxWindow"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().initialWindow(65).validate())
            .getMessage().contains("rivulet.ud.initialWindow"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().targetDelayNs(0).validate())
            .getMessage().contains("rivulet.ud.targetDelay"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().nakDecrease(-0.1).validate())
            .getMessage().contains("rivulet.ud.nakDecrease"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings().retransmitLimit(0).validate())
            .getMessage().contains("rivulet.ud.retransmitLimit"));
        settings().validate();
        new SwiftSettings().validate();
    }
}
