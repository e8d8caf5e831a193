package io.rivulet.actors;

import io.rivulet.Message;
import io.rivulet.ProtocolViolationException;
import io.rivulet.actors.wire.ActorErrorCode;
import io.rivulet.actors.wire.RouteKind;
import org.agrona.DirectBuffer;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * The serving side of one actor channel: messages from one remote actor system to one local actor.
 *
 * <p>The opening message's metadata routes the channel ({@code Route(CHANNEL, incarnation, target)}); every
 * later message is a batch of envelopes, put into the target's mailbox in order. Demand on the channel is the
 * flow control: {@code inboundWindow} messages are requested up front and more only as batches are fully
 * accepted by the mailbox. When a {@link OverflowPolicy#BACK_PRESSURE} mailbox is full the rest of the batch
 * waits here (in order, bounded by the messages already requested) and no more credits are granted, so the
 * sender's outbox fills and its senders wait; the actor calls {@link #onSpace} when it has made room. A
 * {@link OverflowPolicy#REJECT} mailbox drops instead, counting each rejection and failing rejected asks.
 *
 * <p>Replies to asks go back through {@link #replies}, a bounded {@link Outbox}: a reply that finds it full
 * is dropped and counted (its asker times out).
 *
 * <p>Thread-safety: channel signals arrive on the engine thread; {@link #onSpace} comes from the actor's
 * thread; replies from any thread. The waiting envelopes and credit accounting are guarded by this object's
 * monitor, held only briefly and never while calling out to the engine's locks (there are none).
 */
final class InboundChannel implements CoreSubscriber<Message>
{
    private final ActorSystem system;
    private final Flux<Message> inbound;
    private final Outbox replies;
    private final int window;
    private final Envelopes.Reader reader = new Envelopes.Reader();
    private final ArrayDeque<Envelope> waiting = new ArrayDeque<>();
    private volatile Subscription upstream;
    private volatile boolean done;
    private volatile String target;
    private volatile long incarnation;
    private volatile ActorCell<?> cell;

    // Guarded by this.
    private boolean opened;
    private boolean awaitingSpace;
    private int unrequested;

    InboundChannel(final ActorSystem system, final Flux<Message> inbound)
    {
        this.system = system;
        this.inbound = inbound;
        this.window = system.context().inboundWindow();
        this.replies = new Outbox(system.context().outboxCapacity(), system.maxBatchBytes(), system.maxBatchEntries(),
            null, dropped -> system.counters().deadLetters.increment(), this::close);
    }

    /** @return the reply publisher handed to the engine; subscribing it starts reading the channel. */
    Publisher<Message> publisher()
    {
        return new Publisher<>()
        {
            @Override
            public void subscribe(final Subscriber<? super Message> subscriber)
            {
                replies.subscribe(subscriber);
                inbound.subscribe(InboundChannel.this);
            }
        };
    }

    long incarnation()
    {
        return incarnation;
    }

    @Override
    public void onSubscribe(final Subscription subscription)
    {
        upstream = subscription;
        if (done)
        {
            subscription.cancel();
        }
        else
        {
            subscription.request(window);
        }
    }

    @Override
    public void onNext(final Message message)
    {
        if (done)
        {
            return;
        }
        try
        {
            synchronized (this)
            {
                if (!opened)
                {
                    open(message);
                }
                final DirectBuffer data = message.data();
                final int length = message.dataLength();
                final int entries = Envelopes.countEntries(data, length);
                system.counters().remoteReceived.getAndAdd(entries);
                int offset = 0;
                while (offset < length)
                {
                    final int entryLength = data.getInt(offset, ByteOrder.LITTLE_ENDIAN);
                    final Envelope envelope = toEnvelope(message, offset + Envelopes.ENTRY_PREFIX, entryLength);
                    offset += Envelopes.ENTRY_PREFIX + entryLength;
                    if (!waiting.isEmpty() || !deliver(envelope))
                    {
                        waiting.addLast(envelope);
                    }
                }
                unrequested++;
                if (waiting.isEmpty())
                {
                    replenish();
                }
                else
                {
                    awaitSpace();
                }
            }
        }
        catch (final ProtocolViolationException ex)
        {
            system.counters().protocolErrors.increment();
            system.reportError(new ProtocolViolationException("actor channel to '" + target + "': " + ex.getMessage()));
            abort();
        }
    }

    private void open(final Message message)
    {
        opened = true;
        final int template = reader.wrap(message.metadata(), 0, message.metadataLength());
        if (template != Envelopes.ROUTE || reader.routeKind() != RouteKind.CHANNEL)
        {
            throw new ProtocolViolationException("an actor channel must open with a CHANNEL route");
        }
        incarnation = reader.incarnation();
        target = reader.varText(Envelopes.MAX_NAME_LENGTH);
        cell = system.cell(target);
    }

    private Envelope toEnvelope(final Message batch, final int offset, final int length)
    {
        final int template = reader.wrap(batch.data(), offset, length);
        switch (template)
        {
            case Envelopes.TELL:
                return new Envelope.Remote(batch, reader.varOffset(), reader.varLength(), reader.serializerId(),
                    system.noReply());
            case Envelopes.ASK:
            case Envelopes.ASK_STREAM:
                return new Envelope.Remote(batch, reader.varOffset(), reader.varLength(), reader.serializerId(),
                    new RemoteReplier(reader.correlationId()));
            default:
                throw new ProtocolViolationException("unexpected envelope " + template + " on an actor channel");
        }
    }

    /** @return true when the envelope was taken care of (queued, rejected or dead-lettered); false to wait. */
    private boolean deliver(final Envelope envelope)
    {
        for (int attempt = 0; attempt < 2; attempt++)
        {
            ActorCell<?> actor = cell;
            if (actor == null || actor.isStopped())
            {
                actor = system.cell(target);
                cell = actor;
            }
            if (actor == null)
            {
                break;
            }
            final int result = actor.offer(envelope);
            if (result == ActorCell.ACCEPTED)
            {
                return true;
            }
            if (result == ActorCell.FULL)
            {
                if (actor.overflowPolicy() == OverflowPolicy.BACK_PRESSURE)
                {
                    return false;
                }
                actor.onRejected();
                envelope.replier.fail(new MailboxFullException("the mailbox of " + actor.path() + " is full (" +
                    actor.capacity() + " messages, policy REJECT)"));
                return true;
            }
            // STOPPED: look the name up again, it may have been spawned anew.
        }
        system.counters().deadLetters.increment();
        envelope.replier.fail(new ActorNotFoundException("no running actor named '" + target + "' at " +
            system.address()));
        return true;
    }

    /** Guarded: asks the actor to call back once it has made room, then retries in case it already has. */
    private void awaitSpace()
    {
        final ActorCell<?> actor = cell;
        if (!awaitingSpace && actor != null)
        {
            awaitingSpace = true;
            actor.awaitSpace(this);
        }
        drainWaiting();
    }

    /** Actor thread: the mailbox has room again (or the actor stopped). */
    void onSpace(final ActorCell<?> from)
    {
        synchronized (this)
        {
            awaitingSpace = false;
            if (!waiting.isEmpty())
            {
                drainWaiting();
                if (!waiting.isEmpty())
                {
                    awaitSpace();
                }
            }
        }
    }

    private void drainWaiting()
    {
        while (!waiting.isEmpty())
        {
            if (!deliver(waiting.peekFirst()))
            {
                return;
            }
            waiting.pollFirst();
        }
        replenish();
    }

    /** Guarded: grants more once the batches received so far are all in the mailbox. */
    private void replenish()
    {
        if (waiting.isEmpty() && unrequested >= Math.max(1, window / 2) && !done)
        {
            final int n = unrequested;
            unrequested = 0;
            upstream.request(n);
        }
    }

    @Override
    public void onError(final Throwable error)
    {
        close();
    }

    @Override
    public void onComplete()
    {
        close();
    }

    /** The channel ended: what waits becomes dead letters; queued replies still go out. */
    void close()
    {
        if (done)
        {
            return;
        }
        done = true;
        synchronized (this)
        {
            Envelope envelope;
            while ((envelope = waiting.pollFirst()) != null)
            {
                system.counters().deadLetters.increment();
                envelope.replier.cancel();
            }
        }
        replies.complete();
        system.onChannelClosed(this);
    }

    /** Ends the channel from this side (protocol error, or the system closing). */
    void abort()
    {
        final Subscription subscription = upstream;
        close();
        if (subscription != null)
        {
            subscription.cancel();
        }
    }

    private void send(final byte[] entry)
    {
        if (replies.offer(entry) == Outbox.ACCEPTED)
        {
            system.counters().remoteSent.increment();
        }
        else
        {
            system.counters().deadLetters.increment();
        }
    }

    static ActorErrorCode codeOf(final Throwable error)
    {
        if (error instanceof MailboxFullException)
        {
            return ActorErrorCode.REJECTED;
        }
        if (error instanceof ActorNotFoundException)
        {
            return ActorErrorCode.NOT_FOUND;
        }
        if (error instanceof SerializationException)
        {
            return ActorErrorCode.SERIALIZATION;
        }
        return ActorErrorCode.FAILED;
    }

    static String textOf(final Throwable error)
    {
        return error.getMessage() != null ? error.getMessage() : error.toString();
    }

    @Override
    public String toString()
    {
        return "InboundChannel{to '" + target + "', from incarnation " + incarnation + "}";
    }

    /** Answers an ask from the remote system through the channel's replies. */
    private final class RemoteReplier extends AbstractReplier
    {
        private final long correlationId;

        RemoteReplier(final long correlationId)
        {
            super(system.counters(), true);
            this.correlationId = correlationId;
        }

        @Override
        void onReply(final Object value)
        {
            byte[] entry;
            try
            {
                entry = Envelopes.reply(system.serializers(), correlationId, value);
                system.checkLength(entry);
            }
            catch (final RuntimeException ex)
            {
                system.counters().serializationErrors.increment();
                system.reportError(ex);
                entry = Envelopes.replyError(correlationId, ActorErrorCode.SERIALIZATION, ex.getMessage());
            }
            send(entry);
        }

        @Override
        void onReplyStream(final Publisher<?> stream)
        {
            system.streams().register(incarnation, correlationId, stream, InboundChannel.this);
            send(Envelopes.streamReady(correlationId));
        }

        @Override
        void onFail(final Throwable error)
        {
            send(Envelopes.replyError(correlationId, codeOf(error), textOf(error)));
        }
    }
}
