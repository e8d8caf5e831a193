package io.rivulet;

import io.rivulet.region.RegionDescriptor;
import io.rivulet.region.RemoteRegion;
import io.rivulet.route.Route;
import io.rivulet.serde.Codecs;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicItem;
import io.rivulet.topic.TopicMessage;
import org.agrona.DirectBuffer;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A connection to a peer, carrying the four interaction models of RSocket with demand that crosses
 * the wire as credits. Every method returning a publisher is cold and deferred: nothing is sent
 * until it is subscribed, and each subscription is a new request.
 *
 * <p>Thread-safe: any thread may start requests; signals are delivered on the engine thread, so
 * subscribers that block or work hard should hop with {@code publishOn}.
 */
public interface Connection extends AutoCloseable
{
    /** {@link #offer} result: the outbound ring is full; try again later. */
    long BACK_PRESSURED = -2;
    /** {@link #offer} result: the connection is closed. */
    long CLOSED = -4;

    /**
     * Sends a message and expects none back.
     *
     * @param message to send.
     * @return completes once the message is handed to the engine's outbound ring.
     */
    Mono<Void> fireAndForget(Message message);

    /**
     * @param request the request.
     * @return the single reply, empty if the responder completes without one.
     */
    Mono<Message> requestResponse(Message request);

    /**
     * @param request the request.
     * @return the responder's stream; the subscriber's demand bounds what the responder sends.
     */
    Flux<Message> requestStream(Message request);

    /**
     * A bidirectional stream. The first outbound message opens the channel on the peer.
     *
     * @param outbound messages to the responder; requested as the responder grants credits.
     * @return the responder's messages.
     */
    Flux<Message> requestChannel(Publisher<Message> outbound);

    /**
     * Subscribes to the peer node's topics (its {@code Rivulet.publication}s) that match a pattern: a topic
     * name, or a pattern where {@code *} matches one level and a trailing {@code >} the rest
     * ({@code md.quotes.*}, {@code md.>}). Each matching topic arrives as a {@link TopicMessage.Kind#JOINED}
     * item, its last-value snapshot, then its live messages with their sequence numbers; gaps and ends are
     * explicit items (see {@link TopicMessage}). Topics published later that match are attached as they appear.
     *
     * <p>The subscriber's demand bounds what it is handed; the topic's slow-consumer policy decides what a
     * subscriber that falls behind costs the publisher. The flux does not complete on its own; it ends when
     * cancelled, with {@code io.rivulet.topic.SlowConsumerException} (cut off), with
     * {@code io.rivulet.topic.PublisherTimeoutException} (publisher silent) or when the connection closes.
     *
     * @param pattern the topics to receive.
     * @return the items of every matching topic (cold: subscribes on subscription).
     */
    Flux<TopicMessage> subscribe(String pattern);

    /**
     * Subscribes to the peer node's topics that match a pattern, as {@link #subscribe(String)} does, and hands each
     * item to {@code handler} in place on the thread that reads it (the engine's), with unbounded demand: no flux,
     * no message object and no copy per DATA item, as Aeron's {@code FragmentHandler} (issue 16). The item is valid
     * only during the call ({@link TopicItem#toMessage()} copies it). The handler must keep up or hand work off:
     * while it runs, the engine runs nothing else, and a handler that falls behind gets its topics' slow-consumer
     * treatment as a flux that does not request would. The subscription ends on the errors the flux ends with, which
     * go to {@link TopicHandler#onError}, as does an exception the handler throws (which also cancels it).
     *
     * <p>This default delivers the flux's items through the handler (copied); the node's connections override it.
     *
     * @param pattern the topics to receive.
     * @param handler receives the items.
     * @return cancels the subscription.
     */
    default Disposable subscribe(final String pattern, final TopicHandler handler)
    {
        return subscribe(pattern).subscribe(message -> handler.onItem(TopicItem.of(message)), handler::onError);
    }

