package io.rivulet.samples.spring;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The quote protocol of the Spring sample, in one place: two routes taking a {@link QuoteRequest}, {@value #QUOTE}
 * (request-response: the current {@link Quote}) and {@value #TICKS} (request-stream: a quote every
 * {@link #TICK_INTERVAL} until the client cancels), the records going as JSON (rivulet-jackson, found on the class
 * path). The server's {@code Router} maps the routes to {@link #quote(QuoteRequest)} and {@link #ticks(QuoteRequest)}. Prices are made up and deterministic: tick {@code n} of a symbol is always the same price, so tests can
 * check them.
 *
 * <p>Stateless; thread-safe.
 */
public final class Quotes
{
    /** The request-response route: a symbol's current quote. */
    public static final String QUOTE = "quote";
    /** The request-stream route: a symbol's ticks. */
    public static final String TICKS = "ticks";
    /** Time between two ticks of a quote stream. */
    public static final Duration TICK_INTERVAL = Duration.ofMillis(50);
    /** What a symbol may be; anything else from the network is refused. */
    private static final Pattern SYMBOL = Pattern.compile("[A-Z0-9.]{1,12}");

    private Quotes()
    {
    }

    /**
     * @param request a request off the network.
     * @return the symbol's current quote; an error when the request is not for a symbol.
     */
    public static Mono<Quote> quote(final QuoteRequest request)
    {
        return Mono.fromCallable(() -> quote(symbol(request), 0));
    }

    /**
     * @param request a request off the network.
     * @return the symbol's ticks, one every {@link #TICK_INTERVAL} until cancelled; an error when the request is not
     *         for a symbol.
     */
    public static Flux<Quote> ticks(final QuoteRequest request)
    {
        return Mono.fromCallable(() -> symbol(request))
            .flatMapMany(symbol -> Flux.interval(TICK_INTERVAL).map(tick -> quote(symbol, tick)));
    }

    /**
     * @param request a request off the network.
     * @return its symbol.
     * @throws IllegalArgumentException when it is not a symbol (the requester gets the error, the server goes on).
     */
    public static String symbol(final QuoteRequest request)
    {
        final String symbol = request.symbol();
        if (symbol == null || symbol.length() > 12 || !SYMBOL.matcher(symbol).matches())
        {
            throw new IllegalArgumentException("not a symbol: " +
                (symbol == null ? "none" : symbol.length() > 12 ? symbol.length() + " characters" : "'" + symbol + "'"));
        }
        return symbol;
    }

    /** @return tick {@code tick} of a symbol. */
    public static Quote quote(final String symbol, final long tick)
    {
        return new Quote(symbol, price(symbol, tick), tick);
    }

    /** @return the made-up price of tick {@code tick} of a symbol, with two decimals. */
    public static BigDecimal price(final String symbol, final long tick)
    {
        final long cents = 10_000 + Math.floorMod(symbol.hashCode(), 9_000) + Math.floorMod(tick * 37, 101) - 50;
        return BigDecimal.valueOf(cents, 2);
    }
}
