package io.rivulet.samples.spring;

import io.rivulet.Message;
import io.rivulet.Responder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The quote protocol of the Spring sample, in one place: a request is a symbol in UTF-8 ({@code ACME}), a quote is
 * {@code SYMBOL PRICE} ({@code ACME 123.45}); request-response gives the current quote, request-stream a tick every
 * {@link #TICK_INTERVAL} until the client cancels. Prices are made up and deterministic: tick {@code n} of a symbol
 * is always the same price, so tests can check them.
 *
 * <p>Stateless; thread-safe.
 */
public final class Quotes
{
    /** Time between two ticks of a quote stream. */
    public static final Duration TICK_INTERVAL = Duration.ofMillis(50);
    /** What a symbol may be; anything else from the network is refused. */
    private static final Pattern SYMBOL = Pattern.compile("[A-Z0-9.]{1,12}");

    private Quotes()
    {
    }

    /** @return the server's handlers: a quote for a symbol, and a stream of its ticks. */
    public static Responder responder()
    {
        return Responder.builder()
            .requestResponse(request -> Mono.fromCallable(() -> quote(symbol(request), 0)))
            .requestStream(request -> Mono.fromCallable(() -> symbol(request)).flatMapMany(symbol ->
                Flux.interval(TICK_INTERVAL).map(tick -> quote(symbol, tick))))
            .build();
    }

    /** @return the request for a symbol's quote or ticks. */
    public static Message request(final String symbol)
    {
        return Message.of(symbol);
    }

    /**
     * @param request a request off the network.
     * @return its symbol.
     * @throws IllegalArgumentException when it is not a symbol (the requester gets the error, the server goes on).
     */
    public static String symbol(final Message request)
    {
        if (request.dataLength() > 12)
        {
            throw new IllegalArgumentException("not a symbol: " + request.dataLength() + " bytes");
        }
        final String symbol = request.dataUtf8();
        if (!SYMBOL.matcher(symbol).matches())
        {
            throw new IllegalArgumentException("not a symbol: '" + symbol + "'");
        }
        return symbol;
    }

    /** @return the quote message for tick {@code tick} of a symbol. */
    public static Message quote(final String symbol, final long tick)
    {
        return Message.of(symbol + " " + price(symbol, tick));
    }

    /** @return the made-up price of tick {@code tick} of a symbol, as text with two decimals. */
    public static String price(final String symbol, final long tick)
    {
        final long cents = 10_000 + Math.floorMod(symbol.hashCode(), 9_000) + Math.floorMod(tick * 37, 101) - 50;
        return cents / 100 + "." + String.format("%02d", cents % 100);
    }
}
