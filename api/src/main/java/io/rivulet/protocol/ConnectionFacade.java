package io.rivulet.protocol;

import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.LimitExceededException;
import io.rivulet.Message;
import io.rivulet.MessageClaim;
import io.rivulet.MessageTooLargeException;
import io.rivulet.ReplyHandler;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.region.RegionDescriptor;
import io.rivulet.region.RegionEndpoint;
import io.rivulet.region.RemoteRegion;
import io.rivulet.serde.Codecs;
import io.rivulet.topic.TopicEndpoint;
import io.rivulet.topic.TopicHandler;
import io.rivulet.topic.TopicMessage;
import org.agrona.DirectBuffer;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The {@link Connection} an application holds: the interaction models, topics and remote regions of one
 * connection, callable from any thread. It records intent in stream objects, encodes what it can straight into
 * the outbound ring on the caller's thread, and hands the rest to the conductor; it holds no conductor state.
 */
final class ConnectionFacade implements Connection
{
    /** Waits longer than this (about 146 years) are this long: a deadline in nanoseconds must not overflow. */
    private static final Duration MAX_WAIT = Duration.ofNanos(Long.MAX_VALUE / 2);

    private final ProtocolConnection connection;
    private final Outbound outbound;
    private final ProtocolSettings settings;
    private final ConnectionCounters counters;
    private final ConnectionClose close;
    private final Executor conductor;
    private final String localAddress;
    private final String remoteAddress;
    private final StreamWriter connectionWriter;
    private final int maxOfferLength;
    /** Null when the node runs no topic or region layer (unit tests). */
    private final TopicEndpoint topics;
    private final RegionEndpoint regions;
    /** How callers of {@code block()} wait, set by the conductor before the application sees the connection. */
    private volatile ReplyWait replyWait = ReplyWait.PARK;
    /** The node's codecs, set by the conductor before the application sees the connection. */
    private volatile Codecs codecs = Codecs.defaults();

    ConnectionFacade(
        final ProtocolConnection connection,
        final Outbound outbound,
        final ProtocolSettings settings,
        final ConnectionCounters counters,
        final ConnectionClose close,
        final Executor conductor,
        final TopicEndpoint topics,
        final RegionEndpoint regions)
    {
        this.connection = connection;
        this.outbound = outbound;
        this.settings = settings;
        this.counters = counters;
        this.close = close;
        this.conductor = conductor;
        this.topics = topics;
        this.regions = regions;
        this.localAddress = connection.link().localAddress();
        this.remoteAddress = connection.link().remoteAddress();
        this.connectionWriter = new StreamWriter(outbound);
        // One limit for offer, tryClaim and offerRequest: whichever frame type carries more besides the data.
        this.maxOfferLength = settings.maxFrameLength() - Math.max(
            FrameWriter.payloadFrameOverhead(FrameType.REQUEST_FNF),
            FrameWriter.payloadFrameOverhead(FrameType.REQUEST_RESPONSE));
    }

    @Override
    public Mono<Void> fireAndForget(final Message message)
    {
        return Mono.defer(() ->
        {
            if (!close.isOpen())
            {
                return Mono.error(close.closedError());
            }
            if (tooLarge(message))
            {
                return Mono.error(tooLargeError(message));
            }
            final long parked = outbound.parkedBytes();
            final long length = (long)message.dataLength() + message.metadataLength();
            if (parked > 0 && parked + length > settings.maxParkedBytes())
            {
                counters.onLimitRejection();
                return Mono.error(new LimitExceededException("fire-and-forget to " + remoteAddress + " refused: " +
                    parked + " bytes already wait for the outbound ring, limit " + settings.maxParkedBytes() +
                    " (rivulet.maxParkedBytes)"));
            }
            if (parked > 0 && outbound.wouldExceedNodeMemory(length))
            {
                counters.onLimitRejection();
                return Mono.error(new LimitExceededException("fire-and-forget to " + remoteAddress + " refused: " +
                    "the node's connections hold their whole memory budget (rivulet.maxNodeMemory)"));
            }
            if (FrameWriter.payloadFrameLength(FrameType.REQUEST_FNF, message.metadataLength(), message.dataLength()) <=
                settings.maxFrameLength())
            {
                connectionWriter.sendMessage(FrameType.REQUEST_FNF, 0, FrameFlags.NEXT, message);
                return Mono.empty();
            }
            // Fragments need a stream id so that the peer can reassemble them: the conductor allocates it.
            final Sinks.Empty<Void> sent = Sinks.empty();
            conductor.execute(() -> connection.sendFragmented(message, sent));
            return sent.asMono();
        });
    }

