package io.rivulet.spring.boot;

import io.rivulet.ConfigurationException;
import io.rivulet.spi.PropertyValues;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.unit.DataSize;

import java.time.Duration;

/**
 * Reads the sizes and durations of the {@code rivulet.*} properties as the core reads its {@code -Drivulet.*}
 * system properties ({@link PropertyValues}), and takes Spring's forms besides where they mean the same:
 *
 * <ul>
 *   <li>sizes: bytes, {@code 64k}, {@code 16m}, {@code 1g} (the core's), {@code 64KB}, {@code 16MB} (Spring's
 *       {@link DataSize});</li>
 *   <li>durations: {@code 500ns}, {@code 250us}, {@code 500ms}, {@code 5s} (the core's), {@code 5m}, {@code 2h},
 *       {@code 1d} and ISO-8601 {@code PT5S} (Spring's {@link DurationStyle}); a bare number other than 0 is refused
 *       with the core's message, as nobody can tell whether it meant milliseconds or nanoseconds.</li>
 * </ul>
 *
 * <p>A text in the core's form is always read by the core, so its messages are the ones a user sees for it
 * ({@code rivulet.keepalive-interval=1000: a duration needs a unit (ns, us, ms or s), e.g. 1000ms or 1000s}); Spring
 * reads only what the core has no form for. Stateless; thread-safe.
 */
final class PropertyForms
{
    /** What the core reads as a size or a duration; anything else is offered to Spring's parsers. */
    private PropertyForms()
    {
    }

    /**
     * @param property the property's name, for the message.
     * @param raw      the value as written.
     * @param max      the largest size accepted.
     * @return the size in bytes.
     * @throws ConfigurationException naming the property when the value is not a size or is out of range.
     */
    static long size(final String property, final String raw, final long max)
    {
        final String text = raw.trim();
        if (PropertyValues.isSizeForm(text))
        {
            return PropertyValues.parseSize(property, raw, max);
        }
        final DataSize size;
        try
        {
            size = DataSize.parse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw PropertyValues.invalid(property, raw,
                "not a size; write a number of bytes with an optional k, m or g suffix, e.g. 16k, or Spring's 16KB");
        }
        final long bytes = size.toBytes();
        if (bytes < 0)
        {
            throw PropertyValues.invalid(property, raw, "a size cannot be negative");
        }
        if (bytes > max)
        {
            throw PropertyValues.invalid(property, raw, "too large; at most " + max + " bytes (" +
                PropertyValues.describeSize(max) + ")");
        }
        return bytes;
    }

    /**
     * @param property the property's name, for the message.
     * @param raw      the value as written.
     * @return the duration in nanoseconds.
     * @throws ConfigurationException naming the property when the value has no unit (and is not 0), is not a
     *                                duration, or is negative or too large.
     */
    static long durationNs(final String property, final String raw)
    {
        final String text = raw.trim();
        if (PropertyValues.isDurationForm(text))
        {
            return PropertyValues.parseDurationNs(property, raw);
        }
        final Duration duration;
        try
        {
            duration = DurationStyle.detectAndParse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw PropertyValues.invalid(property, raw, "not a duration; write a whole number and a unit (ns, us, " +
                "ms or s; Spring's m, h or d), e.g. 500ms, or ISO-8601 such as PT5S");
        }
        if (duration.isNegative())
        {
            throw PropertyValues.invalid(property, raw, "a duration cannot be negative");
        }
        try
        {
            return duration.toNanos();
        }
        catch (final ArithmeticException ex)
        {
            throw PropertyValues.invalid(property, raw, "too large");
        }
    }
}
