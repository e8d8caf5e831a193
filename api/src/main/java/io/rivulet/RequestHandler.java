package io.rivulet;

import org.agrona.DirectBuffer;

/**
 * The zero-copy request-response path on the responding side, as {@link MessageHandler} is for fire-and-forget:
 * called on the engine thread with the request in place ({@link MessageView}, valid only during the call), it
 * answers before it returns, through {@code reply}: {@link Reply#send}, {@link Reply#sendEmpty} or
 * {@link Reply#sendError}. The reply is encoded straight into the connection's outbound ring; nothing is allocated
 * per request once warm. The requester sees an ordinary request-response: a {@code Mono} or a {@link ReplyHandler}.
 *
 * <p>A handler that returns without answering answers with an application error ("no reply"); one that throws
 * answers with its message ({@link RejectedException}: REJECTED, anything else: APPLICATION_ERROR, and the exception
 * goes to the node's error handler). A reply that must wait for other work belongs on the reactive path,
 * {@code Responder.Builder.requestResponse(Function)}, whose {@code Mono} may complete later. Do not block.
 */
@FunctionalInterface
public interface RequestHandler
{
    /**
     * @param request a view valid only until this method returns.
     * @param reply   answers the request, once, before this method returns.
     */
    void onRequest(MessageView request, Reply reply);

    /**
     * The answer to one request of a {@link RequestHandler}, valid only during its call; engine thread only. Exactly
     * one of the three methods may be called, once.
     */
    interface Reply
    {
        /**
         * Replies with these bytes as the message's data, copied into the outbound ring now (a reply longer than one
         * frame is fragmented, and one that finds the ring full waits for room in the engine, as reactive replies do:
         * both copy it first).
         *
         * @param buffer holding the reply's data.
         * @param offset of the data.
         * @param length of the data, at most the node's {@code maxMessageLength}.
         * @throws MessageTooLargeException when the reply is longer; the request is not answered yet.
         * @throws IllegalStateException    when the request was answered already, or its handler returned.
         */
        void send(DirectBuffer buffer, int offset, int length);

        /**
         * Completes the request without a reply (the requester's {@code Mono} completes empty).
         *
         * @throws IllegalStateException when the request was answered already, or its handler returned.
         */
        void sendEmpty();

        /**
         * Fails the request: the requester gets an {@link ApplicationErrorException} with this message.
         *
         * @param message what went wrong, sent to the requester.
         * @throws IllegalStateException when the request was answered already, or its handler returned.
         */
        void sendError(String message);
    }
}
