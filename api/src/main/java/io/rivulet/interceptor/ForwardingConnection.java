package io.rivulet.interceptor;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.MessageClaim;
import io.rivulet.ReplyHandler;
import io.rivulet.region.RegionDescriptor;
import io.rivulet.region.RemoteRegion;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicMessage;
import org.agrona.DirectBuffer;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link Connection} that passes every call to another: an {@link Interceptor} extends it and overrides what it
 * intercepts.
 *
 * <p>Thread-safe as the connection it wraps is.
 */
public abstract class ForwardingConnection implements Connection
{
    private final Connection delegate;

    /**
     * @param delegate the connection every call goes to.
     */
    protected ForwardingConnection(final Connection delegate)
    {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    /** @return the wrapped connection. */
    protected Connection delegate()
    {
        return delegate;
    }

    @Override
    public Mono<Void> fireAndForget(final Message message)
    {
        return delegate.fireAndForget(message);
    }

    @Override
    public Mono<Message> requestResponse(final Message request)
    {
        return delegate.requestResponse(request);
    }

    @Override
    public Flux<Message> requestStream(final Message request)
    {
        return delegate.requestStream(request);
    }

    @Override
    public Flux<Message> requestChannel(final Publisher<Message> outbound)
    {
        return delegate.requestChannel(outbound);
    }

    @Override
    public Flux<TopicMessage> subscribe(final String pattern)
    {
        return delegate.subscribe(pattern);
    }

    @Override
    public Disposable subscribe(final String pattern, final TopicHandler handler)
    {
        return delegate.subscribe(pattern, handler);
    }

    @Override
    public Mono<RemoteRegion> remoteRegion(final String name)
    {
        return delegate.remoteRegion(name);
    }

    @Override
    public RemoteRegion remoteRegion(final RegionDescriptor descriptor)
    {
        return delegate.remoteRegion(descriptor);
    }

    @Override
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        return delegate.offer(buffer, offset, length);
    }

    @Override
    public long tryClaim(final int length, final MessageClaim claim)
    {
        return delegate.tryClaim(length, claim);
    }

    @Override
    public long offer(final DirectBuffer buffer, final int offset, final int length, final java.time.Duration timeout)
    {
        return delegate.offer(buffer, offset, length, timeout);
    }

    @Override
    public long tryClaim(final int length, final MessageClaim claim, final java.time.Duration timeout)
    {
        return delegate.tryClaim(length, claim, timeout);
    }

    @Override
    public long offerRequest(
        final DirectBuffer buffer, final int offset, final int length, final ReplyHandler handler)
    {
        return delegate.offerRequest(buffer, offset, length, handler);
    }

    @Override
    public boolean cancelRequest(final long requestId)
    {
        return delegate.cancelRequest(requestId);
    }

    @Override
    public int maxOfferLength()
    {
        return delegate.maxOfferLength();
    }

    @Override
    public String remoteAddress()
    {
        return delegate.remoteAddress();
    }

    @Override
    public boolean isOpen()
    {
        return delegate.isOpen();
    }

    @Override
    public Mono<Void> onClose()
    {
        return delegate.onClose();
    }

    @Override
    public void close()
    {
        delegate.close();
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "{" + delegate + "}";
    }
}
