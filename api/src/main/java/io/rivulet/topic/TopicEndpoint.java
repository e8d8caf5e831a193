package io.rivulet.topic;

import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.Violation;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;

/**
 * The topic layer of one connection, on the conductor thread: the {@link ConnectionExtension} the connection
 * hands its topic frames to. It holds both roles and dispatches each frame to the one it belongs to:
 *
 * <ul>
 *   <li>{@link TopicPublisherSide}: the peer's subscriptions (SUBSCRIBE / UNSUBSCRIBE) matched against this
 *       node's publications, a {@link TopicCursor} per matching publication, TOPIC_STATUS to the cursor;</li>
 *   <li>{@link TopicSubscriberSide}: this side's {@link #subscribe(String)} calls and the topics the peer
 *       attached to them (TOPIC_ATTACH, TOPIC_SNAPSHOT, TOPIC_DATA, TOPIC_GAP, TOPIC_HEARTBEAT, TOPIC_DETACH),
 *       with their sequences, credits and liveness.</li>
 * </ul>
 *
 * <p>What both share (the control-frame path, the link the cursors send on, the clock, the closed state) is a
 * {@link TopicConnection}. The frames a cursor sends may come over a data path (datagrams) instead of the link.
 *
 * <p>Thread-safety: {@link #subscribe(String)} from any thread, {@link #onCursorReleased} from the sender
 * thread; everything else on the conductor.
 */
public final class TopicEndpoint implements ConnectionExtension
{
    /** Most subscriptions a peer may have on one connection. */
    static final int MAX_SUBSCRIPTIONS = 1024;

    private final TopicRegistry registry;
    private final TopicConnection connection;
    private final TopicPublisherSide publisher;
    private final TopicSubscriberSide subscriber;

    TopicEndpoint(final TopicRegistry registry, final ConnectionServices services, final TopicSettings settings)
    {
        this.registry = registry;
        this.connection = new TopicConnection(services);
        this.publisher = new TopicPublisherSide(this, registry, connection);
        this.subscriber = new TopicSubscriberSide(registry, connection, settings);
    }

    // ------------------------------------------------------------------------------------- any thread

    /**
     * Any thread: subscribes to every topic of the peer matching a pattern.
     *
     * @param pattern a topic name, or a pattern with {@code *} (one level) and a trailing {@code >}.
     * @return the subscription's items (cold: subscribes on subscription).
     */
    public Flux<TopicMessage> subscribe(final String pattern)
    {
        return Flux.defer(() ->
        {
            final TopicPattern parsed;
            try
            {
                parsed = TopicPattern.pattern(pattern);
            }
            catch (final IllegalArgumentException ex)
            {
                return Flux.error(ex);
            }
            return Flux.from(new TopicSubscription(this, parsed));
        });
    }

    /**
     * Any thread: subscribes a handler that receives the items in place on the conductor
     * ({@code Connection.subscribe(String, TopicHandler)}). An invalid pattern goes to its {@code onError}.
     *
     * @return cancels the subscription.
     */
    public Disposable subscribe(final String pattern, final TopicHandler handler)
    {
        final TopicPattern parsed;
        try
        {
            parsed = TopicPattern.pattern(pattern);
        }
        catch (final IllegalArgumentException ex)
        {
            handler.onError(ex);
            return Disposables.disposed();
        }
        final TopicHandlerSubscriber subscriber = new TopicHandlerSubscriber(handler);
        new TopicSubscription(this, parsed, subscriber).subscribe(subscriber);
        return subscriber;
    }

    /** Any thread: a subscription has something for the conductor. */
    void signal(final TopicSubscription subscription)
    {
        subscriber.signal(subscription);
    }

    /** Sender thread: a cursor ended; the conductor forgets it. */
    void onCursorReleased(final TopicCursor cursor)
    {
        publisher.onCursorReleased(cursor);
    }

    // ---------------------------------------------------------------------------------- conductor: duty

    /**
     * Conductor: one duty cycle, while the connection is open.
     *
     * @return work done.
     */
    @Override
    public int doWork(final long nowNs)
    {
        connection.now(nowNs);
        int work = subscriber.processSignals();
        work += connection.flushPendingControl();
        work += publisher.drainReleasedCursors();
        work += subscriber.scanIfDue(nowNs);
        work += subscriber.grantDirty();
        return work;
    }

    /**
     * Conductor: the connection is closing; every subscription ends with the cause and every cursor stops.
     *
     * @param cause what ended the connection.
     */
    /** Right after SETUP: a node that takes topic data from groups says so, so that publishers may hand over. */
    @Override
    public void onSetupComplete()
    {
        subscriber.offerMulticast();
    }

