package io.rivulet.samples.actors;

import io.rivulet.actors.ActorSystem;
import io.rivulet.actors.sample.wire.OrderAckDecoder;
import io.rivulet.actors.sample.wire.OrderAckEncoder;
import io.rivulet.actors.sample.wire.OrderDecoder;
import io.rivulet.actors.sample.wire.OrderEncoder;
import io.rivulet.actors.sample.wire.OrderStatus;
import io.rivulet.actors.sample.wire.QuoteDecoder;
import io.rivulet.actors.sample.wire.QuoteEncoder;
import io.rivulet.actors.sample.wire.QuoteRequestDecoder;
import io.rivulet.actors.sample.wire.QuoteRequestEncoder;
import io.rivulet.actors.sample.wire.QuoteSubscriptionDecoder;
import io.rivulet.actors.sample.wire.QuoteSubscriptionEncoder;
import io.rivulet.actors.sample.wire.Side;

import io.rivulet.serde.SbeCodec;

import java.util.Locale;

/**
 * The typed messages of the pricing and order services, and their SBE codecs (schema
 * {@code sbe/pricing-sample.xml} of rivulet-actors). Prices are fixed-point in 1/10,000ths.
 */
public final class PricingMessages
{
    /** What the pricing actor accepts. */
    public sealed interface PricingRequest permits QuoteRequest, QuoteSubscription, Quote
    {
    }

    /** What the order actor accepts: orders from clients, and its own piped results. */
    public sealed interface OrderCommand permits Order, OrderService.Priced
    {
    }

    /** Ask for the current quote of a symbol. */
    public record QuoteRequest(String symbol) implements PricingRequest
    {
    }

    /** Ask for a stream of {@code count} quotes of a symbol. */
    public record QuoteSubscription(String symbol, int count) implements PricingRequest
    {
    }

    /** A two-sided price: the pricing actor's reply, and what a price feed tells it. */
    public record Quote(String symbol, long sequence, long bid, long ask) implements PricingRequest
    {
        @Override
        public String toString()
        {
            return symbol + " " + price(bid) + "/" + price(ask) + " #" + sequence;
        }
    }

    /** An order with a limit price. */
    public record Order(long orderId, String symbol, Side side, long quantity, long limitPrice) implements OrderCommand
    {
        @Override
        public String toString()
        {
            return String.format(Locale.ROOT, "order #%d %s %,d %s limit %s", orderId, side, quantity, symbol,
                price(limitPrice));
        }
    }

    /** The outcome of an order. */
    public record OrderAck(long orderId, OrderStatus status, long fillPrice, String reason)
    {
        @Override
        public String toString()
        {
            return status == OrderStatus.FILLED ? "FILLED at " + price(fillPrice) : "REJECTED: " + reason;
        }
    }

    static final SbeCodec<QuoteRequest, QuoteRequestEncoder, QuoteRequestDecoder> QUOTE_REQUESTS =
        SbeCodec.of(QuoteRequest.class, QuoteRequestEncoder::new, QuoteRequestDecoder::new,
            (request, encoder) -> encoder.symbol(request.symbol()),
            decoder -> new QuoteRequest(decoder.symbol()));

    static final SbeCodec<Quote, QuoteEncoder, QuoteDecoder> QUOTES =
        SbeCodec.of(Quote.class, QuoteEncoder::new, QuoteDecoder::new,
            (quote, encoder) -> encoder.symbol(quote.symbol()).sequence(quote.sequence()).bid(quote.bid())
                .ask(quote.ask()),
            decoder -> new Quote(decoder.symbol(), decoder.sequence(), decoder.bid(), decoder.ask()));

    static final SbeCodec<QuoteSubscription, QuoteSubscriptionEncoder, QuoteSubscriptionDecoder> SUBSCRIPTIONS =
        SbeCodec.of(QuoteSubscription.class, QuoteSubscriptionEncoder::new, QuoteSubscriptionDecoder::new,
            (subscription, encoder) -> encoder.symbol(subscription.symbol()).count(subscription.count()),
            decoder -> new QuoteSubscription(decoder.symbol(), decoder.count()));

    static final SbeCodec<Order, OrderEncoder, OrderDecoder> ORDERS =
        SbeCodec.of(Order.class, OrderEncoder::new, OrderDecoder::new,
            (order, encoder) -> encoder.orderId(order.orderId()).symbol(order.symbol()).side(order.side())
                .quantity(order.quantity()).limitPrice(order.limitPrice()),
            decoder -> new Order(decoder.orderId(), decoder.symbol(), decoder.side(), decoder.quantity(),
                decoder.limitPrice()));

    static final SbeCodec<OrderAck, OrderAckEncoder, OrderAckDecoder> ACKS =
        SbeCodec.of(OrderAck.class, OrderAckEncoder::new, OrderAckDecoder::new,
            (ack, encoder) -> encoder.orderId(ack.orderId()).status(ack.status()).fillPrice(ack.fillPrice())
                .reason(ack.reason()),
            decoder -> new OrderAck(decoder.orderId(), decoder.status(), decoder.fillPrice(), decoder.reason()));

    private PricingMessages()
    {
    }

    /**
     * @param context an actor system's configuration.
     * @return the same, with the codecs of every message above registered (ids 101 to 105).
     */
    public static ActorSystem.Context register(final ActorSystem.Context context)
    {
        return context.codec(101, QuoteRequest.class, QUOTE_REQUESTS)
            .codec(102, Quote.class, QUOTES)
            .codec(103, QuoteSubscription.class, SUBSCRIPTIONS)
            .codec(104, Order.class, ORDERS)
            .codec(105, OrderAck.class, ACKS);
    }

    /** @return a fixed-point price as text, 1.0850. */
    public static String price(final long fixedPoint)
    {
        return String.format(Locale.ROOT, "%d.%04d", fixedPoint / 10_000, Math.abs(fixedPoint % 10_000));
    }
}
