package io.rivulet.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One line per kind and cause per second, with the count of the lines held back; an injected clock. */
class RateLimitedLogTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private long nowNs = 7_000_000_000L;
    private final RateLimitedLog log = new RateLimitedLog(() -> nowNs, RateLimitedLog.DEFAULT_INTERVAL_NS);
    private final List<String> lines = new ArrayList<>();

    private boolean ended(final int connection, final Throwable cause)
    {
        return log.log(RateLimitedLog.key("connection ended", cause), lines::add,
            () -> "connection " + connection + " ended: " + cause);
    }

    @Test
    void shouldLogOneLinePerCausePerSecondAndCountTheRestInTheNextLine()
    {
        final IllegalStateException cause = new IllegalStateException("no SETUP");
        for (int i = 1; i <= 4_000; i++)
        {
            ended(i, cause);
            nowNs += MS / 4; // 4,000 in one second
        }
        assertThat(lines).containsExactly("connection 1 ended: java.lang.IllegalStateException: no SETUP");

        nowNs += MS;
        assertThat(ended(4_001, cause)).isTrue();

        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).isEqualTo("connection 4001 ended: java.lang.IllegalStateException: no SETUP " +
            "(and 3,999 more like it in the last 1 s)");
    }

    @Test
    void shouldKeepCausesAndKindsApart()
    {
        ended(1, new IllegalStateException("a"));
        ended(2, new IllegalArgumentException("b"));
        ended(3, new IllegalStateException("c"));
        log.log(RateLimitedLog.key("error", new IllegalStateException()), lines::add, () -> "error d");

        assertThat(lines).containsExactly("connection 1 ended: java.lang.IllegalStateException: a",
            "connection 2 ended: java.lang.IllegalArgumentException: b", "error d");
    }

    @Test
    void shouldNotBuildALineItHoldsBack()
    {
        final AtomicInteger built = new AtomicInteger();
        for (int i = 0; i < 100; i++)
        {
            log.log("key", lines::add, () -> "line " + built.incrementAndGet());
        }
        assertThat(built.get()).isOne();
        assertThat(lines).containsExactly("line 1");
    }

    @Test
    void shouldTellTheTailOfABurstOnFlushOnceItsIntervalPassed()
    {
        final RuntimeException cause = new RuntimeException("reset");
        for (int i = 1; i <= 3; i++)
        {
            ended(i, cause);
        }
        assertThat(log.flush()).as("flush inside the interval").isZero();

        nowNs += 1_500 * MS;
        assertThat(log.flush()).isOne();
        assertThat(log.flush()).as("told once").isZero();

        assertThat(lines).containsExactly("connection 1 ended: java.lang.RuntimeException: reset",
            "2 more like this in the last 1.5 s: connection 1 ended: java.lang.RuntimeException: reset");
        nowNs += 10 * MS;
        assertThat(ended(4, cause)).as("the flush line opened an interval").isFalse();
    }

    @Test
    void shouldBoundTheKeysItKeeps()
    {
        for (int i = 0; i < RateLimitedLog.MAX_KEYS + 100; i++)
        {
            log.log("key " + i, lines::add, () -> "line");
        }
        assertThat(lines).hasSize(RateLimitedLog.MAX_KEYS + 1); // the rest share one window
    }

    @Test
    void shouldCountFromManyThreads() throws InterruptedException
    {
        final List<String> shared = new CopyOnWriteArrayList<>();
        final Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++)
        {
            threads[t] = new Thread(() ->
            {
                for (int i = 0; i < 1_000; i++)
                {
                    log.log("key", shared::add, () -> "line");
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        nowNs += 2_000 * MS;
        log.log("key", shared::add, () -> "line");

        assertThat(shared).containsExactly("line", "line (and 3,999 more like it in the last 2 s)");
    }

    @Test
    void shouldRefuseAnIntervalThatIsNotPositive()
    {
        assertThatThrownBy(() -> new RateLimitedLog(() -> 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