    /** Subscriptions either way: the peer relies on this connection for topic data, however quiet the topics. */
    @Override
    public boolean keepsConnection()
    {
        return publisher.hasSubscriptions() || subscriber.hasSubscriptions();
    }

    @Override
    public void onClose(final RivuletException cause)
    {
        if (!connection.close(cause))
        {
            return;
        }
        publisher.close();
        subscriber.close();
        registry.remove(this);
    }

    /** Conductor: a new publication on this node; attach it to the peer's matching subscriptions. */
    void onPublicationAdded(final Publication publication)
    {
        publisher.onPublicationAdded(publication);
    }

    // ------------------------------------------------------------------------------ conductor: frames

    /**
     * Conductor: a topic frame from the peer on the link, already validated by the reader. A frame that breaks
     * the topic protocol is reported to the connection, which closes.
     *
     * @param reader  wrapped around the frame.
     * @param nowNs   the cycle's clock.
     */
    @Override
    public void onFrame(final FrameReader reader, final long nowNs)
    {
        final TopicDataPath path = connection.dataPath();
        if (path != null && path.isOpen() && isCursorFrame(reader.frameType()))
        {
            // Both ends took each other's offer, so the peer's cursors send on the data path, never here.
            connection.violation(Violation.UNEXPECTED_FRAME, FrameType.name(reader.frameType()) +
                " on the link while this connection's topic data goes as datagrams");
            return;
        }
        dispatch(reader, nowNs);
    }

    /**
     * Conductor: a frame that came over this connection's data path (datagrams); only a cursor's frames may.
     *
     * @param reader wrapped around the frame, already validated.
     * @param nowNs  the cycle's clock.
     */
    public void onDataPathFrame(final FrameReader reader, final long nowNs)
    {
        if (!isCursorFrame(reader.frameType()))
        {
            connection.violation(Violation.UNEXPECTED_FRAME, FrameType.name(reader.frameType()) +
                " frame in a datagram: only topic data may come that way");
            return;
        }
        dispatch(reader, nowNs);
    }

    /**
     * Conductor, once: the frames a publication's cursor sends (data, attach, snapshot, gap, heartbeat, detach) go
     * over this path from now on whenever it is open; the rest of the topic protocol stays on the link.
     */
    public void useDataPath(final TopicDataPath path)
    {
        connection.useDataPath(path);
    }

    /** @return true for the frames a publication's cursor sends: what may go over a data path. */
    static boolean isCursorFrame(final int type)
    {
        switch (type)
        {
            case FrameType.TOPIC_DATA:
            case FrameType.TOPIC_ATTACH:
            case FrameType.TOPIC_SNAPSHOT:
            case FrameType.TOPIC_GAP:
            case FrameType.TOPIC_HEARTBEAT:
            case FrameType.TOPIC_DETACH:
            case FrameType.TOPIC_MULTICAST:
                return true;
            default:
                return false;
        }
    }

    /** The peer's subscriptions go to the publisher side; what its cursors send, to the subscriber side. */
    private void dispatch(final FrameReader reader, final long nowNs)
    {
        connection.now(nowNs);
        if (connection.closeCause() != null)
        {
            return;
        }
        switch (reader.frameType())
        {
            case FrameType.TOPIC_DATA: subscriber.onData(reader); return;
            case FrameType.SUBSCRIBE: publisher.onSubscribe(reader); return;
            case FrameType.UNSUBSCRIBE: publisher.onUnsubscribe(reader.subscriptionId()); return;
            case FrameType.TOPIC_STATUS: publisher.onStatus(reader); return;
            case FrameType.TOPIC_ATTACH: subscriber.onAttach(reader); return;
            case FrameType.TOPIC_SNAPSHOT: subscriber.onSnapshot(reader); return;
            case FrameType.TOPIC_GAP: subscriber.onGap(reader); return;
            case FrameType.TOPIC_HEARTBEAT: subscriber.onHeartbeat(reader); return;
            case FrameType.TOPIC_DETACH: subscriber.onDetach(reader); return;
            case FrameType.TOPIC_MULTICAST: subscriber.onMulticast(reader); return;
            case FrameType.MULTICAST_OFFER: publisher.onMulticastOffer(reader, registry.publishesToGroups()); return;
            case FrameType.TOPIC_MULTICAST_LEFT: publisher.onMulticastLeft(reader); return;
            default: connection.violation(Violation.UNEXPECTED_FRAME,
                "not a topic frame: " + FrameType.name(reader.frameType()));
        }
    }

    @Override
    public String toString()
    {
        return "TopicEndpoint{" + connection.link().remoteAddress() + ", serving " + publisher.cursorCount() +
            " topics, attached to " + subscriber.attachmentCount() + "}";
    }
}
