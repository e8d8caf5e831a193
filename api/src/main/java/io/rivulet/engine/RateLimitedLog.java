package io.rivulet.engine;

import org.agrona.concurrent.NanoClock;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Log lines about events a peer can cause in bulk — connections that end abnormally, refused or rejected
 * connections, errors with nowhere else to go — at most one line per key per interval, the key naming the kind of
 * event and its cause's class. The events held back are counted and told with the next line of the same key
 * ({@code "... (and 3,999 more like it in the last 1 s)"}), or by {@link #flush()} once the interval has passed.
 * 4,000 half-open sockets logged 8,096 lines before; now they log a few lines a second.
 *
 * <p>Only log lines are limited: whoever calls this still counts every event and still passes every error on.
 *
 * <p>Thread-safe: the error handler runs on any thread. Not for the hot path: each event takes a key and a line
 * supplier (small allocations), and a lock per key.
 */
public final class RateLimitedLog
{
    /** One line per key per second. */
    public static final long DEFAULT_INTERVAL_NS = 1_000_000_000L;
    /** Keys kept at most; events of further keys share one window, so a flood of new keys cannot grow the map. */
    static final int MAX_KEYS = 256;
    private static final Object OTHER = "other";

    private final NanoClock clock;
    private final long intervalNs;
    private final Map<Object, Window> windows = new ConcurrentHashMap<>();

    /**
     * @param clock      the clock of the intervals (the engine's; tests inject their own).
     * @param intervalNs at most one line per key per this long.
     */
    public RateLimitedLog(final NanoClock clock, final long intervalNs)
    {
        if (intervalNs <= 0)
        {
            throw new IllegalArgumentException("intervalNs must be positive: " + intervalNs);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.intervalNs = intervalNs;
    }

    /**
     * The key of an event: its kind and its cause's class.
     *
     * @param kind  what happened, e.g. "connection ended".
     * @param cause why.
     * @return a key for {@link #log}.
     */
    public static Object key(final String kind, final Throwable cause)
    {
        return new Key(kind, cause.getClass());
    }

    /**
     * Logs a line unless a line of the same key went out less than an interval ago; then counts the event instead.
     *
     * @param key  what makes two events alike, e.g. {@link #key(String, Throwable)}.
     * @param out  where the line goes, e.g. {@code LOG::info}.
     * @param line builds the line; called only when it goes out.
     * @return true when the line went out.
     */
    public boolean log(final Object key, final Consumer<String> out, final Supplier<String> line)
    {
        Window window = windows.get(key);
        if (window == null)
        {
            window = windows.size() < MAX_KEYS ? windows.computeIfAbsent(key, k -> new Window()) :
                windows.computeIfAbsent(OTHER, k -> new Window());
        }
        return window.onEvent(clock.nanoTime(), out, line);
    }

    /**
     * Writes one line for each key whose held-back events have not been told and whose interval has passed. Call it
     * now and then (the conductor does, on its heartbeat), so that the count of a burst's tail is not held until
     * the next event of its kind.
     *
     * @return lines written.
     */
    public int flush()
    {
        final long nowNs = clock.nanoTime();
        int lines = 0;
        for (final Window window : windows.values())
        {
            lines += window.flush(nowNs);
        }
        return lines;
    }

    /** The one line per interval of a key, and the events held back since it. */
    private final class Window
    {
        private boolean logged;
        private long lastLineNs;
        private long suppressed;
        private String lastLine;
        private Consumer<String> lastOut;

        synchronized boolean onEvent(final long nowNs, final Consumer<String> out, final Supplier<String> line)
        {
            if (logged && nowNs - lastLineNs < intervalNs)
            {
                suppressed++;
                return false;
            }
            final String text = line.get();
            out.accept(suppressed == 0 ? text : text + " (and " + more(nowNs) + ")");
            logged = true;
            lastLineNs = nowNs;
            suppressed = 0;
            lastLine = text;
            lastOut = out;
            return true;
        }

        synchronized int flush(final long nowNs)
        {
            if (suppressed == 0 || nowNs - lastLineNs < intervalNs)
            {
                return 0;
            }
            lastOut.accept(String.format(Locale.ROOT, "%,d more like this in the last %s: %s", suppressed,
                seconds(nowNs - lastLineNs), lastLine));
            lastLineNs = nowNs;
            suppressed = 0;
            return 1;
        }

        private String more(final long nowNs)
        {
            return String.format(Locale.ROOT, "%,d more like it in the last %s", suppressed, seconds(nowNs - lastLineNs));
        }
    }

    private static String seconds(final long ns)
    {
        final long tenths = Math.max(1, Math.round(ns / 100_000_000.0));
        return tenths % 10 == 0 ? tenths / 10 + " s" : String.format(Locale.ROOT, "%.1f s", tenths / 10.0);
    }

    private record Key(String kind, Class<?> type)
    {
    }
}
