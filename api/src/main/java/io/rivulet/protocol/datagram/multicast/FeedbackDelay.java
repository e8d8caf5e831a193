package io.rivulet.protocol.datagram.multicast;

import java.util.SplittableRandom;

/**
 * Random back-off for a receiver's first NAK of a gap, so that when every receiver of a group lost the same bytes,
 * about one of them asks and the repair to the group answers all (the others' timers find the gap filled and never
 * fire). Drawn from the truncated exponential distribution of RFC 5401 section 3 (Nonnenmacher and Biersack's
 * feedback suppression): with {@code λ = ln(groupSize) + 1} and {@code x} uniform in [0, 1),
 * {@code t = (T / λ) · ln(1 + x · (e^λ − 1))}, a density that rises towards {@code T}, so few receivers fire early.
 * Not thread-safe.
 */
final class FeedbackDelay
{
    private final long maxNs;
    private final double lambda;
    private final double scale;
    private final SplittableRandom random;

    /**
     * @param maxNs     the longest back-off, T; 0 for none.
     * @param groupSize the number of receivers the distribution is drawn for.
     * @param random    the receiver's own random source (seeded in tests).
     */
    FeedbackDelay(final long maxNs, final int groupSize, final SplittableRandom random)
    {
        this.maxNs = maxNs;
        this.lambda = Math.log(Math.max(1, groupSize)) + 1;
        this.scale = Math.expm1(lambda);
        this.random = random;
    }

    /** @return a back-off within [0, maxNs]. */
    long nextNs()
    {
        if (maxNs == 0)
        {
            return 0;
        }
        final double x = random.nextDouble();
        return Math.min(maxNs, (long)(maxNs / lambda * Math.log1p(x * scale)));
    }
}
