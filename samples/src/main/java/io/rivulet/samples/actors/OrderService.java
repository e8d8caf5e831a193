package io.rivulet.samples.actors;

import io.rivulet.actors.ActorRef;
import io.rivulet.actors.Behavior;
import io.rivulet.actors.Behaviors;
import io.rivulet.actors.Replier;
import io.rivulet.actors.Terminated;
import io.rivulet.actors.sample.wire.OrderStatus;
import io.rivulet.actors.sample.wire.Side;
import io.rivulet.samples.actors.PricingMessages.Order;
import io.rivulet.samples.actors.PricingMessages.OrderAck;
import io.rivulet.samples.actors.PricingMessages.OrderCommand;
import io.rivulet.samples.actors.PricingMessages.PricingRequest;
import io.rivulet.samples.actors.PricingMessages.Quote;
import io.rivulet.samples.actors.PricingMessages.QuoteRequest;

import java.time.Duration;

/**
 * The order service as an actor: for each {@link Order} (an ask) it asks the pricing service — wherever it
 * runs — for a quote, pipes the answer back to itself, and fills the order if the market is within the limit.
 * It watches the pricing service; once that is gone it rejects orders with the reason.
 */
final class OrderService
{
    /** A quote (or the failure to get one) for an order, with the way back to the order's asker. */
    record Priced(Order order, Quote quote, Throwable error, Replier replier) implements OrderCommand
    {
    }

    private OrderService()
    {
    }

    static Behavior<OrderCommand> behavior(final ActorRef<PricingRequest> pricing, final Duration askTimeout)
    {
        return Behaviors.setup(context ->
        {
            context.watch(pricing);
            return Behaviors.receive((ctx, command) ->
            {
                if (command instanceof Order order)
                {
                    final Replier replier = ctx.replier();
                    ctx.pipeToSelf(pricing.ask(new QuoteRequest(order.symbol()), Quote.class, askTimeout),
                        (quote, error) -> new Priced(order, quote, error, replier));
                }
                else if (command instanceof Priced priced)
                {
                    priced.replier().reply(decide(priced));
                }
                return Behaviors.same();
            }, (ctx, signal) -> signal instanceof Terminated terminated ? unavailable(terminated) : Behaviors.same());
        });
    }

    private static OrderAck decide(final Priced priced)
    {
        final Order order = priced.order();
        if (priced.error() != null)
        {
            return new OrderAck(order.orderId(), OrderStatus.REJECTED, 0, "no price: " + priced.error().getMessage());
        }
        final Quote quote = priced.quote();
        final boolean buy = order.side() == Side.BUY;
        final long price = buy ? quote.ask() : quote.bid();
        final boolean fill = buy ? price <= order.limitPrice() : price >= order.limitPrice();
        return fill ?
            new OrderAck(order.orderId(), OrderStatus.FILLED, price, "") :
            new OrderAck(order.orderId(), OrderStatus.REJECTED, 0,
                "market " + PricingMessages.price(price) + " is beyond the limit");
    }

    private static Behavior<OrderCommand> unavailable(final Terminated terminated)
    {
        return (ctx, command) ->
        {
            if (command instanceof Order order)
            {
                ctx.reply(new OrderAck(order.orderId(), OrderStatus.REJECTED, 0,
                    "pricing unavailable (" + terminated.reason() + ")"));
            }
            else if (command instanceof Priced priced)
            {
                priced.replier().reply(decide(priced));
            }
            return Behaviors.same();
        };
    }
}