    /**
     * Looks up a region the peer node exposed ({@code Rivulet.exposeRegion}) and returns a handle for one-sided
     * reads, writes and atomics on it. Over RDMA the operations never involve the peer's CPU; over TCP the peer's
     * engine applies them (its CPU works, its application does not). See {@link RemoteRegion}.
     *
     * @param name the region's name.
     * @return the region, or {@link io.rivulet.region.RegionAccessException} (NOT_FOUND) (cold: looks up on subscription).
     */
    Mono<RemoteRegion> remoteRegion(String name);

    /**
     * A handle on a region of the peer known by its descriptor (from an earlier lookup). The peer checks the key,
     * the bounds and the access again, so a stale or forged descriptor fails cleanly.
     *
     * @param descriptor how the peer addresses the region.
     * @return the region.
     */
    RemoteRegion remoteRegion(RegionDescriptor descriptor);

    /**
     * The zero-copy fire-and-forget path, like Aeron's {@code Publication#offer}: the bytes are encoded
     * straight into the outbound ring, with no allocation. The message must fit one frame.
     *
     * @param buffer holding the data.
     * @param offset of the data.
     * @param length of the data, at most {@link #maxOfferLength()}.
     * @return a positive value when queued, {@link #BACK_PRESSURED} or {@link #CLOSED} otherwise.
     * @throws IllegalArgumentException when length exceeds {@link #maxOfferLength()}.
     */
    long offer(DirectBuffer buffer, int offset, int length);

    /**
     * The zero-copy fire-and-forget path without a source buffer, like Aeron's {@code Publication#tryClaim}: claims
     * room for one message of {@code length} bytes in the outbound ring, with its frame header already encoded. The
     * caller writes the payload into {@link MessageClaim#buffer()} at {@link MessageClaim#offset()} and then calls
     * {@link MessageClaim#commit()}, or {@link MessageClaim#abort()} to send nothing. No allocation.
     *
     * <p>Until it is committed or aborted, the claim holds back everything the connection sends after it: commit at
     * once. A claim that blocks the ring for a second is taken back by the engine (its {@code commit} then returns
     * false), so that a caller that never commits does not stop the connection for ever.
     *
     * @param length of the message, at most {@link #maxOfferLength()}.
     * @param claim  to point at the claimed room; not holding a message.
     * @return a positive value when claimed, {@link #BACK_PRESSURED} or {@link #CLOSED} otherwise (the claim is then
     *         left unset).
     * @throws IllegalArgumentException when length is negative or exceeds {@link #maxOfferLength()}.
     * @throws IllegalStateException    when the claim still holds a message.
     */
    long tryClaim(int length, MessageClaim claim);

    /**
     * {@link #offer(DirectBuffer, int, int)}, waiting up to {@code timeout} for room when the outbound ring is full,
     * as {@code BlockingQueue.offer(e, timeout, unit)} does. The calling thread waits as {@code block()} waits for a
     * reply ({@code rivulet.replyIdleStrategy}): by default it parks, and the engine wakes it as soon as it has sent
     * part of the ring, so a back-pressured producer neither spins beside the engine nor sleeps by time while the
     * ring stands empty. In {@code INVOKER} mode it runs the node's duty cycle while it waits. No allocation.
     *
     * @param buffer  holding the data.
     * @param offset  of the data.
     * @param length  of the data, at most {@link #maxOfferLength()}.
     * @param timeout how long to wait for room at most; zero tries once, as {@link #offer(DirectBuffer, int, int)}.
     * @return a positive value when queued, {@link #CLOSED} when the connection is closed (also while waiting), or
     *         {@link #BACK_PRESSURED} when the ring was still full at the timeout.
     * @throws IllegalArgumentException when length exceeds {@link #maxOfferLength()} or the timeout is negative.
     * @throws IllegalStateException    in {@code INVOKER} mode, when called from inside the node's duty cycle.
     * @throws RuntimeException         wrapping an {@link InterruptedException} when the waiting thread is interrupted
     *                                  ({@code reactor.core.Exceptions.unwrap} gives it back), as {@code block()}.
     */
    long offer(DirectBuffer buffer, int offset, int length, java.time.Duration timeout);

