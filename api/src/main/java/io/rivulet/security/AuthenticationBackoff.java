package io.rivulet.security;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Failed authentications per source (a {@link RemoteHost} key) and the back-off they earn. The first
 * {@code freeFailures} in a row cost nothing; each one after opens a window, {@code initialNs} doubling per
 * failure up to {@code maxNs}, during which that source is refused without being checked. A success forgets the
 * source, and so does a {@code quietNs} without failures (longer than the longest window, or waiting out the
 * quiet period would be a way round the windows).
 *
 * <p>The table holds at most {@code maxSources} sources, in the order of their last failure: entries quiet for
 * {@code quietNs} are dropped from its head as it is used, and when it is full the source that failed longest ago
 * is evicted (it loses its back-off). A spray of source addresses therefore costs a fixed amount of memory; it can
 * push out another source's back-off, but a sprayer already has a fresh address for every guess.
 *
 * <p>Not thread-safe: one node's conductor thread uses it (the authenticator runs there, once per SETUP).
 */
final class AuthenticationBackoff
{
    private final int freeFailures;
    private final long initialNs;
    private final long maxNs;
    private final long quietNs;
    private final int maxSources;
    /** Access order off: an entry is re-inserted on each failure, so the head failed longest ago. */
    private final LinkedHashMap<String, Source> sources = new LinkedHashMap<>();
    private long evictions;

    /** One source's run of failures. */
    private static final class Source
    {
        int failures;
        long lastFailureNs;
        long blockedUntilNs;
    }

    /**
     * @param freeFailures failures in a row that open no window (at least 0).
     * @param initialNs    the first window (positive).
     * @param maxNs        the longest window (at least {@code initialNs}).
     * @param quietNs      a source with no failure for this long starts afresh (above {@code maxNs}).
     * @param maxSources   the most sources remembered (positive).
     */
    AuthenticationBackoff(
        final int freeFailures, final long initialNs, final long maxNs, final long quietNs, final int maxSources)
    {
        if (freeFailures < 0 || initialNs <= 0 || maxNs < initialNs || quietNs <= maxNs || maxSources <= 0)
        {
            throw new IllegalArgumentException("invalid back-off: " + freeFailures + " free failures, " + initialNs +
                " ns doubling to " + maxNs + " ns, quiet " + quietNs + " ns, " + maxSources + " sources");
        }
        this.freeFailures = freeFailures;
        this.initialNs = initialNs;
        this.maxNs = maxNs;
        this.quietNs = quietNs;
        this.maxSources = maxSources;
    }

    /**
     * @param source a {@link RemoteHost} key.
     * @param nowNs  the clock.
     * @return how long the source must still wait before it may try again; 0 when it may try now.
     */
    long retryAfterNs(final String source, final long nowNs)
    {
        forgetQuiet(nowNs);
        final Source entry = sources.get(source);
        return entry == null ? 0 : Math.max(0, entry.blockedUntilNs - nowNs);
    }

    /**
     * Records a failed authentication.
     *
     * @return the window it opened (the source is refused for that long), or 0 for a free failure.
     */
    long onFailure(final String source, final long nowNs)
    {
        forgetQuiet(nowNs);
        Source entry = sources.remove(source); // re-inserted below: the table's order is that of last failures
        if (entry == null)
        {
            if (sources.size() >= maxSources)
            {
                final Iterator<Source> eldest = sources.values().iterator();
                eldest.next();
                eldest.remove();
                evictions++;
            }
            entry = new Source();
        }
        entry.failures++;
        entry.lastFailureNs = nowNs;
        final long windowNs = windowNs(entry.failures);
        entry.blockedUntilNs = nowNs + windowNs;
        sources.put(source, entry);
        return windowNs;
    }

    /** Records a successful authentication: the source starts afresh. */
    void onSuccess(final String source)
    {
        sources.remove(source);
    }

    /** @return the window after this many failures in a row. */
    long windowNs(final int failures)
    {
        final int doublings = failures - freeFailures - 1;
        if (doublings < 0)
        {
            return 0;
        }
        long window = initialNs;
        for (int i = 0; i < doublings && window < maxNs; i++)
        {
            window <<= 1;
        }
        return Math.min(window, maxNs);
    }

    /** @return sources remembered now. */
    int size()
    {
        return sources.size();
    }

    /** @return sources pushed out of a full table so far. */
    long evictions()
    {
        return evictions;
    }

    /** Drops the sources at the head that have been quiet long enough; amortised O(1) per call. */
    private void forgetQuiet(final long nowNs)
    {
        final Iterator<Map.Entry<String, Source>> head = sources.entrySet().iterator();
        while (head.hasNext())
        {
            if (nowNs - head.next().getValue().lastFailureNs < quietNs)
            {
                return;
            }
            head.remove();
        }
    }
}
