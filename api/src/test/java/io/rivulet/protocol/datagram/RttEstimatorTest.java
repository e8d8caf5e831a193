package io.rivulet.protocol.datagram;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RttEstimatorTest
{
    @Test
    void firstSampleSetsSrttAndHalfVariation()
    {
        final RttEstimator rtt = new RttEstimator(5_000_000, 100_000, 10_000_000);
        assertFalse(rtt.hasSample());
        assertEquals(5_000_000, rtt.rtoNs(), "initial RTO before any sample");
        assertEquals(777, rtt.srttNs(777), "fallback before any sample");
        rtt.onSample(200_000);
        assertTrue(rtt.hasSample());
        assertEquals(200_000, rtt.srttNs(0));
        assertEquals(100_000, rtt.rttVarNs());
        assertEquals(200_000 + 4 * 100_000, rtt.rtoNs());
    }

    @Test
    void laterSamplesFollowRfc6298()
    {
        final RttEstimator rtt = new RttEstimator(5_000_000, 1, 10_000_000);
        rtt.onSample(200_000);
        rtt.onSample(400_000);
        // RTTVAR = 3/4 * 100000 + 1/4 * |200000 - 400000| = 125000; SRTT = 7/8 * 200000 + 1/8 * 400000 = 225000
        assertEquals(125_000, rtt.rttVarNs());
        assertEquals(225_000, rtt.srttNs(0));
        assertEquals(225_000 + 500_000, rtt.rtoNs());
        rtt.onSample(0);
        rtt.onSample(-5);
        assertEquals(225_000, rtt.srttNs(0), "non-positive samples are ignored");
    }

    @Test
    void rtoRespectsFloorAndCap()
    {
        final RttEstimator floor = new RttEstimator(1_000_000, 250_000, 10_000_000);
        floor.onSample(10_000);
        assertEquals(250_000, floor.rtoNs());
        final RttEstimator cap = new RttEstimator(1_000_000, 250_000, 10_000_000);
        cap.onSample(9_000_000);
        assertEquals(10_000_000, cap.rtoNs());
    }

    @Test
    void timeoutsDoubleTheRtoUpToTheCapAndASampleResetsIt()
    {
        final RttEstimator rtt = new RttEstimator(1_000_000, 250_000, 4_000_000);
        rtt.onSample(100_000);
        assertEquals(300_000, rtt.rtoNs());
        rtt.onTimeout();
        assertEquals(600_000, rtt.rtoNs());
        rtt.onTimeout();
        assertEquals(1_200_000, rtt.rtoNs());
        for (int i = 0; i < 40; i++)
        {
            rtt.onTimeout();
        }
        assertEquals(4_000_000, rtt.rtoNs(), "capped, no overflow");
        rtt.onSample(100_000);
        assertEquals(0, rtt.backoffShift());
        assertTrue(rtt.rtoNs() < 600_000);
    }
}
