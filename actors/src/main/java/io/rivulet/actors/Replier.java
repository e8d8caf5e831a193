package io.rivulet.actors;

import org.reactivestreams.Publisher;

/**
 * The way back to the asker of one message, from {@link ActorContext#replier()}. Keep it to answer later,
 * from any thread (for example when another actor's reply arrives). Only the first answer counts; later ones
 * and answers to a tell (which expects none) are counted as dead letters.
 *
 * <p>Thread-safe.
 */
public interface Replier
{
    /** @return true when the message was an ask that has not been answered yet. */
    boolean expectsReply();

    /**
     * @param value the reply; not null. Serialized for a remote asker.
     */
    void reply(Object value);

    /**
     * Answers with a stream: the asker's demand reaches this publisher (across the wire for a remote asker),
     * which is subscribed once the asker claims it. An {@link ActorRef#ask} gets its first element.
     *
     * @param replies the stream; cold.
     */
    void replyStream(Publisher<?> replies);

    /**
     * @param error the asker's error (for a remote asker only its text travels, as an
     *              {@link ActorFailedException}).
     */
    void fail(Throwable error);
}
