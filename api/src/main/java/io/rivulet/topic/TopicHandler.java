package io.rivulet.topic;

import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Receives a topic subscription's items in place, on the thread that reads them (the engine's), without a copy or
 * an allocation per message: the zero-copy twin of {@code Connection.subscribe(pattern)}'s flux, as Aeron's
 * {@code FragmentHandler} is for a subscription's {@code poll}. See {@code Connection.subscribe(String, TopicHandler)}.
 *
 * <p>The {@link TopicItem} and its {@link TopicItem#data() data} are valid only during the call: the engine reuses
 * them for the next item. Keep what outlives the call with {@link TopicItem#toMessage()} (a copy). The handler runs
 * the engine's duty cycle: it must not block; hand slow work to another thread.
 */
@FunctionalInterface
public interface TopicHandler
{
    /**
     * One item: JOINED, SNAPSHOT, DATA, GAP or END, in the order {@link TopicMessage} describes.
     *
     * @param item valid only during this call.
     */
    void onItem(TopicItem item);

    /**
     * The subscription ended: cut off as a slow consumer ({@link SlowConsumerException}), the publisher fell silent
     * ({@link PublisherTimeoutException}), the connection closed, the pattern was invalid, or {@link #onItem} threw
     * (the subscription is cancelled and the exception comes here). By default it goes where Reactor sends an error
     * nobody handles ({@code Hooks.onErrorDropped}: logged).
     *
     * @param error why.
     */
    default void onError(final Throwable error)
    {
        Operators.onErrorDropped(error, Context.empty());
    }
}
