package io.rivulet.tck;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Every timeout a test waits for, scaled by one factor: {@code -Drivulet.test.timeScale} (default 1). Under
 * emulation (the Soft-RoCE guest runs about 10-20 times slower than natively) the same suites run with a larger
 * factor instead of timeouts raised one by one; what the tests assert does not change.
 */
public final class TestTime
{
    /** The system property holding the factor, a positive number. */
    public static final String SCALE_PROPERTY = "rivulet.test.timeScale";

    private static final double SCALE = parse(System.getProperty(SCALE_PROPERTY));

    private TestTime()
    {
    }

    /** @return the factor, 1 unless set. */
    public static double scale()
    {
        return SCALE;
    }

    /** @return {@code value unit} scaled, in nanoseconds. */
    public static long nanos(final long value, final TimeUnit unit)
    {
        return (long)Math.ceil(unit.toNanos(value) * SCALE);
    }

    /** @return {@code value unit} scaled, in milliseconds. */
    public static long millis(final long value, final TimeUnit unit)
    {
        return (long)Math.ceil(unit.toMillis(value) * SCALE);
    }

    /** @return {@code millis} milliseconds scaled, in milliseconds. */
    public static long millis(final long millis)
    {
        return millis(millis, TimeUnit.MILLISECONDS);
    }

    /** @return {@code millis} milliseconds scaled, as a duration. */
    public static Duration ofMillis(final long millis)
    {
        return Duration.ofNanos(nanos(millis, TimeUnit.MILLISECONDS));
    }

    /** @return {@code seconds} scaled, as a duration. */
    public static Duration seconds(final long seconds)
    {
        return Duration.ofNanos(nanos(seconds, TimeUnit.SECONDS));
    }

    /** @return a duration scaled. */
    public static Duration of(final Duration duration)
    {
        return Duration.ofNanos((long)Math.ceil(duration.toNanos() * SCALE));
    }

    static double parse(final String text)
    {
        if (null == text || text.isBlank())
        {
            return 1;
        }
        final double value;
        try
        {
            value = Double.parseDouble(text.strip());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(SCALE_PROPERTY + " must be a positive number such as 10: '" + text + "'", ex);
        }
        if (!(value > 0) || Double.isInfinite(value))
        {
            throw new IllegalArgumentException(SCALE_PROPERTY + " must be a positive number such as 10: '" + text + "'");
        }
        return value;
    }
}
