package io.rivulet.security;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The back-off table on its own, with the clock passed in: growth, reset, the bound on sources. */
class AuthenticationBackoffTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long START_NS = TimeUnit.HOURS.toNanos(1);

    private final AuthenticationBackoff backoff = new AuthenticationBackoff(1, 100 * MS, 30_000 * MS, 60_000 * MS, 8);

    @Test
    void shouldLetTheFirstFailureGoFreeThenDoubleUpToTheLongestWindow()
    {
        assertThat(backoff.windowNs(1)).isZero();
        assertThat(backoff.windowNs(2)).isEqualTo(100 * MS);
        assertThat(backoff.windowNs(3)).isEqualTo(200 * MS);
        assertThat(backoff.windowNs(4)).isEqualTo(400 * MS);
        assertThat(backoff.windowNs(10)).isEqualTo(25_600 * MS);
        assertThat(backoff.windowNs(11)).isEqualTo(30_000 * MS);
        assertThat(backoff.windowNs(Integer.MAX_VALUE)).as("no overflow").isEqualTo(30_000 * MS);
    }

    @Test
    void shouldRefuseASourceUntilItsWindowEnds()
    {
        long now = START_NS;
        assertThat(backoff.onFailure("a", now)).isZero();
        assertThat(backoff.retryAfterNs("a", now)).isZero();
        assertThat(backoff.onFailure("a", now)).isEqualTo(100 * MS);
        assertThat(backoff.retryAfterNs("a", now + 40 * MS)).isEqualTo(60 * MS);
        assertThat(backoff.retryAfterNs("b", now + 40 * MS)).as("another source").isZero();
        now += 100 * MS;
        assertThat(backoff.retryAfterNs("a", now)).isZero();
        assertThat(backoff.onFailure("a", now)).isEqualTo(200 * MS);
        assertThat(backoff.retryAfterNs("a", now + 199 * MS)).isEqualTo(MS);
    }

    @Test
    void shouldStartAfreshAfterASuccess()
    {
        backoff.onFailure("a", START_NS);
        backoff.onFailure("a", START_NS);
        backoff.onSuccess("a");
        assertThat(backoff.retryAfterNs("a", START_NS)).isZero();
        assertThat(backoff.size()).isZero();
        assertThat(backoff.onFailure("a", START_NS)).as("free again").isZero();
    }

    @Test
    void shouldStartAfreshAfterAQuietPeriodButNotBefore()
    {
        for (int i = 0; i < 12; i++)
        {
            backoff.onFailure("a", START_NS);
        }
        assertThat(backoff.retryAfterNs("a", START_NS)).isEqualTo(30_000 * MS);
        // Past the window but within the quiet period, the run of failures goes on.
        assertThat(backoff.onFailure("a", START_NS + 59_999 * MS)).isEqualTo(30_000 * MS);
        final long quietAgain = START_NS + 59_999 * MS + 60_000 * MS;
        assertThat(backoff.retryAfterNs("a", quietAgain)).isZero();
        assertThat(backoff.size()).as("forgotten").isZero();
        assertThat(backoff.onFailure("a", quietAgain)).isZero();
    }

    @Test
    void shouldRememberAtMostItsBoundEvictingTheSourceThatFailedLongestAgo()
    {
        for (int i = 0; i < 8; i++)
        {
            backoff.onFailure("s" + i, START_NS + i * MS);
            backoff.onFailure("s" + i, START_NS + i * MS);
        }
        backoff.onFailure("s0", START_NS + 10 * MS); // s0 failed again: now s1 failed longest ago
        for (int i = 100; i < 100_000; i++)
        {
            backoff.onFailure("spray" + i, START_NS + 20 * MS);
            assertThat(backoff.size()).isLessThanOrEqualTo(8);
        }
        assertThat(backoff.evictions()).isEqualTo(100_000 - 100);
        assertThat(backoff.retryAfterNs("spray99999", START_NS + 20 * MS)).as("the newest is kept").isZero();
    }

    @Test
    void shouldEvictTheOldestWhenFullKeepingTheRest()
    {
        for (int i = 0; i < 8; i++)
        {
            backoff.onFailure("s" + i, START_NS + i * MS);
            backoff.onFailure("s" + i, START_NS + i * MS);
        }
        backoff.onFailure("s0", START_NS + 10 * MS);
        backoff.onFailure("new", START_NS + 11 * MS);
        assertThat(backoff.size()).isEqualTo(8);
        assertThat(backoff.evictions()).isEqualTo(1);
        assertThat(backoff.retryAfterNs("s1", START_NS + 11 * MS)).as("s1 failed longest ago: evicted").isZero();
        assertThat(backoff.retryAfterNs("s0", START_NS + 11 * MS)).as("s0 kept").isPositive();
        assertThat(backoff.retryAfterNs("s2", START_NS + 11 * MS)).as("s2 kept").isPositive();
    }

    @Test
    void shouldDropQuietSourcesBeforeEvictingAnyone()
    {
        for (int i = 0; i < 4; i++)
        {
            backoff.onFailure("old" + i, START_NS);
        }
        final long later = START_NS + 60_000 * MS;
        for (int i = 0; i < 8; i++)
        {
            backoff.onFailure("new" + i, later);
        }
        assertThat(backoff.size()).isEqualTo(8);
        assertThat(backoff.evictions()).as("the quiet ones made room").isZero();
    }

    @Test
    void shouldRefuseSettingsThatWouldDefeatIt()
    {
        assertThatThrownBy(() -> new AuthenticationBackoff(1, 100 * MS, 30_000 * MS, 30_000 * MS, 8))
            .as("a quiet period no longer than the longest window").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AuthenticationBackoff(1, 0, 30_000 * MS, 60_000 * MS, 8))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AuthenticationBackoff(1, 100 * MS, 30_000 * MS, 60_000 * MS, 0))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
