package io.rivulet;

/**
 * Receives the replies of zero-copy requests ({@link Connection#offerRequest}), like Aeron's {@code FragmentHandler}
 * does fragments: called on the engine thread (in {@link ThreadingMode#INVOKER} mode, inside the caller's duty cycle),
 * with a {@link MessageView} whose buffers point into the engine's receive memory and are valid only during the call.
 * Copy what you keep ({@link MessageView#toMessage()}); do not block.
 *
 * <p>For every request id {@code offerRequest} returned, exactly one of the three methods is called once, unless the
 * request was cancelled first ({@link Connection#cancelRequest}). The reply can arrive before {@code offerRequest}
 * has returned its id to the caller: a handler that matches replies to requests by id must be ready for an id it
 * has not seen yet, or correlate by the payload instead. One handler may serve every request of a connection (or of
 * many): nothing is allocated per request.
 *
 * <p>An exception a method throws goes to the node's error handler; the connection and its other requests carry on.
 */
public interface ReplyHandler
{
    /**
     * The responder's reply.
     *
     * @param requestId what {@link Connection#offerRequest} returned for the request.
     * @param reply     a view valid only until this method returns.
     */
    void onReply(long requestId, MessageView reply);

    /**
     * The responder completed without a reply (its {@code Mono} was empty). By default nothing happens.
     *
     * @param requestId what {@link Connection#offerRequest} returned for the request.
     */
    default void onEmpty(final long requestId)
    {
    }

    /**
     * The request ended without a reply: the responder failed ({@link ApplicationErrorException}), refused it
     * ({@link RejectedException}), or the connection closed or was lost before the reply came
     * ({@link ConnectionClosedException}, {@link ConnectionLostException}).
     *
     * @param requestId what {@link Connection#offerRequest} returned for the request.
     * @param error     why.
     */
    void onError(long requestId, Throwable error);
}
