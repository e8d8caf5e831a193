package io.rivulet;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The serving side's handlers, one per interaction model. A missing handler rejects requests of
 * its kind with a REJECTED error. Handlers are called on the engine thread and must not block: they
 * return cold publishers that the engine subscribes to as the requester's demand arrives.
 *
 * <p>Immutable; build with {@link #builder()}.
 */
public final class Responder
{
    private final Function<Message, Mono<Void>> fireAndForget;
    private final MessageHandler fireAndForgetHandler;
    private final Function<Message, Mono<Message>> requestResponse;
    private final RequestHandler requestResponseHandler;
    private final Function<Message, Flux<Message>> requestStream;
    private final Function<Flux<Message>, Publisher<Message>> requestChannel;
    private final BiFunction<Message, Flux<Message>, Publisher<Message>> requestChannelWithFirst;

    private Responder(final Builder builder)
    {
        this.fireAndForget = builder.fireAndForget;
        this.fireAndForgetHandler = builder.fireAndForgetHandler;
        this.requestResponse = builder.requestResponse;
        this.requestResponseHandler = builder.requestResponseHandler;
        this.requestStream = builder.requestStream;
        this.requestChannel = builder.requestChannel;
        this.requestChannelWithFirst = builder.requestChannelWithFirst;
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a responder that rejects every request: for nodes that only request. */
    public static Responder none()
    {
        return builder().build();
    }

    public Function<Message, Mono<Void>> fireAndForget()
    {
        return fireAndForget;
    }

    public MessageHandler fireAndForgetHandler()
    {
        return fireAndForgetHandler;
    }

    public Function<Message, Mono<Message>> requestResponse()
    {
        return requestResponse;
    }

    /** @return the zero-copy request-response handler, or null. */
    public RequestHandler requestResponseHandler()
    {
        return requestResponseHandler;
    }

    public Function<Message, Flux<Message>> requestStream()
    {
        return requestStream;
    }

    public Function<Flux<Message>, Publisher<Message>> requestChannel()
    {
        return requestChannel;
    }

    /** @return the channel handler that is handed the opening message on its own too, or null. */
    public BiFunction<Message, Flux<Message>, Publisher<Message>> requestChannelWithFirst()
    {
        return requestChannelWithFirst;
    }

    /** Builds a {@link Responder}. Not thread-safe. */
    public static final class Builder
    {
        private Function<Message, Mono<Void>> fireAndForget;
        private MessageHandler fireAndForgetHandler;
        private Function<Message, Mono<Message>> requestResponse;
        private RequestHandler requestResponseHandler;
        private Function<Message, Flux<Message>> requestStream;
        private Function<Flux<Message>, Publisher<Message>> requestChannel;
        private BiFunction<Message, Flux<Message>, Publisher<Message>> requestChannelWithFirst;

        private Builder()
        {
        }

        /** Fire-and-forget with owned messages; errors of the returned Mono are counted and logged. */
        public Builder fireAndForget(final Function<Message, Mono<Void>> handler)
        {
            this.fireAndForget = handler;
            this.fireAndForgetHandler = null;
            return this;
        }

        /** Fire-and-forget on the zero-copy path: the view is valid only during the call. */
        public Builder fireAndForgetHandler(final MessageHandler handler)
        {
            this.fireAndForgetHandler = handler;
            this.fireAndForget = null;
            return this;
        }

        /** Request-response with owned messages: the handler's {@code Mono} may reply later. */
        public Builder requestResponse(final Function<Message, Mono<Message>> handler)
        {
            this.requestResponse = handler;
            this.requestResponseHandler = null;
            return this;
        }

        /** Request-response on the zero-copy path: the handler answers in place before it returns. */
        public Builder requestResponseHandler(final RequestHandler handler)
        {
            this.requestResponseHandler = handler;
            this.requestResponse = null;
            return this;
        }

        public Builder requestStream(final Function<Message, Flux<Message>> handler)
        {
            this.requestStream = handler;
            return this;
        }

        /**
         * @param handler receives the requester's messages, the first being the one that opened the
         *                channel, and returns the replies.
         */
        public Builder requestChannel(final Function<Flux<Message>, Publisher<Message>> handler)
        {
            this.requestChannel = handler;
            this.requestChannelWithFirst = null;
            return this;
        }

        /**
         * A channel handler that sees the opening message before it returns, to choose what serves the channel from
         * it (as {@link io.rivulet.route.Router} does from its route).
         *
         * @param handler receives the opening message, and all the requester's messages (the opening one first),
         *                and returns the replies.
         */
        public Builder requestChannelWithFirst(final BiFunction<Message, Flux<Message>, Publisher<Message>> handler)
        {
            this.requestChannelWithFirst = handler;
            this.requestChannel = null;
            return this;
        }

        public Responder build()
        {
            return new Responder(this);
        }
    }
}