    /**
     * {@link #tryClaim(int, MessageClaim)}, waiting up to {@code timeout} for room when the outbound ring is full, as
     * {@link #offer(DirectBuffer, int, int, java.time.Duration)} does.
     *
     * @param length  of the message, at most {@link #maxOfferLength()}.
     * @param claim   to point at the claimed room; not holding a message.
     * @param timeout how long to wait for room at most; zero tries once.
     * @return a positive value when claimed, {@link #CLOSED} or {@link #BACK_PRESSURED} (the claim is then left
     *         unset).
     * @throws IllegalArgumentException when length is negative or exceeds {@link #maxOfferLength()}, or the timeout
     *                                  is negative.
     * @throws IllegalStateException    when the claim still holds a message, or in {@code INVOKER} mode when called
     *                                  from inside the node's duty cycle.
     */
    long tryClaim(int length, MessageClaim claim, java.time.Duration timeout);

    /**
     * The zero-copy request-response path, like {@link #offer(DirectBuffer, int, int)} is for fire-and-forget: the
     * request is encoded on the caller's thread straight into the outbound ring, and its reply is handed to
     * {@code handler} in place in the engine's receive memory, with no {@code Mono}, no stream object and no
     * allocation once warm. The peer sees an ordinary request-response: any {@link Responder} serves it.
     *
     * <p>Keep as many requests in flight as the application likes, up to {@code rivulet.maxPendingRequests}: a
     * request beyond them is refused with {@link #BACK_PRESSURED}, like one that finds the ring full, and fits again
     * once replies have come. A request whose reply may never come should be cancelled
     * ({@link #cancelRequest(long)}) when the caller gives up on it, or it holds its place until the connection
     * closes.
     *
     * @param buffer  holding the request's data.
     * @param offset  of the data.
     * @param length  of the data, at most {@link #maxOfferLength()}.
     * @param handler receives the reply, or why there is none, with the id this returns.
     * @return the request's id (positive) when queued, {@link #BACK_PRESSURED} when the ring is full or
     *         {@code rivulet.maxPendingRequests} are in flight, {@link #CLOSED} when the connection is closed; the
     *         handler hears of a request only when this returned its id.
     * @throws IllegalArgumentException when length exceeds {@link #maxOfferLength()}.
     * @throws UnsupportedOperationException when this implementation has no zero-copy requests.
     */
    default long offerRequest(DirectBuffer buffer, int offset, int length, ReplyHandler handler)
    {
        throw new UnsupportedOperationException(getClass().getName() + " has no zero-copy requests");
    }

    /**
     * Cancels a request of {@link #offerRequest}: the responder is told (CANCEL), a reply that still comes is dropped,
     * and the handler hears nothing more of it. Any thread.
     *
     * @param requestId what {@code offerRequest} returned.
     * @return true when the request was still waiting for its reply; false when its handler was called already (or
     *         is being called), or the id is not one of this connection's waiting requests.
     * @throws UnsupportedOperationException when this implementation has no zero-copy requests.
     */
    default boolean cancelRequest(long requestId)
    {
        throw new UnsupportedOperationException(getClass().getName() + " has no zero-copy requests");
    }

    /** @return the longest message {@link #offer}, {@link #tryClaim} and {@link #offerRequest} accept (one frame). */
    int maxOfferLength();

    /**
     * Requests to one of the peer's routes ({@link io.rivulet.route.Router}) with typed values, encoded by this node's
     * {@link #codecs()}:
     * <pre>{@code
     * Quote quote = connection.route("price").requestResponse(new PriceRequest("EURUSD"), Quote.class).block();
     * }</pre>
     *
     * @param route the route's name.
     * @return a requester for that route.
     */
    default Route route(final String route)
    {
        return new Route(this, codecs(), route);
    }

    /** @return the codecs this connection encodes and decodes routed requests with: its node's. */
    default Codecs codecs()
    {
        return Codecs.defaults();
    }

    /** @return the peer's address as {@code host:port}. */
    String remoteAddress();

    /** @return true until the connection closes. */
    boolean isOpen();

    /** @return completes when the connection is closed (with an error when it was lost). */
    Mono<Void> onClose();

    /** Closes the connection: in-flight streams end with {@link ConnectionClosedException}. Idempotent. */
    @Override
    void close();
}
