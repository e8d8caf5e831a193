package io.rivulet.samples.actors;

import io.rivulet.actors.Behavior;
import io.rivulet.actors.Behaviors;
import io.rivulet.samples.actors.PricingMessages.PricingRequest;
import io.rivulet.samples.actors.PricingMessages.Quote;
import io.rivulet.samples.actors.PricingMessages.QuoteRequest;
import io.rivulet.samples.actors.PricingMessages.QuoteSubscription;
import reactor.core.publisher.Flux;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pricing service as an actor: keeps a book of quotes (state made by {@link Behaviors#setup}, so a
 * restart resets it to the opening prices), answers {@link QuoteRequest} asks, takes {@link Quote} tells from
 * a price feed, and answers a {@link QuoteSubscription} with a stream of quotes generated as the subscriber
 * asks for them. An unknown symbol makes it throw: its supervisor restarts it.
 */
final class PricingService
{
    /** Half the spread, in 1/10,000ths. */
    static final long HALF_SPREAD = 1;

    private PricingService()
    {
    }

    /**
     * @param opening     mid prices at start (and after a restart).
     * @param outOfOrder  counts feed quotes that arrive behind an earlier one (the demo shows it stays 0).
     * @param streamAsked records the demand the stream replies see.
     */
    static Behavior<PricingRequest> behavior(final Map<String, Long> opening, final AtomicLong outOfOrder,
        final List<Long> streamAsked)
    {
        return Behaviors.setup(context ->
        {
            final Map<String, Quote> book = new HashMap<>();
            opening.forEach((symbol, mid) -> book.put(symbol, new Quote(symbol, 0, mid - HALF_SPREAD, mid + HALF_SPREAD)));
            return (ctx, request) ->
            {
                if (request instanceof QuoteRequest quoteRequest)
                {
                    ctx.reply(require(book, quoteRequest.symbol()));
                }
                else if (request instanceof Quote update)
                {
                    final Quote last = book.get(update.symbol());
                    if (last != null && update.sequence() <= last.sequence())
                    {
                        outOfOrder.incrementAndGet();
                    }
                    book.put(update.symbol(), update);
                }
                else if (request instanceof QuoteSubscription subscription)
                {
                    final Quote from = require(book, subscription.symbol());
                    ctx.replyStream(randomWalk(from, subscription.count()).doOnRequest(streamAsked::add));
                }
                return Behaviors.same();
            };
        });
    }

    private static Quote require(final Map<String, Quote> book, final String symbol)
    {
        final Quote quote = book.get(symbol);
        if (quote == null)
        {
            throw new IllegalArgumentException("no price for " + symbol);
        }
        return quote;
    }

    /** Cold and lazy: each quote is made when the subscriber asks for it. */
    private static Flux<Quote> randomWalk(final Quote from, final int count)
    {
        return Flux.<Quote, Quote>generate(() -> from, (last, sink) ->
        {
            final long mid = (last.bid() + last.ask()) / 2 + new SplittableRandom(last.sequence() * 31 + mid(last))
                .nextInt(-3, 4);
            final Quote next = new Quote(last.symbol(), last.sequence() + 1, mid - HALF_SPREAD, mid + HALF_SPREAD);
            sink.next(next);
            return next;
        }).take(count);
    }

    private static long mid(final Quote quote)
    {
        return (quote.bid() + quote.ask()) / 2;
    }
}
