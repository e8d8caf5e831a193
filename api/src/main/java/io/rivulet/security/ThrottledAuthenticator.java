package io.rivulet.security;

import io.rivulet.ConfigurationException;
import io.rivulet.spi.PropertyValues;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;

/**
 * Slows down token guessing: wraps the node's {@link Authenticator} and, per source address, refuses further SETUPs
 * for a while after failed authentications, without calling the wrapped authenticator. A node makes one around
 * the authenticator of its context by itself ({@code Rivulet} calls {@link #around}); applications do not build it.
 *
 * <pre>
 *   failures in a row from one address   1     2       3       4       ...   10 and more
 *   that address is then refused for     -     100 ms  200 ms  400 ms  ...   30 s
 * </pre>
 *
 * <p>A refused SETUP gets ERROR (REJECTED_SETUP) "too many failed authentications from &lt;address&gt;; retry after
 * N ms", so the client's {@code connect} fails with a {@link io.rivulet.RejectedException} that says when to come
 * back; the failure that opens a window says so too. A successful authentication from the address, or 60 s (twice the
 * longest window) without a failure, starts it afresh. The address is the IPv4 address or the IPv6 /64 prefix, never
 * the port ({@link RemoteHost}); at most 4,096 addresses are remembered, the one that failed longest ago making room
 * ({@link AuthenticationBackoff}). An authenticator that throws something other than
 * {@link AuthenticationException} is broken, not refusing: it is not counted against the peer.
 *
 * <p>System properties, read when the node starts: {@value #INITIAL_PROPERTY} (the first window, default 100ms;
 * 0 turns the back-off off), {@value #MAX_PROPERTY} (the longest window, default 30s) and {@value #SOURCES_PROPERTY}
 * (addresses remembered, default 4096).
 *
 * <p>Not thread-safe, by design: it runs where the authenticator runs, on one node's conductor thread, once per
 * SETUP, so its table needs no lock. Each node gets its own.
 */
public final class ThrottledAuthenticator implements Authenticator
{
    /** The first window, a duration such as {@code 100ms}; 0 turns the back-off off. */
    public static final String INITIAL_PROPERTY = "rivulet.authBackoff";
    /** The longest window, a duration such as {@code 30s}. */
    public static final String MAX_PROPERTY = "rivulet.authBackoffMax";
    /** How many source addresses are remembered. */
    public static final String SOURCES_PROPERTY = "rivulet.authBackoffAddresses";

    /** Failures in a row that open no window: one mistyped token costs nothing. */
    public static final int FREE_FAILURES = 1;
    /** Default first window. */
    public static final long DEFAULT_INITIAL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Default longest window. */
    public static final long DEFAULT_MAX_NS = TimeUnit.SECONDS.toNanos(30);
    /** Default bound on the addresses remembered. */
    public static final int DEFAULT_SOURCES = 4096;

    private static final long MAX_WINDOW_NS = TimeUnit.DAYS.toNanos(1);

    private final Authenticator delegate;
    private final AuthenticationBackoff backoff;
    private final NanoClock clock;

    ThrottledAuthenticator(final Authenticator delegate, final AuthenticationBackoff backoff, final NanoClock clock)
    {
        this.delegate = delegate;
        this.backoff = backoff;
        this.clock = clock;
    }

    /**
     * Wraps a node's authenticator with the back-off configured by the system properties.
     *
     * @param authenticator the context's authenticator, or null (no authentication).
     * @param clock         the node's clock.
     * @return a new throttled authenticator for one node; the authenticator itself when the back-off is off; null
     *         for null.
     * @throws ConfigurationException when a property is invalid; the message names it.
     */
    public static Authenticator around(final Authenticator authenticator, final NanoClock clock)
    {
        if (authenticator == null)
        {
            return null;
        }
        final Authenticator delegate = authenticator instanceof ThrottledAuthenticator throttled ?
            throttled.delegate : authenticator; // one table per node, never shared between conductors
        final long initialNs = duration(INITIAL_PROPERTY, DEFAULT_INITIAL_NS);
        if (initialNs == 0)
        {
            return delegate;
        }
        final long maxNs = duration(MAX_PROPERTY, Math.max(DEFAULT_MAX_NS, initialNs));
        final int sources = size(SOURCES_PROPERTY, DEFAULT_SOURCES);
        if (initialNs < 0 || maxNs < initialNs || maxNs > MAX_WINDOW_NS || sources <= 0)
        {
            throw new ConfigurationException(INITIAL_PROPERTY + ", " + MAX_PROPERTY + ", " + SOURCES_PROPERTY +
                ": the first window must be 0 or positive, the longest at least the first and at most a day, and the " +
                "addresses positive (got " + initialNs + " ns, " + maxNs + " ns, " + sources + ")");
        }
        return new ThrottledAuthenticator(delegate,
            new AuthenticationBackoff(FREE_FAILURES, initialNs, maxNs, 2 * maxNs, sources), clock);
    }

    @Override
    public void authenticate(final Credentials credentials)
    {
        final long nowNs = clock.nanoTime();
        final String source = RemoteHost.key(credentials.remoteAddress());
        final long retryAfterNs = backoff.retryAfterNs(source, nowNs);
        if (retryAfterNs > 0)
        {
            throw new AuthenticationException("too many failed authentications from " + source + "; retry after " +
                millisRoundedUp(retryAfterNs) + " ms");
        }
        try
        {
            delegate.authenticate(credentials);
        }
        catch (final AuthenticationException ex)
        {
            final long windowNs = backoff.onFailure(source, nowNs);
            if (windowNs > 0)
            {
                throw new AuthenticationException(ex.getMessage() + "; further attempts from " + source +
                    " are refused for " + millisRoundedUp(windowNs) + " ms", ex);
            }
            throw ex;
        }
        backoff.onSuccess(source);
    }

    @Override
    public String principal(final Credentials credentials)
    {
        return delegate.principal(credentials);
    }

    @Override
    public String toString()
    {
        return "ThrottledAuthenticator{" + delegate + ", " + backoff.size() + " address(es) remembered}";
    }

    private static long millisRoundedUp(final long nanos)
    {
        return (nanos + TimeUnit.MILLISECONDS.toNanos(1) - 1) / TimeUnit.MILLISECONDS.toNanos(1);
    }

    private static long duration(final String property, final long defaultNs)
    {
        return PropertyValues.durationNs(property, defaultNs);
    }

    private static int size(final String property, final int defaultValue)
    {
        return PropertyValues.size(property, defaultValue);
    }
}
