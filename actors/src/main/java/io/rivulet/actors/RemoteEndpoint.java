package io.rivulet.actors;

import io.rivulet.ApplicationErrorException;
import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import io.rivulet.RivuletException;
import io.rivulet.actors.wire.ActorErrorCode;
import io.rivulet.actors.wire.RouteKind;
import io.rivulet.actors.wire.TerminationReason;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * This system's side of one remote actor: the ordered path every local sender's messages to it take.
 *
 * <p>Messages are serialized on the sender's thread into envelopes and queued in the current
 * {@link Session}'s bounded {@link Outbox}, which is the outbound half of one Rivulet request-channel to the
 * actor's node, opened on first use with a {@code Route(CHANNEL, incarnation, target)} as metadata. One queue
 * and one channel per target make each sender's messages arrive in the order sent, tells and asks alike; the
 * channel's credits carry the remote mailbox's back-pressure to this queue. Replies (and stream-ready notices)
 * come back on the channel's inbound half, matched to pending asks by correlation id.
 *
 * <p>When the channel ends (connection closed or lost, remote system closed) the session terminates: what is
 * still queued becomes dead letters, pending asks fail with the cause, and the next message opens a new
 * session — at-most-once delivery, never reordered.
 *
 * <p>Thread-safe.
 */
final class RemoteEndpoint
{
    private static final byte[] EMPTY = new byte[0];
    private static final long RETRY_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ActorSystem system;
    private final String address;
    private final String name;
    private final String path;
    private final AtomicReference<Session> current = new AtomicReference<>();
    private final AtomicInteger highWaterMark = new AtomicInteger();
    private final AtomicLong batchesSent = new AtomicLong();

    RemoteEndpoint(final ActorSystem system, final String address, final String name, final String path)
    {
        this.system = system;
        this.address = address;
        this.name = name;
        this.path = path;
    }

    ActorSystem system()
    {
        return system;
    }

    String path()
    {
        return path;
    }

    String name()
    {
        return name;
    }

    ActorStats stats()
    {
        final Session session = current.get();
        final int queued = session == null ? 0 : session.outbox.size();
        final int capacity = session == null ?
            BitUtil.findNextPositivePowerOfTwo(system.context().outboxCapacity()) : session.outbox.capacity();
        final int sessionMark = session == null ? 0 : session.outbox.highWaterMark();
        final long sent = batchesSent.get() + (session == null ? 0 : session.outbox.sent());
        return new ActorStats(path, false, queued, capacity, Math.max(highWaterMark.get(), sessionMark), sent, 0, 0, 0);
    }

    /** @return the open session, starting one when there is none; null while the node is known to be down. */
    private Session session()
    {
        for (;;)
        {
            final Session session = current.get();
            if (session != null && !session.terminated)
            {
                return session;
            }
            if (system.peers().failure(address) != null)
            {
                return null;
            }
            final Session fresh = new Session();
            if (current.compareAndSet(session, fresh))
            {
                fresh.start();
                return fresh;
            }
        }
    }

    void tell(final Object message)
    {
        final byte[] entry = Envelopes.tell(system.serializers(), message);
        if (offer(entry) == Outbox.FULL)
        {
            system.awaitOffer(() -> offer(entry), "the outbound queue to " + path);
        }
    }

    boolean tryTell(final Object message)
    {
        return offer(Envelopes.tell(system.serializers(), message)) == Outbox.ACCEPTED;
    }

    /** @return ACCEPTED or FULL; a message for a closed system is a dead letter (reported as ACCEPTED). */
    private int offer(final byte[] entry)
    {
        system.checkLength(entry);
        for (int attempt = 0; attempt < 4 && !system.isClosed(); attempt++)
        {
            final Session session = session();
            if (session == null)
            {
                break; // the node is down: at most once means a dead letter
            }
            final int result = session.outbox.offer(entry);
            if (result == Outbox.ACCEPTED)
            {
                system.counters().remoteSent.increment();
                return result;
            }
            if (result == Outbox.FULL)
            {
                return result;
            }
            // CLOSED: the session ended between session() and offer; take the next one.
        }
        system.counters().deadLetters.increment();
        return Outbox.ACCEPTED;
    }

    /**
     * @param stream true for a stream ask.
     * @return cold: the reply, a {@link RemoteStream} to open, or the error.
     */
    Mono<Object> ask(final Object message, final boolean stream)
    {
        return Mono.create(sink ->
        {
            system.counters().asks.increment();
            if (system.isClosed())
            {
                sink.error(new ActorNotFoundException("the actor system is closed"));
                return;
            }
            final Session session = session();
            if (session == null)
            {
                final Throwable failure = system.peers().failure(address);
                sink.error(failure != null ? failure : new ActorNotFoundException("cannot reach " + address));
                return;
            }
            final long id = system.asks().nextCorrelationId();
            final byte[] entry;
            try
            {
                entry = Envelopes.ask(system.serializers(), id, message, stream);
                system.checkLength(entry);
            }
            catch (final RuntimeException ex)
            {
                sink.error(ex);
                return;
            }
            if (!session.pending.add(id, sink))
            {
                sink.error(new MailboxFullException(session.pending.size() + " asks to " + path +
                    " are already waiting for replies (maxPendingAsks)"));
                return;
            }
            if (session.terminated && session.pending.fail(id, session.cause()))
            {
                return;
            }
            sendAsk(session, id, entry, true);
        });
    }

