package io.rivulet.spi;

import io.rivulet.ConfigurationException;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code rivulet.*} system properties for the core and for transports, with one set of rules and messages:
 * a bad value fails with a {@link ConfigurationException} that names the property as the user wrote it, shows the
 * value, says what is wrong and what a good value looks like, e.g.
 * {@code rivulet.keepaliveInterval=1000: a duration needs a unit (ns, us, ms or s), e.g. 1000ms or 1000s}.
 *
 * <ul>
 *   <li>Sizes: bytes, with an optional {@code k}, {@code m} or {@code g} suffix (powers of 1024): {@code 16k}.</li>
 *   <li>Durations: a whole number and a unit {@code ns}, {@code us}, {@code ms} or {@code s}: {@code 500ms}. A bare
 *       {@code 0} is allowed; any other bare number is refused, because whether it meant milliseconds or nanoseconds
 *       cannot be told.</li>
 *   <li>Flags: {@code true} or {@code false}, in any case.</li>
 * </ul>
 *
 * <p>Thread-safe: stateless.
 */
public final class PropertyValues
{
    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})([kmg]?)", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d{1,19})(ns|us|ms|s)?", Pattern.CASE_INSENSITIVE);

    private PropertyValues()
    {
    }

    /**
     * @param property     the property's full name.
     * @param defaultValue when the property is not set.
     * @return the size in bytes, at most {@link Integer#MAX_VALUE}.
     * @throws ConfigurationException when the value is not a size or is too large.
     */
    public static int size(final String property, final int defaultValue)
    {
        final String raw = System.getProperty(property);
        return raw == null ? defaultValue : (int)parseSize(property, raw, Integer.MAX_VALUE);
    }

    /**
     * @param property     the property's full name.
     * @param defaultValue when the property is not set.
     * @return the size in bytes.
     * @throws ConfigurationException when the value is not a size.
     */
    public static long sizeLong(final String property, final long defaultValue)
    {
        final String raw = System.getProperty(property);
        return raw == null ? defaultValue : parseSize(property, raw, Long.MAX_VALUE);
    }

    /**
     * @param property  the property's full name.
     * @param defaultNs when the property is not set.
     * @return the duration in nanoseconds.
     * @throws ConfigurationException when the value has no unit or is not a duration.
     */
    public static long durationNs(final String property, final long defaultNs)
    {
        final String raw = System.getProperty(property);
        return raw == null ? defaultNs : parseDurationNs(property, raw);
    }

    /**
     * @param property     the property's full name.
     * @param defaultValue when the property is not set.
     * @return the flag.
     * @throws ConfigurationException when the value is neither true nor false.
     */
    public static boolean flag(final String property, final boolean defaultValue)
    {
        final String raw = System.getProperty(property);
        if (raw == null)
        {
            return defaultValue;
        }
        final String value = raw.trim().toLowerCase(Locale.ROOT);
        if (!value.equals("true") && !value.equals("false"))
        {
            throw invalid(property, raw, "must be true or false");
        }
        return value.equals("true");
    }

    /**
     * @param property     the property's full name.
     * @param defaultValue when the property is not set.
     * @return the number.
     * @throws ConfigurationException when the value is not a decimal number.
     */
    public static double decimal(final String property, final double defaultValue)
    {
        final String raw = System.getProperty(property);
        if (raw == null)
        {
            return defaultValue;
        }
        try
        {
            final double value = Double.parseDouble(raw.trim());
            if (Double.isFinite(value))
            {
                return value;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // reported below
        }
        throw invalid(property, raw, "not a number; write a decimal such as 0.8");
    }

    /**
     * @param text a value as written.
     * @return whether it is written as a size the way these rules write one (digits and an optional k, m or g), so
     *         a layer that also takes other forms knows which parser is the core's.
     */
    public static boolean isSizeForm(final String text)
    {
        return SIZE.matcher(text.trim()).matches();
    }

    /**
     * @param text a value as written.
     * @return whether it is written as a duration the way these rules write one (digits and an optional unit; the
     *         unit's absence is refused by {@link #parseDurationNs}), so a layer with other forms knows which parser.
     */
    public static boolean isDurationForm(final String text)
    {
        return DURATION.matcher(text.trim()).matches();
    }

    /**
     * @param property the property's full name, for the message.
     * @param raw      the text as written.
     * @param max      the largest size accepted.
     * @return the size in bytes.
     * @throws ConfigurationException when the text is not a size of at most {@code max}.
     */
    public static long parseSize(final String property, final String raw, final long max)
    {
        final Matcher matcher = SIZE.matcher(raw.trim());
        if (!matcher.matches())
        {
            throw invalid(property, raw, "not a size; write a number of bytes with an optional k, m or g suffix, " +
                "e.g. 16k");
        }
        final int shift = switch (matcher.group(2).toLowerCase(Locale.ROOT))
        {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        try
        {
            final long number = Long.parseLong(matcher.group(1));
            if (number <= max >> shift)
            {
                return number << shift;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // more than a long: reported below
        }
        throw invalid(property, raw, "too large; at most " + max + " bytes (" + describeSize(max) + ")");
    }

    /**
     * @param property the property's full name, for the message.
     * @param raw      the text as written.
     * @return the duration in nanoseconds.
     * @throws ConfigurationException when the text has no unit (and is not 0) or is not a duration.
     */
    public static long parseDurationNs(final String property, final String raw)
    {
        final Matcher matcher = DURATION.matcher(raw.trim());
        if (!matcher.matches())
        {
            throw invalid(property, raw, "not a duration; write a whole number and a unit (ns, us, ms or s), " +
                "e.g. 500ms");
        }
        final String digits = matcher.group(1);
        final String unit = matcher.group(2);
        final long number;
        try
        {
            number = Long.parseLong(digits);
        }
        catch (final NumberFormatException ex)
        {
            throw invalid(property, raw, "too large");
        }
        if (unit == null)
        {
            if (number == 0)
            {
                return 0;
            }
            throw invalid(property, raw, "a duration needs a unit (ns, us, ms or s), e.g. " + digits + "ms or " +
                digits + "s");
        }
        final TimeUnit timeUnit = switch (unit.toLowerCase(Locale.ROOT))
        {
            case "ns" -> TimeUnit.NANOSECONDS;
            case "us" -> TimeUnit.MICROSECONDS;
            case "ms" -> TimeUnit.MILLISECONDS;
            default -> TimeUnit.SECONDS;
        };
        final long nanos = timeUnit.toNanos(number);
        if (nanos == Long.MAX_VALUE)
        {
            throw invalid(property, raw, "too large");
        }
        return nanos;
    }

    /**
     * @param property the property's full name.
     * @param raw      the value as written.
     * @param problem  what is wrong and what a good value looks like.
     * @return an exception whose message reads {@code property=raw: problem}.
     */
    public static ConfigurationException invalid(final String property, final String raw, final String problem)
    {
        return new ConfigurationException(property + "=" + raw.trim() + ": " + problem);
    }

    /**
     * @param nanos a duration.
     * @return it in the largest unit that shows it exactly: {@code 1s}, {@code 250ms}, {@code 1500us}, {@code 7ns}.
     */
    public static String describeDuration(final long nanos)
    {
        if (nanos != 0 && nanos % 1_000_000_000L == 0)
        {
            return nanos / 1_000_000_000L + "s";
        }
        if (nanos != 0 && nanos % 1_000_000L == 0)
        {
            return nanos / 1_000_000L + "ms";
        }
        if (nanos != 0 && nanos % 1_000L == 0)
        {
            return nanos / 1_000L + "us";
        }
        return nanos + "ns";
    }

    /**
     * @param bytes a size.
     * @return it with the largest suffix that shows it exactly: {@code 16k}, {@code 1g}, {@code 1000}.
     */
    public static String describeSize(final long bytes)
    {
        if (bytes != 0 && bytes % (1L << 30) == 0)
        {
            return (bytes >> 30) + "g";
        }
        if (bytes != 0 && bytes % (1L << 20) == 0)
        {
            return (bytes >> 20) + "m";
        }
        if (bytes != 0 && bytes % (1L << 10) == 0)
        {
            return (bytes >> 10) + "k";
        }
        return Long.toString(bytes);
    }
}
