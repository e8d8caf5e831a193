package io.rivulet.protocol.datagram;

/**
 * Smoothed round-trip time and retransmission timeout after RFC 6298: the first sample R sets
 * {@code SRTT = R, RTTVAR = R / 2}; later ones {@code RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|},
 * {@code SRTT = 7/8 SRTT + 1/8 R}; {@code RTO = SRTT + 4 RTTVAR} within [floor, cap], doubled per
 * consecutive timeout (back-off) up to the cap. Samples come from timestamps the receiver echoes, so a
 * retransmitted datagram's sample is as good as any (no Karn ambiguity).
 */
public final class RttEstimator
{
    private static final int MAX_BACKOFF_SHIFT = 16;

    private final long rtoMinNs;
    private final long rtoMaxNs;
    private long srttNs;
    private long rttVarNs;
    private long baseRtoNs;
    private long lastSampleNs;
    private int backoffShift;
    private boolean sampled;

    public RttEstimator(final long rtoInitialNs, final long rtoMinNs, final long rtoMaxNs)
    {
        this.rtoMinNs = rtoMinNs;
        this.rtoMaxNs = rtoMaxNs;
        this.baseRtoNs = rtoInitialNs;
    }

    /** Adds one RTT sample; clears the back-off. Non-positive samples are ignored. */
    public void onSample(final long rttNs)
    {
        if (rttNs <= 0)
        {
            return;
        }
        lastSampleNs = rttNs;
        if (!sampled)
        {
            srttNs = rttNs;
            rttVarNs = rttNs / 2;
            sampled = true;
        }
        else
        {
            rttVarNs = (3 * rttVarNs + Math.abs(srttNs - rttNs)) / 4;
            srttNs = (7 * srttNs + rttNs) / 8;
        }
        baseRtoNs = Math.max(rtoMinNs, Math.min(rtoMaxNs, srttNs + Math.max(1, 4 * rttVarNs)));
        backoffShift = 0;
    }

    /** The retransmission timer fired: doubles the timeout, up to the cap. */
    public void onTimeout()
    {
        if (backoffShift < MAX_BACKOFF_SHIFT)
        {
            backoffShift++;
        }
    }

    /** @return the retransmission timeout now, back-off included. */
    public long rtoNs()
    {
        final long rto = baseRtoNs << backoffShift;
        return rto < 0 || rto > rtoMaxNs ? rtoMaxNs : rto;
    }

    /** @return true once a sample arrived. */
    public boolean hasSample()
    {
        return sampled;
    }

    /** @return the smoothed RTT, or {@code fallbackNs} before the first sample. */
    public long srttNs(final long fallbackNs)
    {
        return sampled ? srttNs : fallbackNs;
    }

    /** @return the RTT variation (0 before the first sample). */
    public long rttVarNs()
    {
        return rttVarNs;
    }

    /** @return the latest sample (0 before the first). */
    public long lastSampleNs()
    {
        return lastSampleNs;
    }

    /** @return timeouts since the last sample. */
    public int backoffShift()
    {
        return backoffShift;
    }
}