    private void sendAsk(final Session session, final long id, final byte[] entry, final boolean first)
    {
        if (!session.pending.isPending(id))
        {
            return; // answered, cancelled or timed out
        }
        final int result = session.outbox.offer(entry);
        if (result == Outbox.ACCEPTED)
        {
            system.counters().remoteSent.increment();
        }
        else if (result == Outbox.CLOSED)
        {
            session.pending.fail(id, session.cause());
        }
        else
        {
            if (first)
            {
                system.counters().backPressureWaits.increment();
            }
            system.schedule(RETRY_NS, () -> sendAsk(session, id, entry, false));
        }
    }

    /** @return cold: the actor's termination, or UNREACHABLE when its node cannot be reached. */
    Mono<Terminated> watch()
    {
        return Mono.defer(() ->
        {
            final Message request = Message.of(EMPTY).metadata(
                Envelopes.route(RouteKind.WATCH, system.incarnation(), 0, name));
            return system.peers().connection(address)
                .flatMap(connection -> connection.requestResponse(request))
                .map(this::decodeTerminated)
                .defaultIfEmpty(new Terminated(path, Terminated.Reason.STOPPED,
                    "the actor system at " + address + " closed"))
                .onErrorResume(error -> Mono.just(new Terminated(path, Terminated.Reason.UNREACHABLE,
                    String.valueOf(error))));
        });
    }

    private Terminated decodeTerminated(final Message message)
    {
        final Envelopes.Reader reader = new Envelopes.Reader();
        if (reader.wrap(message.data(), 0, message.dataLength()) != Envelopes.TERMINATED)
        {
            throw new ProtocolViolationException("a watch was answered with envelope " + reader.templateId());
        }
        final TerminationReason reason = reader.terminationReason();
        final String detail = reader.varText(Envelopes.MAX_DETAIL_LENGTH);
        switch (reason)
        {
            case FAILED:
                return new Terminated(path, Terminated.Reason.FAILED, detail);
            case NOT_FOUND:
                return new Terminated(path, Terminated.Reason.NOT_FOUND, detail);
            default:
                return new Terminated(path, Terminated.Reason.STOPPED, detail);
        }
    }

    /** Opens the stream an actor replied with to a stream ask (or to an ask). */
    Flux<Object> openStream(final long correlationId)
    {
        return Flux.defer(() ->
        {
            final Message request = Message.of(EMPTY).metadata(
                Envelopes.route(RouteKind.STREAM, system.incarnation(), correlationId, name));
            final Envelopes.Reader reader = new Envelopes.Reader();
            return system.peers().connection(address)
                .flatMapMany(connection -> connection.requestStream(request))
                .map(element -> decodeStreamElement(reader, element))
                .onErrorMap(ApplicationErrorException.class, error -> remoteError(error.getMessage()));
        });
    }

    private Object decodeStreamElement(final Envelopes.Reader reader, final Message element)
    {
        if (reader.wrap(element.data(), 0, element.dataLength()) != Envelopes.REPLY)
        {
            throw new ProtocolViolationException("a stream reply element is envelope " + reader.templateId());
        }
        system.counters().remoteReceived.increment();
        return decodePayload(element.data(), reader);
    }

    private Object decodePayload(final DirectBuffer buffer, final Envelopes.Reader reader)
    {
        final CodecBinding<?> serializer = system.serializers().forId(reader.serializerId());
        try
        {
            final Object value = serializer.decode(buffer, reader.varOffset(), reader.varLength());
            if (value == null)
            {
                throw new SerializationException("serializer " + reader.serializerId() + " decoded null");
            }
            return value;
        }
        catch (final SerializationException ex)
        {
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            throw new SerializationException("serializer " + reader.serializerId() + " failed to decode a reply: " +
                ex, ex);
        }
    }

    /** Maps the {@code "CODE: detail"} text of a remote stream error to its exception. */
    private RivuletException remoteError(final String text)
    {
        final String message = text == null ? "" : text;
        final int colon = message.indexOf(": ");
        if (colon > 0)
        {
            final String code = message.substring(0, colon);
            for (final ActorErrorCode candidate : ActorErrorCode.values())
            {
                if (candidate.name().equals(code))
                {
                    return toException(candidate, message.substring(colon + 2));
                }
            }
        }
        return new ApplicationErrorException(message);
    }

