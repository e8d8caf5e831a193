package io.rivulet.topic;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One {@code Connection.subscribe(pattern)}: the publisher of its {@link TopicMessage}s to one subscriber.
 * Items wait in a queue until the subscriber's demand takes them, and a terminal error waits behind them, except
 * a DROP_SLOW cut-off ({@link #cutOff}), which is delivered at once: the subscriber it ends is, by definition, one
 * that is not requesting, so waiting for its demand would never end it.
 * The queue is bounded because the endpoint grants a topic credits only for room within a window (so a
 * subscriber that does not request holds its topics' publishers back, or gets the topics' slow-consumer
 * treatment); a joining topic's snapshot comes on top, bounded by the publisher's key limit.
 *
 * <p>Thread-safety: {@code subscribe}, {@code request} and {@code cancel} may come from any thread and only
 * record their effect and signal the endpoint; subscriber signals and the rest of the state belong to the
 * conductor.
 */
final class TopicSubscription implements Publisher<TopicMessage>, Subscription
{
    private final TopicEndpoint endpoint;
    private final TopicPattern pattern;
    /** The handler of {@code Connection.subscribe(pattern, handler)}, which takes DATA in place; else null. */
    private final TopicHandlerSubscriber inPlace;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final AtomicLong demand = new AtomicLong();
    private volatile CoreSubscriber<? super TopicMessage> subscriber;
    private volatile boolean cancelled;
    private volatile boolean invalidRequest;

    // Conductor state.
    int id;
    /** Registered with the endpoint (has an id, SUBSCRIBE sent or queued). */
    boolean registered;
    /** Left the endpoint: cancelled, failed or the connection closed. */
    boolean done;
    final ArrayList<TopicAttachment> attachments = new ArrayList<>();
    private final ArrayDeque<TopicMessage> queue = new ArrayDeque<>();
    private Throwable error;
    /** The error goes out without waiting for the queue to drain: what demand does not cover is discarded. */
    private boolean errorNow;
    private boolean terminated;

    TopicSubscription(final TopicEndpoint endpoint, final TopicPattern pattern)
    {
        this(endpoint, pattern, null);
    }

    /** @param inPlace the handler subscriber that takes DATA in place (it must be the one subscriber), or null. */
    TopicSubscription(final TopicEndpoint endpoint, final TopicPattern pattern, final TopicHandlerSubscriber inPlace)
    {
        this.endpoint = endpoint;
        this.pattern = pattern;
        this.inPlace = inPlace;
    }

    TopicPattern pattern()
    {
        return pattern;
    }

    @Override
    public void subscribe(final Subscriber<? super TopicMessage> s)
    {
        if (!subscribed.compareAndSet(false, true))
        {
            Operators.error(s, new IllegalStateException("a topic subscription allows one subscriber; it has one already"));
            return;
        }
        final CoreSubscriber<? super TopicMessage> actual = Operators.toCoreSubscriber(s);
        subscriber = actual;
        actual.onSubscribe(this);
        signal();
    }

    @Override
    public void request(final long n)
    {
        if (n <= 0)
        {
            invalidRequest = true;
        }
        else
        {
            long current;
            do
            {
                current = demand.get();
            }
            while (!demand.compareAndSet(current, Operators.addCap(current, n)));
        }
        signal();
    }

    @Override
    public void cancel()
    {
        cancelled = true;
        signal();
    }

    private void signal()
    {
        if (signalled.compareAndSet(false, true))
        {
            endpoint.signal(this);
        }
    }

    // ------------------------------------------------------------------------------------ conductor

    /** Conductor: the signal is being handled; later signals queue the subscription again. */
    void clearSignal()
    {
        signalled.set(false);
    }

    boolean isCancelled()
    {
        return cancelled || invalidRequest;
    }

    /** @return items waiting for demand. */
    int queued()
    {
        return queue.size();
    }

    /** Conductor: an item for the subscriber; delivered now if demand allows. */
    void enqueue(final TopicMessage message)
    {
        if (terminated)
        {
            return;
        }
        final CoreSubscriber<? super TopicMessage> s = subscriber;
        // The common case, a subscriber keeping up: straight to it, not through the queue (nothing waits ahead of
        // it, and an error waits only behind queued items, so none is pending).
        if (queue.isEmpty() && error == null && s != null && !cancelled && !invalidRequest && takeDemand())
        {
            s.onNext(message);
            return;
        }
        queue.add(message);
        drain();
    }

    /**
     * Conductor: whether a DATA item may go to the handler in place now, rather than as a message through
     * {@link #enqueue}: only for a handler subscription with nothing queued or pending ahead of the item.
     */
    boolean takesInPlace()
    {
        return inPlace != null && !terminated && queue.isEmpty() && error == null && subscriber != null &&
            !cancelled && !invalidRequest && takeDemand();
    }

    /** Conductor: a DATA item in place, after {@link #takesInPlace}. */
    void deliverInPlace(final TopicItem item)
    {
        inPlace.deliver(item);
    }

    /**
     * Conductor: takes one unit of demand. Unbounded demand ({@code Long.MAX_VALUE}, what {@code subscribe(consumer)}
     * requests) is never decremented (Reactive Streams rule 3.17), so it costs no atomic write per item.
     *
     * @return false when there is none.
     */
    private boolean takeDemand()
    {
        final long current = demand.get();
        if (current == Long.MAX_VALUE)
        {
            return true;
        }
        if (current <= 0)
        {
            return false;
        }
        demand.decrementAndGet(); // only this thread takes demand; request() only adds, so it stays positive
        return true;
    }

    /**
     * Conductor: ends the subscription with an error, delivered after the items already received (as a
     * stream's buffered message is): the subscriber sees everything up to the failure, then why it ended.
     */
    void fail(final Throwable failure)
    {
        if (error == null)
        {
            error = failure;
        }
        drain();
    }

    /**
     * Conductor: a DROP_SLOW cut-off, delivered now whatever the subscriber requested (Reactive Streams lets
     * {@code onError} go without demand). The items its demand covers go first; the rest are discarded and
     * counted in the exception, so the subscriber knows everything after what it was handed is lost.
     *
     * @param topic        the topic that cut it off.
     * @param sessionId    that topic's session.
     * @param lastSequence the last sequence the publisher sent before the cut.
     * @param reason       the publisher's reason.
     */
    void cutOff(final String topic, final int sessionId, final long lastSequence, final String reason)
    {
        if (terminated || error != null)
        {
            return; // already ending: the first cause wins
        }
        drain();
        final int discarded = queue.size();
        error = new SlowConsumerException(topic, sessionId, lastSequence, discarded == 0 ? reason :
            reason + "; " + discarded + " items not requested were discarded", discarded);
        errorNow = true;
        drain();
    }

    /**
     * Conductor: delivers what demand allows, then a pending error.
     *
     * @return items delivered.
     */
    int drain()
    {
        final CoreSubscriber<? super TopicMessage> s = subscriber;
        if (terminated || s == null)
        {
            return 0;
        }
        if (invalidRequest)
        {
            terminate();
            s.onError(new IllegalArgumentException("Reactive Streams rule 3.9: request must be positive"));
            return 0;
        }
        if (cancelled)
        {
            terminate();
            return 0;
        }
        int delivered = 0;
        while (!queue.isEmpty() && !cancelled && takeDemand())
        {
            s.onNext(queue.poll());
            delivered++;
        }
        if (error != null && !terminated && (queue.isEmpty() || errorNow))
        {
            terminate();
            s.onError(error);
        }
        return delivered;
    }

    private void terminate()
    {
        terminated = true;
        queue.clear();
    }

    boolean isTerminated()
    {
        return terminated;
    }

    @Override
    public String toString()
    {
        return "TopicSubscription{" + id + " " + pattern + "}";
    }
}
