package io.rivulet.protocol;

import org.agrona.concurrent.NanoClock;

/**
 * When the replies of one poll of the link arrived, for the connection's round-trip histogram: the clock is read once
 * per poll, at the first reply that asks, instead of once per reply. Under load a poll hands over dozens of replies
 * read from the socket together, and a clock read for each cost about 22 ns of a pipelined request-response
 * ({@code RequestResponseBenchmark.offerRequestBatch}: 266 against 244 ns at 32 B, on a VM whose {@code clock_gettime}
 * runs in the vDSO). A later reply of the poll is timed when the first was handled: no earlier than the read that
 * brought it, except after frames the link had buffered from an earlier read, where it can be early by the time those
 * took to handle (a poll hands over at most its frame limit). Outside a poll every call reads the clock.
 *
 * <p>Conductor only.
 */
final class ArrivalClock
{
    private final NanoClock clock;
    private boolean polling;
    private boolean read;
    private long nowNs;

    /** @param clock read at most once per poll ({@code SystemNanoClock} outside tests). */
    ArrivalClock(final NanoClock clock)
    {
        this.clock = clock;
    }

    /** A poll of the link begins: its first reply reads the clock. */
    void pollStarted()
    {
        polling = true;
        read = false;
    }

    /** The poll returned: calls read the clock again. */
    void pollEnded()
    {
        polling = false;
        read = false;
    }

    /** @return the clock as the first caller of this poll read it, or now outside a poll. */
    long nanoTime()
    {
        if (!read)
        {
            nowNs = clock.nanoTime();
            read = polling;
        }
        return nowNs;
    }
}
