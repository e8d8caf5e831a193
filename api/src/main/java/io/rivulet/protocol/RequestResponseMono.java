package io.rivulet.protocol;

import io.rivulet.Message;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * The {@code Mono} of one request-response. Each subscription opens one request, on the subscriber's thread (see
 * {@link ProtocolConnection#openDirect}); {@link #block()} waits with the node's {@link ReplyWait} instead of
 * always parking. Operators applied to it ({@code map}, {@code timeout}, ...) are Reactor's own, and so is the way
 * their {@code block()} waits.
 */
final class RequestResponseMono extends Mono<Message>
{
    private final ConnectionFacade connection;
    private final Message request;

    RequestResponseMono(final ConnectionFacade connection, final Message request)
    {
        this.connection = connection;
        this.request = request;
    }

    @Override
    public void subscribe(final CoreSubscriber<? super Message> actual)
    {
        connection.subscribeRequestResponse(request, actual);
    }

    @Override
    public Message block()
    {
        return connection.replyWait().await(this, null);
    }

    @Override
    public Message block(final Duration timeout)
    {
        return connection.replyWait().await(this, timeout);
    }
}
