package io.rivulet.spring.boot;

import io.rivulet.micrometer.RivuletMetrics;

/**
 * The auto-configured node's {@link RivuletMetrics}, bound to the application's meter registry. A holder rather
 * than the binder itself: Spring Boot's metrics bind every {@code MeterBinder} bean, and this one is bound already.
 *
 * <p>Thread-safe, as {@link RivuletMetrics} is.
 *
 * @param metrics the bound binder.
 */
public record RivuletMeterBinding(RivuletMetrics metrics)
{
}
