package io.rivulet.samples.actors;

import io.rivulet.actors.ActorSystem;
import io.rivulet.actors.SbeSerializer;
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

import java.util.Locale;

/**
 * The typed messages of the pricing and order services, and their SBE serializers (schema
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

    static final SbeSerializer<QuoteRequest, QuoteRequestEncoder, QuoteRequestDecoder> QUOTE_REQUESTS =
        SbeSerializer.of(101, QuoteRequest.class, QuoteRequestEncoder::new, QuoteRequestDecoder::new,
            (request, encoder) -> encoder.symbol(request.symbol()),
            decoder -> new QuoteRequest(decoder.symbol()));

    static final SbeSerializer<Quote, QuoteEncoder, QuoteDecoder> QUOTES =
        SbeSerializer.of(102, Quote.class, QuoteEncoder::new, QuoteDecoder::new,
            (quote, encoder) -> encoder.symbol(quote.symbol()).sequence(quote.sequence()).bid(quote.bid())
                .ask(quote.ask()),
            decoder -> new Quote(decoder.symbol(), decoder.sequence(), decoder.bid(), decoder.ask()));

    static final SbeSerializer<QuoteSubscription, QuoteSubscriptionEncoder, QuoteSubscriptionDecoder> SUBSCRIPTIONS =
        SbeSerializer.of(103, QuoteSubscription.class, QuoteSubscriptionEncoder::new, QuoteSubscriptionDecoder::new,
            (subscription, encoder) -> encoder.symbol(subscription.symbol()).count(subscription.count()),
            decoder -> new QuoteSubscription(decoder.symbol(), decoder.count()));

    static final SbeSerializer<Order, OrderEncoder, OrderDecoder> ORDERS =
        SbeSerializer.of(104, Order.class, OrderEncoder::new, OrderDecoder::new,
            (order, encoder) -> encoder.orderId(order.orderId()).symbol(order.symbol()).side(order.side())
                .quantity(order.quantity()).limitPrice(order.limitPrice()),
            decoder -> new Order(decoder.orderId(), decoder.symbol(), decoder.side(), decoder.quantity(),
                decoder.limitPrice()));

    static final SbeSerializer<OrderAck, OrderAckEncoder, OrderAckDecoder> ACKS =
        SbeSerializer.of(105, OrderAck.class, OrderAckEncoder::new, OrderAckDecoder::new,
            (ack, encoder) -> encoder.orderId(ack.orderId()).status(ack.status()).fillPrice(ack.fillPrice())
                .reason(ack.reason()),
            decoder -> new OrderAck(decoder.orderId(), decoder.status(), decoder.fillPrice(), decoder.reason()));

    private PricingMessages()
    {
    }

    /**
     * @param context an actor system's configuration.
     * @return the same, with the serializers of every message above registered.
     */
    public static ActorSystem.Context register(final ActorSystem.Context context)
    {
        return context.serializer(QUOTE_REQUESTS)
            .serializer(QUOTES)
            .serializer(SUBSCRIPTIONS)
            .serializer(ORDERS)
            .serializer(ACKS);
    }

    /** @return a fixed-point price as text, 1.0850. */
    public static String price(final long fixedPoint)
    {
        return String.format(Locale.ROOT, "%d.%04d", fixedPoint / 10_000, Math.abs(fixedPoint % 10_000));
    }
}
