package io.rivulet.samples.spring.client;

import io.rivulet.samples.spring.Quote;
import io.rivulet.samples.spring.QuoteRequest;
import io.rivulet.samples.spring.Quotes;
import io.rivulet.spring.boot.RivuletConnection;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the client service does once started: a quote for each of {@code quote.symbols} (the {@code quote} route,
 * request-response), then {@code quote.ticks} ticks of the first one (the {@code ticks} route, request-stream,
 * cancelled after the last), each printed as it comes and kept in {@link #lines()}. Waits at most
 * {@code quote.timeout} for each answer; a failure ends the application with an error.
 *
 * <p>Thread-safe: the lines are a concurrent list.
 */
@Component
public class QuoteReport implements CommandLineRunner
{
    private final RivuletConnection quotes;
    private final List<String> symbols;
    private final int ticks;
    private final Duration timeout;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    /**
     * @param quotes  the connection to the quote service.
     * @param symbols the symbols to quote.
     * @param ticks   how many ticks of the first symbol to follow.
     * @param timeout the longest wait for each answer.
     */
    public QuoteReport(final RivuletConnection quotes,
        @Value("${quote.symbols}") final List<String> symbols,
        @Value("${quote.ticks}") final int ticks,
        @Value("${quote.timeout}") final Duration timeout)
    {
        this.quotes = quotes;
        this.symbols = symbols;
        this.ticks = ticks;
        this.timeout = timeout;
    }

    @Override
    public void run(final String... args)
    {
        say("quote-client: asking " + quotes.address() + " for " + String.join(", ", symbols));
        for (final String symbol : symbols)
        {
            final Quote quote = quotes.route(Quotes.QUOTE).requestResponse(new QuoteRequest(symbol), Quote.class)
                .block(timeout);
            say("quote-client: quote " + (quote == null ? "none" : quote));
        }
        final String first = symbols.get(0);
        say("quote-client: following " + ticks + " ticks of " + first);
        quotes.route(Quotes.TICKS).requestStream(new QuoteRequest(first), Quote.class)
            .take(ticks)
            .doOnNext(tick -> say("quote-client: tick " + tick))
            .then()
            .block(timeout.multipliedBy(ticks));
        say("quote-client: done");
    }

    /** @return what was printed, in order. */
    public List<String> lines()
    {
        return List.copyOf(lines);
    }

    private void say(final String line)
    {
        lines.add(line);
        System.out.println(line);
    }
}