    private RivuletException toException(final ActorErrorCode code, final String detail)
    {
        switch (code)
        {
            case FAILED:
                return new ActorFailedException(path, detail);
            case REJECTED:
                return new MailboxFullException(detail);
            case NOT_FOUND:
                return new ActorNotFoundException(detail);
            case SERIALIZATION:
                return new SerializationException(detail);
            default:
                return new ProtocolViolationException(detail);
        }
    }

    /** Ends the current session: queued messages become dead letters, pending asks fail. */
    void close(final Throwable cause)
    {
        final Session session = current.get();
        if (session != null)
        {
            session.terminate(cause);
        }
    }

    @Override
    public String toString()
    {
        return "RemoteEndpoint{" + path + "}";
    }

    /** A stream reply waiting to be claimed on the actor's node. */
    record RemoteStream(RemoteEndpoint endpoint, long correlationId)
    {
        Flux<Object> open()
        {
            return endpoint.openStream(correlationId);
        }
    }

    /**
     * One request-channel to the actor: the outbox as its outbound half, this subscriber on its replies.
     * Reply signals run on the engine thread.
     */
    private final class Session implements CoreSubscriber<Message>
    {
        final Outbox outbox;
        final PendingAsks pending = new PendingAsks(system.context().maxPendingAsks());
        private final Envelopes.Reader reader = new Envelopes.Reader();
        private volatile Subscription replies;
        private volatile Throwable cause;
        volatile boolean terminated;

        Session()
        {
            final Message open = Message.of(EMPTY).metadata(
                Envelopes.route(RouteKind.CHANNEL, system.incarnation(), 0, name));
            outbox = new Outbox(system.context().outboxCapacity(), system.maxBatchBytes(), system.maxBatchEntries(),
                open, dropped -> system.counters().deadLetters.increment(), null);
        }

        void start()
        {
            system.counters().channelsOpened.increment();
            system.peers().connection(address).subscribe(
                connection -> connection.requestChannel(outbox).subscribe(this),
                this::terminate);
        }

        Throwable cause()
        {
            final Throwable error = cause;
            return error != null ? error : new ActorNotFoundException("the channel to " + path + " closed");
        }

        @Override
        public void onSubscribe(final Subscription subscription)
        {
            replies = subscription;
            if (terminated)
            {
                subscription.cancel();
            }
            else
            {
                // Replies are consumed as they arrive; the engine still grants at most its window at a time.
                subscription.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(final Message batch)
        {
            try
            {
                final DirectBuffer data = batch.data();
                final int length = batch.dataLength();
                Envelopes.countEntries(data, length);
                int offset = 0;
                while (offset < length)
                {
                    final int entryLength = data.getInt(offset, ByteOrder.LITTLE_ENDIAN);
                    onEnvelope(data, offset + Envelopes.ENTRY_PREFIX, entryLength);
                    offset += Envelopes.ENTRY_PREFIX + entryLength;
                }
            }
            catch (final ProtocolViolationException ex)
            {
                system.counters().protocolErrors.increment();
                system.reportError(ex);
                terminate(ex);
            }
        }

        private void onEnvelope(final DirectBuffer data, final int offset, final int length)
        {
            final int template = reader.wrap(data, offset, length);
            system.counters().remoteReceived.increment();
            final MonoSink<Object> sink;
            switch (template)
            {
                case Envelopes.REPLY:
                    sink = pending.take(reader.correlationId());
                    if (sink == null)
                    {
                        system.counters().deadLetters.increment(); // late: the ask timed out or was cancelled
                        return;
                    }
                    try
                    {
                        sink.success(decodePayload(data, reader));
                    }
                    catch (final SerializationException ex)
                    {
                        system.counters().serializationErrors.increment();
                        sink.error(ex);
                    }
                    return;
                case Envelopes.REPLY_ERROR:
                    sink = pending.take(reader.correlationId());
                    if (sink != null)
                    {
                        sink.error(toException(reader.errorCode(), reader.varText(Envelopes.MAX_DETAIL_LENGTH)));
                    }
                    return;
                case Envelopes.STREAM_READY:
                    sink = pending.take(reader.correlationId());
                    if (sink != null)
                    {
                        sink.success(new RemoteStream(RemoteEndpoint.this, reader.correlationId()));
                    }
                    // An unclaimed stream expires on the actor's node.
                    return;
                default:
                    throw new ProtocolViolationException("unexpected envelope " + template + " on the replies of " +
                        path);
            }
        }

        @Override
        public void onError(final Throwable error)
        {
            terminate(error);
        }

        @Override
        public void onComplete()
        {
            terminate(new ActorNotFoundException("the actor system at " + address + " closed the channel to " + name));
        }

        void terminate(final Throwable error)
        {
            if (terminated)
            {
                return;
            }
            cause = error;
            terminated = true;
            if (current.compareAndSet(this, null))
            {
                highWaterMark.accumulateAndGet(outbox.highWaterMark(), Math::max);
                batchesSent.addAndGet(outbox.sent());
            }
            outbox.abort();
            final Subscription subscription = replies;
            if (subscription != null)
            {
                subscription.cancel();
            }
            pending.failAll(error);
        }
    }
}
