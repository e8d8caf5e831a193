package io.rivulet.protocol;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.MessageClaim;
import io.rivulet.ReplyHandler;
import io.rivulet.region.RegionDescriptor;
import io.rivulet.region.RemoteRegion;
import io.rivulet.security.Authenticator;
import io.rivulet.topic.TopicMessage;
import org.agrona.DirectBuffer;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * For the deterministic harnesses: one connection seen from both sides at once, the application's
 * {@link Connection} and the engine's {@link ProtocolConnection}, so that a test drives and checks it through one
 * name as the engine's agents and the application would.
 */
public final class EngineSideConnection implements Connection
{
    private final ProtocolConnection engine;
    private final Connection api;

    public EngineSideConnection(final ProtocolConnection engine)
    {
        this.engine = engine;
        this.api = engine.api();
    }

    /** @return the engine's side. */
    public ProtocolConnection engine()
    {
        return engine;
    }

    // ------------------------------------------------------------------ the engine's side

    public int doWork(final long nowNs)
    {
        return engine.doWork(nowNs);
    }

    public boolean isFinished()
    {
        return engine.isFinished();
    }

    public void sendSetup(final byte[] metadata, final byte[] data)
    {
        engine.sendSetup(metadata, data);
    }

    /** Completes the sink with this view of the connection (not the engine's façade), as a test compares it. */
    public void awaitAcceptance(final Sinks.One<Connection> acceptance)
    {
        final Sinks.One<Connection> engineAcceptance = Sinks.one();
        engineAcceptance.asMono().subscribe(
            accepted ->
            {
                if (acceptance.tryEmitValue(this).isFailure())
                {
                    close(); // the connect was cancelled meanwhile, as the engine does
                }
            },
            acceptance::tryEmitError);
        engine.awaitAcceptance(engineAcceptance);
    }

    public boolean takeKeepaliveChanged()
    {
        return engine.takeKeepaliveChanged();
    }

    public long keepaliveIntervalNs()
    {
        return engine.keepaliveIntervalNs();
    }

    public long onKeepaliveTimer(final long nowNs)
    {
        return engine.onKeepaliveTimer(nowNs);
    }

    public void authenticator(final Authenticator authenticator)
    {
        engine.authenticator(authenticator);
    }

    public Outbound outboundRing()
    {
        return engine.outbound();
    }

    public SendMode sendMode()
    {
        return engine.sendMode();
    }

    public void onSenderReleased()
    {
        engine.onSenderReleased();
    }

    // ------------------------------------------------------------------ the application's side

    @Override
    public Mono<Void> fireAndForget(final Message message)
    {
        return api.fireAndForget(message);
    }

    @Override
    public Mono<Message> requestResponse(final Message request)
    {
        return api.requestResponse(request);
    }

    @Override
    public Flux<Message> requestStream(final Message request)
    {
        return api.requestStream(request);
    }

    @Override
    public Flux<Message> requestChannel(final Publisher<Message> outbound)
    {
        return api.requestChannel(outbound);
    }

    @Override
    public Flux<TopicMessage> subscribe(final String pattern)
    {
        return api.subscribe(pattern);
    }

    @Override
    public Mono<RemoteRegion> remoteRegion(final String name)
    {
        return api.remoteRegion(name);
    }

    @Override
    public RemoteRegion remoteRegion(final RegionDescriptor descriptor)
    {
        return api.remoteRegion(descriptor);
    }

    @Override
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        return api.offer(buffer, offset, length);
    }

    @Override
    public long tryClaim(final int length, final MessageClaim claim)
    {
        return api.tryClaim(length, claim);
    }

    @Override
    public long offer(final DirectBuffer buffer, final int offset, final int length, final java.time.Duration timeout)
    {
        return api.offer(buffer, offset, length, timeout);
    }

    @Override
    public long tryClaim(final int length, final MessageClaim claim, final java.time.Duration timeout)
    {
        return api.tryClaim(length, claim, timeout);
    }

    @Override
    public long offerRequest(
        final DirectBuffer buffer, final int offset, final int length, final ReplyHandler handler)
    {
        return api.offerRequest(buffer, offset, length, handler);
    }

    @Override
    public boolean cancelRequest(final long requestId)
    {
        return api.cancelRequest(requestId);
    }

    @Override
    public int maxOfferLength()
    {
        return api.maxOfferLength();
    }

    @Override
    public String remoteAddress()
    {
        return api.remoteAddress();
    }

    @Override
    public boolean isOpen()
    {
        return api.isOpen();
    }

    @Override
    public Mono<Void> onClose()
    {
        return api.onClose();
    }

    @Override
    public void close()
    {
        api.close();
    }

    @Override
    public String toString()
    {
        return api.toString();
    }
}
