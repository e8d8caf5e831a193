package io.rivulet.protocol.datagram.multicast;

/**
 * What a receiver holds of a stream: every byte below the <b>rebuild</b> position, and a few disjoint ranges beyond
 * it that arrived ahead of a gap. Bytes may arrive in any order, twice, or overlapping: marking is idempotent, and a
 * range that reaches the rebuild position moves it. The gaps between are what the receiver NAKs.
 *
 * <pre>
 *   rebuild            [start0, end0)        [start1, end1)            highest
 *   ───────┤  gap  ├█████████████┤  gap  ├███████████████┤   gap   ├
 * </pre>
 *
 * At most {@code maxRanges} ranges are kept; a datagram that would need one more is refused (its bytes are asked for
 * again later), so the work per datagram is bounded and nothing grows. Not thread-safe; allocation-free.
 */
final class ReceivedRanges
{
    private final long[] starts;
    private final long[] ends;
    private int count;
    private long rebuild;

    ReceivedRanges(final int maxRanges)
    {
        starts = new long[maxRanges];
        ends = new long[maxRanges];
    }

    /** Forgets everything: the stream starts at {@code position}. */
    void reset(final long position)
    {
        rebuild = position;
        count = 0;
    }

    /** @return the position below which every byte arrived. */
    long rebuild()
    {
        return rebuild;
    }

    /** @return ranges held beyond the rebuild position. */
    int count()
    {
        return count;
    }

    long start(final int index)
    {
        return starts[index];
    }

    long end(final int index)
    {
        return ends[index];
    }

    /**
     * Marks {@code [from, to)} as arrived.
     *
     * @return false when it needed a new range and every range is in use: nothing was marked.
     */
    boolean add(final long from, final long to)
    {
        if (to <= rebuild || to <= from)
        {
            return true;
        }
        long start = Math.max(from, rebuild);
        long end = to;
        int first = 0;
        while (first < count && ends[first] < start)
        {
            first++;
        }
        int last = first;
        while (last < count && starts[last] <= end)
        {
            start = Math.min(start, starts[last]);
            end = Math.max(end, ends[last]);
            last++;
        }
        final int merged = last - first;
        if (merged == 0)
        {
            if (start > rebuild && count == starts.length)
            {
                return false;
            }
            if (start > rebuild)
            {
                System.arraycopy(starts, first, starts, first + 1, count - first);
                System.arraycopy(ends, first, ends, first + 1, count - first);
                starts[first] = start;
                ends[first] = end;
                count++;
                return true;
            }
            rebuild = end; // it continues the rebuild position and touches no range
            return true;
        }
        starts[first] = start;
        ends[first] = end;
        if (merged > 1)
        {
            System.arraycopy(starts, last, starts, first + 1, count - last);
            System.arraycopy(ends, last, ends, first + 1, count - last);
            count -= merged - 1;
        }
        if (first == 0 && starts[0] <= rebuild)
        {
            rebuild = ends[0];
            removeFirst();
        }
        return true;
    }

    /** The bytes below {@code position} will not come (or are no longer needed): the rebuild position jumps there. */
    void skipTo(final long position)
    {
        if (position <= rebuild)
        {
            return;
        }
        rebuild = position;
        while (count > 0 && ends[0] <= rebuild)
        {
            removeFirst();
        }
        if (count > 0 && starts[0] <= rebuild)
        {
            rebuild = ends[0];
            removeFirst();
        }
    }

    /**
     * Lists the gaps below {@code highest}, first to last.
     *
     * @return gaps written (at most the arrays' length).
     */
    int gaps(final long highest, final long[] gapStarts, final long[] gapEnds)
    {
        int gaps = 0;
        long from = rebuild;
        for (int i = 0; i < count && gaps < gapStarts.length; i++)
        {
            gapStarts[gaps] = from;
            gapEnds[gaps] = starts[i];
            gaps++;
            from = ends[i];
        }
        if (gaps < gapStarts.length && highest > from)
        {
            gapStarts[gaps] = from;
            gapEnds[gaps] = highest;
            gaps++;
        }
        return gaps;
    }

    private void removeFirst()
    {
        count--;
        System.arraycopy(starts, 1, starts, 0, count);
        System.arraycopy(ends, 1, ends, 0, count);
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("ReceivedRanges{rebuild=").append(rebuild);
        for (int i = 0; i < count; i++)
        {
            text.append(", [").append(starts[i]).append(", ").append(ends[i]).append(')');
        }
        return text.append('}').toString();
    }
}
