package io.rivulet.security;

import io.rivulet.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The throttle in front of an application's authenticator, with an injected clock: what a guessing peer is told,
 * that refused attempts never reach the application's authenticator, and who is not affected.
 */
class ThrottledAuthenticatorTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private long nowNs = TimeUnit.HOURS.toNanos(5);
    private int calls;
    private final Authenticator tokens = Authenticator.tokens("s3cret");
    private final Authenticator counting = credentials ->
    {
        calls++;
        tokens.authenticate(credentials);
    };
    private final ThrottledAuthenticator throttled = new ThrottledAuthenticator(counting,
        new AuthenticationBackoff(1, 100 * MS, 30_000 * MS, 60_000 * MS, 4096), () -> nowNs);

    @AfterEach
    void clearProperties()
    {
        System.clearProperty(ThrottledAuthenticator.INITIAL_PROPERTY);
        System.clearProperty(ThrottledAuthenticator.MAX_PROPERTY);
        System.clearProperty(ThrottledAuthenticator.SOURCES_PROPERTY);
    }

    private static Credentials from(final String remoteAddress, final String token)
    {
        return new Credentials(token.getBytes(StandardCharsets.UTF_8), null, remoteAddress);
    }

    @Test
    void shouldRefuseFurtherAttemptsWithoutAskingTheApplicationAndSayWhenToRetry()
    {
        assertThatThrownBy(() -> throttled.authenticate(from("10.0.0.1:40000", "guess")))
            .isInstanceOf(AuthenticationException.class).hasMessage("authentication failed: token not accepted");
        assertThatThrownBy(() -> throttled.authenticate(from("10.0.0.1:40001", "guess")))
            .hasMessage("authentication failed: token not accepted; further attempts from 10.0.0.1 are refused for " +
                "100 ms");
        assertThat(calls).isEqualTo(2);

        nowNs += 40 * MS;
        for (int i = 0; i < 100; i++)
        {
            // Another port, the right token even: the address waits out its window first.
            assertThatThrownBy(() -> throttled.authenticate(from("10.0.0.1:40002", "s3cret")))
                .isInstanceOf(AuthenticationException.class)
                .hasMessage("too many failed authentications from 10.0.0.1; retry after 60 ms");
        }
        assertThat(calls).as("the application's authenticator was not called").isEqualTo(2);

        throttled.authenticate(from("10.0.0.2:40000", "s3cret"));
        assertThat(calls).as("another address is not affected").isEqualTo(3);
    }

    @Test
    void shouldGrowTheWindowWithEachFailureInARow()
    {
        throttled.authenticate(from("10.0.0.1:1", "s3cret"));
        long expectedMs = 100;
        for (int failure = 1; failure <= 14; failure++)
        {
            final int attempt = failure;
            final String message = catchMessage(() -> throttled.authenticate(from("10.0.0.1:" + attempt, "guess")));
            if (failure == 1)
            {
                assertThat(message).doesNotContain("refused for");
                continue;
            }
            assertThat(message).endsWith("refused for " + expectedMs + " ms");
            nowNs += expectedMs * MS - 1;
            assertThat(catchMessage(() -> throttled.authenticate(from("10.0.0.1:9", "guess"))))
                .as("a nanosecond before the window ends").endsWith("retry after 1 ms");
            nowNs += 1;
            expectedMs = Math.min(expectedMs * 2, 30_000);
        }
        assertThat(expectedMs).isEqualTo(30_000);
        assertThat(calls).as("only the attempts outside a window were checked").isEqualTo(15);
    }

    @Test
    void shouldStartAfreshAfterASuccess()
    {
        catchMessage(() -> throttled.authenticate(from("10.0.0.1:1", "guess")));
        catchMessage(() -> throttled.authenticate(from("10.0.0.1:2", "guess")));
        nowNs += 100 * MS;
        throttled.authenticate(from("10.0.0.1:3", "s3cret"));
        assertThat(catchMessage(() -> throttled.authenticate(from("10.0.0.1:4", "guess"))))
            .as("the first failure after a success is free again").doesNotContain("refused");
    }

    @Test
    void shouldStartAfreshAfterAQuietPeriod()
    {
        for (int i = 0; i < 3; i++)
        {
            catchMessage(() -> throttled.authenticate(from("10.0.0.1:1", "guess")));
            nowNs += 1_000 * MS;
        }
        nowNs += 60_000 * MS;
        assertThat(catchMessage(() -> throttled.authenticate(from("10.0.0.1:4", "guess")))).doesNotContain("refused");
    }

    @Test
    void shouldCountIpv6NeighboursInOneSlash64()
    {
        catchMessage(() -> throttled.authenticate(from("[2001:db8:0:1:0:0:0:10]:5000", "guess")));
        catchMessage(() -> throttled.authenticate(from("[2001:db8:0:1:0:0:0:11]:5001", "guess")));
        assertThat(catchMessage(() -> throttled.authenticate(from("[2001:db8:0:1:abcd:0:0:12]:5002", "s3cret"))))
            .isEqualTo("too many failed authentications from 2001:db8:0:1::/64; retry after 100 ms");
        throttled.authenticate(from("[2001:db8:0:2:0:0:0:10]:5000", "s3cret")); // the next /64
        assertThat(calls).isEqualTo(3);
    }

    @Test
    void shouldNotCountABrokenAuthenticatorAgainstThePeer()
    {
        final ThrottledAuthenticator broken = new ThrottledAuthenticator(credentials ->
        {
            throw new IllegalStateException("database down");
        }, new AuthenticationBackoff(0, 100 * MS, 30_000 * MS, 60_000 * MS, 16), () -> nowNs);
        for (int i = 0; i < 3; i++)
        {
            assertThatThrownBy(() -> broken.authenticate(from("10.0.0.1:1", "s3cret")))
                .isInstanceOf(IllegalStateException.class).hasMessage("database down");
        }
    }

    @Test
    void shouldWrapEachNodesAuthenticatorInItsOwnThrottle()
    {
        assertThat(ThrottledAuthenticator.around(null, () -> nowNs)).isNull();
        final Authenticator first = ThrottledAuthenticator.around(counting, () -> nowNs);
        assertThat(first).isInstanceOf(ThrottledAuthenticator.class);
        final Authenticator second = ThrottledAuthenticator.around(first, () -> nowNs);
        assertThat(second).as("a fresh table, never one shared between nodes").isInstanceOf(ThrottledAuthenticator.class)
            .isNotSameAs(first);

        catchMessage(() -> first.authenticate(from("10.0.0.1:1", "guess")));
        catchMessage(() -> first.authenticate(from("10.0.0.1:1", "guess")));
        second.authenticate(from("10.0.0.1:1", "s3cret"));
        assertThat(calls).as("the second wraps the application's authenticator, not the first throttle").isEqualTo(3);
    }

    @Test
    void shouldReadItsSettingsFromProperties()
    {
        System.setProperty(ThrottledAuthenticator.INITIAL_PROPERTY, "1s");
        System.setProperty(ThrottledAuthenticator.MAX_PROPERTY, "4s");
        final Authenticator configured = ThrottledAuthenticator.around(counting, () -> nowNs);
        for (int i = 0; i < 3; i++)
        {
            catchMessage(() -> configured.authenticate(from("10.0.0.1:1", "guess")));
            nowNs += 5_000 * MS; // past each window (at most 4 s), within the quiet period (8 s)
        }
        assertThat(catchMessage(() -> configured.authenticate(from("10.0.0.1:1", "guess")))).endsWith("refused for 4000 ms");

        System.setProperty(ThrottledAuthenticator.INITIAL_PROPERTY, "0");
        assertThat(ThrottledAuthenticator.around(counting, () -> nowNs)).as("off").isSameAs(counting);

        System.setProperty(ThrottledAuthenticator.INITIAL_PROPERTY, "soon");
        assertThatThrownBy(() -> ThrottledAuthenticator.around(counting, () -> nowNs))
            .isInstanceOf(ConfigurationException.class).hasMessageContaining(ThrottledAuthenticator.INITIAL_PROPERTY);
        System.setProperty(ThrottledAuthenticator.INITIAL_PROPERTY, "10s");
        System.setProperty(ThrottledAuthenticator.MAX_PROPERTY, "1s");
        assertThatThrownBy(() -> ThrottledAuthenticator.around(counting, () -> nowNs))
            .isInstanceOf(ConfigurationException.class).hasMessageContaining(ThrottledAuthenticator.MAX_PROPERTY);
    }

    private static String catchMessage(final Runnable attempt)
    {
        try
        {
            attempt.run();
        }
        catch (final AuthenticationException ex)
        {
            return ex.getMessage();
        }
        throw new AssertionError("expected a refusal");
    }
}