    @Override
    public Mono<Message> requestResponse(final Message request)
    {
        return new RequestResponseMono(this, request);
    }

    /** Any thread: one subscription to a {@link RequestResponseMono} opens one request. */
    void subscribeRequestResponse(final Message request, final CoreSubscriber<? super Message> actual)
    {
        if (tooLarge(request))
        {
            Operators.error(actual, tooLargeError(request));
            return;
        }
        final ProtocolStream stream = new ProtocolStream(connection, ProtocolStream.Kind.REQUESTER_RESPONSE);
        stream.request = request;
        stream.inbound.subscribe(actual);
    }

    /** How {@code block()} on a request-response waits. */
    ReplyWait replyWait()
    {
        return replyWait;
    }

    /** Conductor, before the application sees the connection: the node's way of waiting for replies. */
    void replyWait(final ReplyWait replyWait)
    {
        this.replyWait = replyWait;
    }

    @Override
    public Flux<Message> requestStream(final Message request)
    {
        return Flux.defer(() ->
        {
            if (tooLarge(request))
            {
                return Flux.error(tooLargeError(request));
            }
            final ProtocolStream stream = new ProtocolStream(connection, ProtocolStream.Kind.REQUESTER_STREAM);
            stream.request = request;
            return Flux.from(stream.inbound);
        });
    }

    @Override
    public Flux<Message> requestChannel(final Publisher<Message> outboundMessages)
    {
        return Flux.defer(() ->
        {
            final ProtocolStream stream = new ProtocolStream(connection, ProtocolStream.Kind.REQUESTER_CHANNEL);
            stream.channelProducer(outboundMessages);
            return Flux.from(stream.inbound);
        });
    }

    @Override
    public Flux<TopicMessage> subscribe(final String pattern)
    {
        // Topics: the endpoint owns subscriptions; this only refuses what it cannot serve.
        if (topics == null)
        {
            return Flux.error(new UnsupportedOperationException("this connection has no topic layer"));
        }
        return Flux.defer(() -> close.isOpen() ? topics.subscribe(pattern) : Flux.error(close.closedError()));
    }

    @Override
    public Disposable subscribe(final String pattern, final TopicHandler handler)
    {
        if (topics == null || !close.isOpen())
        {
            return Connection.super.subscribe(pattern, handler); // the flux's error reaches the handler
        }
        return topics.subscribe(pattern, handler);
    }

    @Override
    public Mono<RemoteRegion> remoteRegion(final String name)
    {
        if (regions == null)
        {
            return Mono.error(new UnsupportedOperationException("this connection has no region layer"));
        }
        return Mono.defer(() -> close.isOpen() ? Mono.create(sink -> regions.lookup(name, sink)) :
            Mono.error(close.closedError()));
    }

    @Override
    public RemoteRegion remoteRegion(final RegionDescriptor descriptor)
    {
        if (regions == null)
        {
            throw new UnsupportedOperationException("this connection has no region layer");
        }
        return regions.attach(descriptor);
    }

