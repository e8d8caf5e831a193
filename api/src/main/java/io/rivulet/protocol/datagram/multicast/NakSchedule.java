package io.rivulet.protocol.datagram.multicast;

/**
 * When a receiver NAKs each gap of its stream. A gap seen for the first time is NAKed after the reorder delay plus a
 * random back-off ({@link FeedbackDelay}); a gap still open after its NAK is asked again after a retry interval that
 * doubles up to a cap. The first retry interval follows the round trip this receiver sees between a NAK and the bytes
 * that fill its gap (twice its smoothed value, at most {@code nakRetry}), so heavy loss on a fast fabric is repaired at
 * the fabric's pace rather than the setting's. Gaps only shrink or split as bytes arrive, so each new gap inherits the timer of the gap it
 * came from; one that closed before its first NAK counts as <b>suppressed</b> (another receiver's NAK, answered to the
 * whole group, or a reordered datagram, filled it). At most {@code maxGaps} gaps are scheduled at once, the first
 * ones of the stream; later ones wait their turn. Not thread-safe; allocation-free.
 */
final class NakSchedule
{
    /** Receives a NAK that is due. */
    @FunctionalInterface
    interface NakSender
    {
        /** @return false when it could not be sent now (it is tried again next cycle). */
        boolean sendNak(long position, long length);
    }

    private final long nakDelayNs;
    private final long retryNs;
    private final long retryMaxNs;
    private final FeedbackDelay backoff;
    private long[] starts;
    private long[] ends;
    private long[] deadlines;
    private long[] retries;
    private long[] sentAtNs;
    private boolean[] sent;
    private long[] nextStarts;
    private long[] nextEnds;
    private long[] nextDeadlines;
    private long[] nextRetries;
    private long[] nextSentAtNs;
    private boolean[] nextSent;
    private long repairRttNs;
    private int count;
    private long suppressed;
    private long naksSent;

    NakSchedule(
        final int maxGaps, final long nakDelayNs, final long retryNs, final long retryMaxNs, final FeedbackDelay backoff)
    {
        this.nakDelayNs = nakDelayNs;
        this.retryNs = retryNs;
        this.retryMaxNs = retryMaxNs;
        this.backoff = backoff;
        starts = new long[maxGaps];
        ends = new long[maxGaps];
        deadlines = new long[maxGaps];
        retries = new long[maxGaps];
        sentAtNs = new long[maxGaps];
        sent = new boolean[maxGaps];
        nextStarts = new long[maxGaps];
        nextEnds = new long[maxGaps];
        nextDeadlines = new long[maxGaps];
        nextRetries = new long[maxGaps];
        nextSentAtNs = new long[maxGaps];
        nextSent = new boolean[maxGaps];
    }

    /** @return the most gaps scheduled at once. */
    int capacity()
    {
        return starts.length;
    }

    /** Forgets every gap (the stream restarted elsewhere). */
    void clear()
    {
        count = 0;
    }

    /**
     * Brings the schedule up to date with the stream's gaps now.
     *
     * @param gapStarts sorted, disjoint gaps (as {@link ReceivedRanges#gaps} lists them).
     * @param gapEnds   their ends.
     * @param gaps      how many.
     */
    void update(final long[] gapStarts, final long[] gapEnds, final int gaps, final long nowNs)
    {
        int old = 0;
        int next = 0;
        for (int g = 0; g < gaps && next < nextStarts.length; g++)
        {
            final long start = gapStarts[g];
            final long end = gapEnds[g];
            // Old gaps wholly before this one are gone (filled), unless a later new gap still overlaps them.
            while (old < count && ends[old] <= start)
            {
                retire(old, g > 0 && overlaps(old, gapStarts[g - 1], gapEnds[g - 1]), nowNs);
                old++;
            }
            if (old < count && starts[old] < end)
            {
                // Part of an old gap: it keeps that gap's timer (split gaps share it).
                nextStarts[next] = start;
                nextEnds[next] = end;
                nextDeadlines[next] = deadlines[old];
                nextRetries[next] = retries[old];
                nextSentAtNs[next] = sentAtNs[old];
                nextSent[next] = sent[old];
            }
            else
            {
                nextStarts[next] = start;
                nextEnds[next] = end;
                nextDeadlines[next] = nowNs + nakDelayNs + backoff.nextNs();
                nextRetries[next] = firstRetryNs();
                nextSentAtNs[next] = 0;
                nextSent[next] = false;
            }
            next++;
        }
        final boolean full = next == nextStarts.length; // gaps beyond the schedule may still be open: not counted
        while (old < count)
        {
            retire(old, full || (next > 0 && overlaps(old, nextStarts[next - 1], nextEnds[next - 1])), nowNs);
            old++;
        }
        swap();
        count = next;
    }

    /**
     * Sends the NAKs that are due.
     *
     * @param maxLength the longest NAK (a larger gap is asked in pieces, first things first).
     * @return NAKs sent.
     */
    int sendDue(final long nowNs, final long maxLength, final NakSender sender)
    {
        int work = 0;
        for (int i = 0; i < count; i++)
        {
            if (nowNs - deadlines[i] < 0)
            {
                continue;
            }
            final long length = Math.min(ends[i] - starts[i], maxLength);
            if (!sender.sendNak(starts[i], length))
            {
                break; // no room: the rest next cycle
            }
            sent[i] = true;
            sentAtNs[i] = nowNs;
            deadlines[i] = nowNs + retries[i];
            retries[i] = Math.min(retries[i] * 2, retryMaxNs);
            naksSent++;
            work++;
        }
        return work;
    }

    /** @return gaps that closed before their first NAK. */
    long suppressed()
    {
        return suppressed;
    }

    /** @return NAKs sent, first ones and retries. */
    long naksSent()
    {
        return naksSent;
    }

    /** @return gaps scheduled now. */
    int count()
    {
        return count;
    }

    private void retire(final int old, final boolean stillCovered, final long nowNs)
    {
        if (stillCovered)
        {
            return;
        }
        if (!sent[old])
        {
            suppressed++;
            return;
        }
        // Filled after our NAK: a sample of the round trip to the publisher and back.
        final long sample = nowNs - sentAtNs[old];
        repairRttNs = repairRttNs == 0 ? sample : repairRttNs + (sample - repairRttNs) / 8;
    }

    /** @return the wait before a gap's first retry: twice the repair round trip seen, within (0, nakRetry]. */
    private long firstRetryNs()
    {
        return repairRttNs == 0 ? retryNs : Math.max(1_000, Math.min(retryNs, 2 * repairRttNs));
    }

    /** @return the smoothed time from a NAK to the bytes that fill its gap, 0 before a sample. */
    long repairRttNs()
    {
        return repairRttNs;
    }

    private boolean overlaps(final int old, final long start, final long end)
    {
        return starts[old] < end && start < ends[old];
    }

    private void swap()
    {
        long[] t = starts;
        starts = nextStarts;
        nextStarts = t;
        t = ends;
        ends = nextEnds;
        nextEnds = t;
        t = deadlines;
        deadlines = nextDeadlines;
        nextDeadlines = t;
        t = retries;
        retries = nextRetries;
        nextRetries = t;
        t = sentAtNs;
        sentAtNs = nextSentAtNs;
        nextSentAtNs = t;
        final boolean[] s = sent;
        sent = nextSent;
        nextSent = s;
    }
}
