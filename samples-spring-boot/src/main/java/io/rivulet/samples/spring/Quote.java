package io.rivulet.samples.spring;

import java.math.BigDecimal;

/**
 * A price of a symbol, the reply of the {@code quote} route and each element of the {@code ticks} stream
 * ({@link Quotes}); JSON on the wire.
 *
 * @param symbol the instrument.
 * @param price  the made-up price, with two decimals.
 * @param tick   which tick of the symbol it is, 0 for the current quote.
 */
public record Quote(String symbol, BigDecimal price, long tick)
{
    @Override
    public String toString()
    {
        return symbol + " " + price.toPlainString();
    }
}