    @Override
    public long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > maxOfferLength)
        {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the offer maximum of " +
                maxOfferLength + "; send it with fireAndForget(Message), which fragments");
        }
        if (!close.isOpen())
        {
            return CLOSED;
        }
        return outbound.offerFireAndForget(buffer, offset, length) ? length + 1L : BACK_PRESSURED;
    }

    @Override
    public long tryClaim(final int length, final MessageClaim claim)
    {
        if (length < 0 || length > maxOfferLength)
        {
            throw new IllegalArgumentException("claim of " + length + " bytes is outside the offer maximum of " +
                maxOfferLength + "; send it with fireAndForget(Message), which fragments");
        }
        if (!close.isOpen())
        {
            return CLOSED;
        }
        return outbound.tryClaimFireAndForget(length, claim) ? length + 1L : BACK_PRESSURED;
    }

    @Override
    public long offerRequest(final DirectBuffer buffer, final int offset, final int length, final ReplyHandler handler)
    {
        java.util.Objects.requireNonNull(handler, "handler");
        if (length > maxOfferLength)
        {
            throw new IllegalArgumentException("request of " + length + " bytes exceeds the offer maximum of " +
                maxOfferLength + "; send it with requestResponse(Message), which fragments");
        }
        if (!close.isOpen())
        {
            return CLOSED;
        }
        return connection.offerRequest(buffer, offset, length, handler);
    }

    @Override
    public boolean cancelRequest(final long requestId)
    {
        return connection.cancelRequest(requestId);
    }

    @Override
    public long offer(final DirectBuffer buffer, final int offset, final int length, final Duration timeout)
    {
        return waitForRoom(buffer, offset, length, null, timeout);
    }

    @Override
    public long tryClaim(final int length, final MessageClaim claim, final Duration timeout)
    {
        return waitForRoom(null, 0, length, java.util.Objects.requireNonNull(claim, "claim"), timeout);
    }

    /**
     * Offers (claim null) or claims, and while the ring is full waits for room as the node's {@link ReplyWait} says,
     * woken by the sender (Outbound's RoomWaiters); allocates nothing.
     */
    private long waitForRoom(
        final DirectBuffer buffer, final int offset, final int length, final MessageClaim claim, final Duration timeout)
    {
        final long result = claim == null ? offer(buffer, offset, length) : tryClaim(length, claim);
        if (result != BACK_PRESSURED || timeout.isZero())
        {
            return result;
        }
        final long deadlineNs = deadline(timeout);
        final ReplyWait wait = replyWait;
        final RoomWaiters waiters = outbound.roomWaiters();
        final int slot = wait.enterRoomWait(waiters);
        try
        {
            long retry;
            do
            {
                retry = claim == null ? offer(buffer, offset, length) : tryClaim(length, claim);
            }
            while (retry == BACK_PRESSURED && wait.awaitRoom(slot, deadlineNs));
            return retry;
        }
        finally
        {
            waiters.leave(slot);
        }
    }

    private static long deadline(final Duration timeout)
    {
        if (timeout.isNegative())
        {
            throw new IllegalArgumentException("negative timeout: " + timeout);
        }
        final long now = System.nanoTime();
        final long nanos = timeout.compareTo(MAX_WAIT) >= 0 ? MAX_WAIT.toNanos() : timeout.toNanos();
        return now + nanos;
    }

    @Override
    public int maxOfferLength()
    {
        return maxOfferLength;
    }

    void codecs(final Codecs codecs)
    {
        this.codecs = codecs;
    }

    @Override
    public Codecs codecs()
    {
        return codecs;
    }

    @Override
    public String remoteAddress()
    {
        return remoteAddress;
    }

    @Override
    public boolean isOpen()
    {
        return close.isOpen();
    }

    @Override
    public Mono<Void> onClose()
    {
        return close.onClose();
    }

    @Override
    public void close()
    {
        if (close.isOpen())
        {
            conductor.execute(() -> close.closeGracefully(
                new ConnectionClosedException("connection to " + remoteAddress + " closed locally"),
                ErrorCode.CONNECTION_CLOSE, "closed by peer application"));
        }
    }

    @Override
    public String toString()
    {
        return "Connection{" + counters.connectionId() + " " + localAddress + " -> " + remoteAddress +
            (close.isOpen() ? "" : ", closed") + "}";
    }

    private boolean tooLarge(final Message message)
    {
        return (long)message.dataLength() + message.metadataLength() > settings.maxMessageLength();
    }

    private MessageTooLargeException tooLargeError(final Message message)
    {
        return new MessageTooLargeException("message of " + ((long)message.dataLength() + message.metadataLength()) +
            " bytes exceeds the maximum of " + settings.maxMessageLength() + " (rivulet.maxMessageLength)");
    }
}
