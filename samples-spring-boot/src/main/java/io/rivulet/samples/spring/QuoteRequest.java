package io.rivulet.samples.spring;

/**
 * What a client asks for on the {@code quote} and {@code ticks} routes ({@link Quotes}); JSON on the wire.
 *
 * @param symbol the instrument, such as {@code ACME}.
 */
public record QuoteRequest(String symbol)
{
}
