package io.rivulet.topic;

import io.rivulet.RejectedException;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.DetachReason;
import io.rivulet.codec.wire.GapReason;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.Violation;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;
import reactor.core.publisher.Flux;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The topic layer of one connection, in both roles, on the conductor thread:
 *
 * <ul>
 *   <li><b>publisher role</b>: the peer's subscriptions (SUBSCRIBE / UNSUBSCRIBE), matched against this
 *       node's publications; one {@link TopicCursor} per matching publication, which the sender thread
 *       serves; TOPIC_STATUS credits and liveness go to the cursor;</li>
 *   <li><b>subscriber role</b>: this side's {@code subscribe(pattern)} calls; a {@link TopicAttachment} per topic
 *       the peer attached, which fans each frame out to the subscriptions it feeds, checks sequences, grants
 *       credits and watches the publisher's heartbeat.</li>
 * </ul>
 *
 * <p><b>Credits.</b> An attachment keeps its outstanding credits plus the undelivered items of the fullest
 * subscription it feeds within {@code window}: a subscriber's request(n) bounds what it is handed, at most a
 * window per topic waits for it, and one that stops requesting stops its topics' flow (BLOCK holds the
 * publisher; DROP_SLOW cuts the subscriber off; CONFLATE skips it ahead). TOPIC_DATA, TOPIC_GAP and catch-up
 * TOPIC_SNAPSHOT frames use a credit each; a frame beyond the credits is a protocol violation.
 *
 * <p><b>The seam.</b> A subscription joining at snapshot sequence S is handed the snapshot, then only
 * sequences above S; any other gap in the sequence is handed over as a GAP item, never dropped silently.
 *
 * <p>Thread-safety: {@link #subscribe(String)} from any thread, {@link #onCursorReleased} from the sender
 * thread; everything else on the conductor.
 */
public final class TopicEndpoint implements ConnectionExtension
{
    /** Most subscriptions a peer may have on one connection. */
    static final int MAX_SUBSCRIPTIONS = 1024;

    private final TopicRegistry registry;
    private final ConnectionServices connection;
    private final TopicLink link;
    /** Where cursor frames go when it is open (datagrams); null or closed: the link. Sender thread reads it. */
    private volatile TopicDataPath dataPath;
    private final TopicSettings settings;
    private final FrameWriter frames = new FrameWriter();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);
    private final long scanIntervalNs;

    // Publisher role.
    private final Int2ObjectHashMap<Served> served = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<TopicCursor> cursors = new Int2ObjectHashMap<>();
    private final ArrayList<TopicCursor> cursorList = new ArrayList<>();
    private final ArrayList<Served> pendingServed = new ArrayList<>();
    private final ArrayList<Publication> pendingPublications = new ArrayList<>();
    private final ManyToOneConcurrentLinkedQueue<TopicCursor> releasedCursors = new ManyToOneConcurrentLinkedQueue<>();

    // Subscriber role.
    private final Int2ObjectHashMap<TopicSubscription> subscriptions = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<TopicAttachment> attachments = new Int2ObjectHashMap<>();
    private final ArrayList<TopicAttachment> attachmentList = new ArrayList<>();
    private final ManyToOneConcurrentLinkedQueue<TopicSubscription> signals = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayDeque<byte[]> pendingControl = new ArrayDeque<>();
    private final ArrayDeque<TopicAttachment> dirty = new ArrayDeque<>();
    private int nextSubscriptionId = 1;

    private long nowNs;
    private long nextScanNs;
    private Throwable closeCause;
    private volatile boolean closed;

    TopicEndpoint(final TopicRegistry registry, final ConnectionServices connection, final TopicSettings settings)
    {
        this.registry = registry;
        this.connection = connection;
        this.link = new Link();
        this.settings = settings;
        this.scanIntervalNs = Math.max(TimeUnit.MICROSECONDS.toNanos(100), settings.heartbeatIntervalNs() / 4);
    }

    /** A subscription of the peer (publisher role). */
    private static final class Served
    {
        final int id;
        final TopicPattern pattern;
        final int initialCredits;

        Served(final int id, final TopicPattern pattern, final int initialCredits)
        {
            this.id = id;
            this.pattern = pattern;
            this.initialCredits = initialCredits;
        }
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

    /** Any thread: a subscription has something for the conductor. */
    void signal(final TopicSubscription subscription)
    {
        signals.offer(subscription);
        if (closed)
        {
            registry.execute(this::processSignals); // no more duty cycles for this connection: answer on the conductor
        }
    }

    /** Sender thread: a cursor ended; the conductor forgets it. */
    void onCursorReleased(final TopicCursor cursor)
    {
        releasedCursors.offer(cursor);
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
        this.nowNs = nowNs;
        int work = processSignals();
        work += flushPendingControl();
        work += drainReleasedCursors();
        if (nowNs - nextScanNs >= 0)
        {
            nextScanNs = nowNs + scanIntervalNs;
            work += scan(nowNs);
        }
        work += grantDirty();
        return work;
    }

    /**
     * Conductor: the connection is closing; every subscription ends with the cause and every cursor stops.
     *
     * @param cause what ended the connection.
     */
    @Override
    public void onClose(final RivuletException cause)
    {
        if (closeCause != null)
        {
            return;
        }
        closeCause = cause;
        closed = true;
        for (int i = 0; i < cursorList.size(); i++)
        {
            cursorList.get(i).requestClose(TopicCursor.CLOSE_SILENTLY);
        }
        cursorList.clear();
        cursors.clear();
        served.clear();
        pendingServed.clear();
        pendingPublications.clear();
        final ArrayList<TopicSubscription> live = new ArrayList<>(subscriptions.values());
        subscriptions.clear();
        attachments.clear();
        attachmentList.clear();
        dirty.clear();
        pendingControl.clear();
        for (int i = 0; i < live.size(); i++)
        {
            final TopicSubscription subscription = live.get(i);
            subscription.done = true;
            subscription.attachments.clear();
            subscription.fail(cause);
        }
        processSignals();
        registry.remove(this);
    }

    private int processSignals()
    {
        int work = 0;
        TopicSubscription subscription;
        while ((subscription = signals.poll()) != null)
        {
            subscription.clearSignal();
            work++;
            if (closeCause != null)
            {
                subscription.done = true;
                subscription.fail(closeCause);
                continue;
            }
            if (!subscription.registered && !subscription.done && !subscription.isCancelled())
            {
                register(subscription);
            }
            if (subscription.isCancelled())
            {
                leave(subscription);
                subscription.drain();
                continue;
            }
            if (subscription.drain() > 0)
            {
                // Room opened in its queue: its topics may be granted credits again.
                for (int i = 0; i < subscription.attachments.size(); i++)
                {
                    markDirty(subscription.attachments.get(i));
                }
            }
            if (subscription.isTerminated())
            {
                leave(subscription);
            }
        }
        return work;
    }

    private void register(final TopicSubscription subscription)
    {
        int id = nextSubscriptionId;
        while (subscriptions.containsKey(id))
        {
            id = id == Integer.MAX_VALUE ? 1 : id + 1;
        }
        nextSubscriptionId = id == Integer.MAX_VALUE ? 1 : id + 1;
        subscription.id = id;
        subscription.registered = true;
        subscriptions.put(id, subscription);
        final byte[] pattern = subscription.pattern().text().getBytes(StandardCharsets.UTF_8);
        sendOrQueue(frames.writeSubscribe(scratch, 0, id, settings.window(), pattern));
    }

    /** Conductor: the subscription ends here (cancelled or failed): out of its attachments, UNSUBSCRIBE sent. */
    private void leave(final TopicSubscription subscription)
    {
        if (subscription.done)
        {
            return;
        }
        subscription.done = true;
        for (int i = 0; i < subscription.attachments.size(); i++)
        {
            final TopicAttachment attachment = subscription.attachments.get(i);
            final TopicAttachment.Member member = attachment.member(subscription);
            attachment.members.remove(member);
            if (attachment.snapshotMember == member)
            {
                attachment.snapshotMember = null;
            }
        }
        subscription.attachments.clear();
        if (subscription.registered && subscriptions.remove(subscription.id) != null)
        {
            sendOrQueue(frames.writeUnsubscribe(scratch, 0, subscription.id));
        }
    }

    private void fail(final TopicSubscription subscription, final Throwable error)
    {
        leave(subscription);
        subscription.fail(error);
    }

    /** SUBSCRIBE and UNSUBSCRIBE must not be lost or reordered: queued while the outbound ring is full. */
    private void sendOrQueue(final int length)
    {
        if (pendingControl.isEmpty() && link.sendControl(scratch, 0, length))
        {
            return;
        }
        pendingControl.add(Arrays.copyOf(scratch.byteArray(), length));
    }

    private int flushPendingControl()
    {
        int work = 0;
        byte[] frame;
        while ((frame = pendingControl.peek()) != null && link.sendControl(new UnsafeBuffer(frame), 0, frame.length))
        {
            pendingControl.poll();
            work++;
        }
        return work;
    }

    /** Liveness both ways: the publisher's silence, and this side's TOPIC_STATUS heartbeat. */
    private int scan(final long nowNs)
    {
        int work = 0;
        for (int i = attachmentList.size() - 1; i >= 0; i--)
        {
            final TopicAttachment attachment = attachmentList.get(i);
            if (attachment.members.isEmpty())
            {
                continue; // detaching: no status, the publisher's DETACH (or its timeout) ends it
            }
            final long silentNs = nowNs - attachment.lastHeardNs;
            if (silentNs > settings.heartbeatTimeoutNs())
            {
                final PublisherTimeoutException error = new PublisherTimeoutException(attachment.topic,
                    "no frame for topic " + attachment.topic + " from " + link.remoteAddress() + " for " +
                    TimeUnit.NANOSECONDS.toMillis(silentNs) + " ms (topic heartbeat timeout " +
                    TimeUnit.NANOSECONDS.toMillis(settings.heartbeatTimeoutNs()) + " ms)");
                failMembers(attachment, error);
                work++;
                continue;
            }
            if (nowNs - attachment.lastStatusNs >= settings.heartbeatIntervalNs())
            {
                work += sendStatus(attachment, grant(attachment)) ? 1 : 0;
            }
        }
        return work;
    }

    private void markDirty(final TopicAttachment attachment)
    {
        if (!attachment.dirty)
        {
            attachment.dirty = true;
            dirty.add(attachment);
        }
    }

    private int grantDirty()
    {
        int work = 0;
        TopicAttachment attachment;
        while ((attachment = dirty.peek()) != null)
        {
            final long credits = grant(attachment);
            if (credits > 0 && !sendStatus(attachment, credits))
            {
                break; // the outbound ring is full: next cycle
            }
            dirty.poll();
            attachment.dirty = false;
            work += credits > 0 ? 1 : 0;
        }
        return work;
    }

    /**
     * @return credits to grant an attachment now: what keeps its outstanding credits plus the fullest queue of
     * the subscriptions it feeds within a window.
     */
    private long grant(final TopicAttachment attachment)
    {
        if (attachment.members.isEmpty() || attachments.get(attachment.topicId) != attachment)
        {
            return 0;
        }
        final int window = settings.window();
        int queued = 0;
        for (int i = 0; i < attachment.members.size(); i++)
        {
            queued = Math.max(queued, attachment.members.get(i).subscription.queued());
        }
        final long grant = window - attachment.outstanding - queued;
        // Top up once a quarter of the window is used: fewer TOPIC_STATUS frames, and three quarters still in
        // flight cover the round trip, so a subscriber that keeps up never waits for credits.
        if (grant <= 0 || (attachment.outstanding > 0 && grant < Math.max(1, window / 4)))
        {
            return 0;
        }
        return grant;
    }

    private boolean sendStatus(final TopicAttachment attachment, final long credits)
    {
        final int length = frames.writeTopicStatus(scratch, 0, attachment.topicId, attachment.sessionId, (int)credits);
        if (!link.sendControl(scratch, 0, length))
        {
            return false;
        }
        attachment.outstanding += credits;
        attachment.lastStatusNs = nowNs;
        return true;
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
        final TopicDataPath path = dataPath;
        if (path != null && path.isOpen() && isCursorFrame(reader.frameType()))
        {
            // Both ends took each other's offer, so the peer's cursors send on the data path, never here.
            violation(Violation.UNEXPECTED_FRAME, FrameType.name(reader.frameType()) +
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
            violation(Violation.UNEXPECTED_FRAME, FrameType.name(reader.frameType()) +
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
        this.dataPath = path;
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
                return true;
            default:
                return false;
        }
    }

    private void dispatch(final FrameReader reader, final long nowNs)
    {
        this.nowNs = nowNs;
        if (closeCause != null)
        {
            return;
        }
        switch (reader.frameType())
        {
            case FrameType.TOPIC_DATA: onData(reader); return;
            case FrameType.SUBSCRIBE: onSubscribe(reader); return;
            case FrameType.UNSUBSCRIBE: onUnsubscribe(reader.subscriptionId()); return;
            case FrameType.TOPIC_STATUS: onStatus(reader); return;
            case FrameType.TOPIC_ATTACH: onAttach(reader); return;
            case FrameType.TOPIC_SNAPSHOT: onSnapshot(reader); return;
            case FrameType.TOPIC_GAP: onGap(reader); return;
            case FrameType.TOPIC_HEARTBEAT: onHeartbeat(reader); return;
            case FrameType.TOPIC_DETACH: onDetach(reader); return;
            default: violation(Violation.UNEXPECTED_FRAME, "not a topic frame: " + FrameType.name(reader.frameType()));
        }
    }

    /** Reports a broken rule to the connection, which closes. @return false, for the handlers to return. */
    private boolean violation(final Violation reason, final String detail)
    {
        connection.violation(reason, detail);
        return false;
    }

    // Publisher role.

    private boolean onSubscribe(final FrameReader reader)
    {
        final int id = reader.subscriptionId();
        if (served.containsKey(id))
        {
            return violation(Violation.ID_IN_USE, "SUBSCRIBE with subscription id " + id + " which is already in use");
        }
        if (served.size() >= MAX_SUBSCRIPTIONS)
        {
            return violation(Violation.LIMIT_EXCEEDED, "more than " + MAX_SUBSCRIPTIONS + " subscriptions on one connection");
        }
        final TopicPattern pattern;
        try
        {
            pattern = TopicPattern.pattern(reader.text());
        }
        catch (final IllegalArgumentException ex)
        {
            return violation(Violation.INVALID_VALUE, "SUBSCRIBE with an invalid pattern: " + ex.getMessage());
        }
        final Served subscription = new Served(id, pattern, reader.credits());
        served.put(id, subscription);
        final ArrayList<Publication> publications = registry.publications();
        for (int i = 0; i < publications.size(); i++)
        {
            if (pattern.matches(publications.get(i).name()))
            {
                attach(subscription, publications.get(i));
            }
        }
        return true;
    }

    /** Conductor: a new publication on this node; attach it to the peer's matching subscriptions. */
    void onPublicationAdded(final Publication publication)
    {
        if (closeCause != null)
        {
            return;
        }
        for (final Served subscription : served.values())
        {
            if (subscription.pattern.matches(publication.name()))
            {
                attach(subscription, publication);
            }
        }
    }

    private void attach(final Served subscription, final Publication publication)
    {
        if (publication.isClosed())
        {
            return;
        }
        TopicCursor cursor = cursors.get(publication.topicId());
        if (cursor != null)
        {
            if (cursor.tryJoin(subscription.id))
            {
                cursor.members.add(subscription.id);
            }
            else
            {
                // The cursor is ending; a new one takes over once it has sent its TOPIC_DETACH.
                pendingServed.add(subscription);
                pendingPublications.add(publication);
            }
            return;
        }
        cursor = new TopicCursor(this, publication, link, subscription.initialCredits, nowNs);
        final int largestFrame = FrameWriter.topicSnapshotLength(publication.maxMessageLength());
        if (largestFrame > link.maxFrameLength())
        {
            cursor.reject("topic " + publication.topic() + " sends frames of up to " + largestFrame +
                " bytes; this connection accepts " + link.maxFrameLength());
        }
        cursor.tryJoin(subscription.id);
        cursor.members.add(subscription.id);
        cursors.put(publication.topicId(), cursor);
        cursorList.add(cursor);
        publication.engine().addCursor(cursor);
    }

    private void onUnsubscribe(final int id)
    {
        final Served subscription = served.remove(id);
        if (subscription == null)
        {
            return;
        }
        for (int i = 0; i < cursorList.size(); i++)
        {
            final TopicCursor cursor = cursorList.get(i);
            if (cursor.members.remove(id) && cursor.members.isEmpty())
            {
                cursor.requestClose(TopicCursor.CLOSE_UNSUBSCRIBED);
            }
        }
        for (int i = pendingServed.size() - 1; i >= 0; i--)
        {
            if (pendingServed.get(i) == subscription)
            {
                pendingServed.remove(i);
                pendingPublications.remove(i);
            }
        }
    }

    private void onStatus(final FrameReader reader)
    {
        final TopicCursor cursor = cursors.get(reader.topicId());
        if (cursor != null && cursor.publication().sessionId() == reader.sessionId())
        {
            cursor.onStatus(reader.credits(), nowNs);
        }
    }

    private int drainReleasedCursors()
    {
        int work = 0;
        TopicCursor cursor;
        while ((cursor = releasedCursors.poll()) != null)
        {
            work++;
            final Publication publication = cursor.publication();
            if (cursors.get(publication.topicId()) == cursor)
            {
                cursors.remove(publication.topicId());
            }
            cursorList.remove(cursor);
            // Subscriptions that never got their TOPIC_ATTACH from it attach through a new cursor.
            for (final int id : cursor.unjoined())
            {
                final Served subscription = served.get(id);
                if (subscription != null && closeCause == null)
                {
                    attach(subscription, publication);
                }
            }
            for (int i = 0; i < pendingServed.size(); i++)
            {
                if (pendingPublications.get(i) == publication)
                {
                    final Served subscription = pendingServed.remove(i);
                    pendingPublications.remove(i);
                    i--;
                    if (served.get(subscription.id) == subscription)
                    {
                        attach(subscription, publication);
                    }
                }
            }
        }
        return work;
    }

    // Subscriber role.

    private boolean onAttach(final FrameReader reader)
    {
        final int topicId = reader.topicId();
        final String topic = reader.text();
        final TopicPattern name;
        try
        {
            name = TopicPattern.name(topic);
        }
        catch (final IllegalArgumentException ex)
        {
            return violation(Violation.INVALID_VALUE, "TOPIC_ATTACH with an invalid topic name: " + ex.getMessage());
        }
        if (reader.count() > TopicOptions.MAX_KEYS_LIMIT)
        {
            return violation(Violation.LIMIT_EXCEEDED, "TOPIC_ATTACH announces a snapshot of " + reader.count() + " entries, more than " +
                TopicOptions.MAX_KEYS_LIMIT);
        }
        TopicAttachment attachment = attachments.get(topicId);
        if (attachment == null)
        {
            final SlowConsumerPolicy policy = SlowConsumerPolicy.values()[reader.policy()];
            attachment = new TopicAttachment(topicId, topic, reader.sessionId(), policy);
            // The publisher's cursor starts with the credits this side's SUBSCRIBE offered: the window.
            attachment.outstanding = settings.window();
            attachment.lastStatusNs = nowNs;
            attachments.put(topicId, attachment);
            attachmentList.add(attachment);
        }
        else if (attachment.sessionId != reader.sessionId() || !attachment.topic.equals(topic))
        {
            return violation(Violation.ID_IN_USE, "TOPIC_ATTACH for topic id " + topicId + " changes its session or name");
        }
        else if (attachment.snapshotRemaining > 0)
        {
            return violation(Violation.OUT_OF_ORDER, "TOPIC_ATTACH for topic " + topic + " before the previous snapshot ended");
        }
        attachment.lastHeardNs = nowNs;
        final long snapshotSequence = reader.sequence();
        TopicAttachment.Member member = null;
        final TopicSubscription subscription = subscriptions.get(reader.subscriptionId());
        if (subscription != null && !subscription.done)
        {
            if (!subscription.pattern().matches(name))
            {
                return violation(Violation.INVALID_VALUE, "TOPIC_ATTACH of topic " + topic + " to subscription " + subscription.id + " whose pattern " +
                    subscription.pattern() + " does not match it");
            }
            if (attachment.member(subscription) != null)
            {
                return violation(Violation.OUT_OF_ORDER, "TOPIC_ATTACH of topic " + topic + " to subscription " + subscription.id + " twice");
            }
            member = new TopicAttachment.Member(subscription, snapshotSequence);
            attachment.members.add(member);
            subscription.attachments.add(attachment);
            subscription.enqueue(TopicMessage.joined(topic, attachment.sessionId, snapshotSequence, attachment.policy,
                reader.count()));
            markDirty(attachment);
        }
        attachment.snapshotSubscriptionId = reader.subscriptionId();
        attachment.snapshotRemaining = reader.count();
        attachment.snapshotMember = member;
        return true;
    }

    private boolean onSnapshot(final FrameReader reader)
    {
        final TopicAttachment attachment = attachments.get(reader.topicId());
        if (attachment == null)
        {
            return true; // the attachment ended; a late frame
        }
        if (!checkSession(attachment, reader, "TOPIC_SNAPSHOT"))
        {
            return false;
        }
        attachment.lastHeardNs = nowNs;
        final int subscriptionId = reader.subscriptionId();
        if (subscriptionId != 0)
        {
            // A joining subscription's snapshot: no credit, for that subscription only.
            if (attachment.snapshotRemaining <= 0 || attachment.snapshotSubscriptionId != subscriptionId)
            {
                return violation(Violation.OUT_OF_ORDER, "TOPIC_SNAPSHOT for subscription " + subscriptionId + " of topic " + attachment.topic +
                    " outside its snapshot");
            }
            attachment.snapshotRemaining--;
            final TopicAttachment.Member member = attachment.snapshotMember;
            if (member != null)
            {
                member.subscription.enqueue(TopicMessage.data(TopicMessage.Kind.SNAPSHOT, attachment.topic,
                    attachment.sessionId, reader.sequence(), reader.key(), copyData(reader)));
            }
            return true;
        }
        // A conflation catch-up entry: one credit, for every subscription not already past it.
        if (!useCredit(attachment, "TOPIC_SNAPSHOT"))
        {
            return false;
        }
        if (!attachment.inCatchUp)
        {
            return violation(Violation.OUT_OF_ORDER, "catch-up TOPIC_SNAPSHOT for topic " + attachment.topic + " without a TOPIC_GAP");
        }
        final long sequence = reader.sequence();
        TopicMessage message = null;
        for (int i = 0; i < attachment.members.size(); i++)
        {
            final TopicAttachment.Member member = attachment.members.get(i);
            if (sequence > member.lastSequence)
            {
                if (message == null)
                {
                    message = TopicMessage.data(TopicMessage.Kind.SNAPSHOT, attachment.topic, attachment.sessionId,
                        sequence, reader.key(), copyData(reader));
                }
                member.lastSequence = sequence;
                member.subscription.enqueue(message);
            }
        }
        return true;
    }

    private boolean onData(final FrameReader reader)
    {
        final TopicAttachment attachment = attachments.get(reader.topicId());
        if (attachment == null)
        {
            return true; // late frame of an attachment that ended
        }
        if (!checkSession(attachment, reader, "TOPIC_DATA"))
        {
            return false;
        }
        if (!useCredit(attachment, "TOPIC_DATA"))
        {
            return false;
        }
        attachment.lastHeardNs = nowNs;
        if (attachment.inCatchUp)
        {
            // The catch-up is complete: the live stream continues after the gap's last sequence.
            attachment.inCatchUp = false;
            for (int i = 0; i < attachment.members.size(); i++)
            {
                final TopicAttachment.Member member = attachment.members.get(i);
                member.lastSequence = Math.max(member.lastSequence, attachment.catchUpTo);
            }
        }
        final long sequence = reader.sequence();
        TopicMessage message = null;
        for (int i = 0; i < attachment.members.size(); i++)
        {
            final TopicAttachment.Member member = attachment.members.get(i);
            if (sequence <= member.lastSequence)
            {
                continue; // already in this subscription's snapshot: no duplicate across the seam
            }
            if (sequence != member.lastSequence + 1)
            {
                member.subscription.enqueue(TopicMessage.gap(attachment.topic, attachment.sessionId,
                    member.lastSequence + 1, sequence - 1, TopicMessage.GapReason.LOST));
            }
            if (message == null)
            {
                message = TopicMessage.data(TopicMessage.Kind.DATA, attachment.topic, attachment.sessionId, sequence,
                    reader.key(), copyData(reader));
            }
            member.lastSequence = sequence;
            member.subscription.enqueue(message);
        }
        return true;
    }

    private boolean onGap(final FrameReader reader)
    {
        final TopicAttachment attachment = attachments.get(reader.topicId());
        if (attachment == null)
        {
            return true;
        }
        if (!checkSession(attachment, reader, "TOPIC_GAP"))
        {
            return false;
        }
        if (!useCredit(attachment, "TOPIC_GAP"))
        {
            return false;
        }
        attachment.lastHeardNs = nowNs;
        final long to = reader.toSequence();
        final TopicMessage.GapReason reason = reader.reason() == GapReason.CONFLATED.value() ?
            TopicMessage.GapReason.CONFLATED : TopicMessage.GapReason.LOST;
        for (int i = 0; i < attachment.members.size(); i++)
        {
            final TopicAttachment.Member member = attachment.members.get(i);
            if (to > member.lastSequence)
            {
                member.subscription.enqueue(TopicMessage.gap(attachment.topic, attachment.sessionId,
                    Math.max(reader.fromSequence(), member.lastSequence + 1), to, reason));
            }
        }
        if (reason == TopicMessage.GapReason.CONFLATED && reader.count() > 0)
        {
            attachment.inCatchUp = true; // the entries follow; DATA then continues after 'to'
            attachment.catchUpTo = to;
        }
        else
        {
            for (int i = 0; i < attachment.members.size(); i++)
            {
                final TopicAttachment.Member member = attachment.members.get(i);
                member.lastSequence = Math.max(member.lastSequence, to);
            }
        }
        return true;
    }

    private boolean onHeartbeat(final FrameReader reader)
    {
        final TopicAttachment attachment = attachments.get(reader.topicId());
        if (attachment == null)
        {
            return true;
        }
        if (!checkSession(attachment, reader, "TOPIC_HEARTBEAT"))
        {
            return false;
        }
        attachment.lastHeardNs = nowNs;
        return true;
    }

    private boolean onDetach(final FrameReader reader)
    {
        final TopicAttachment attachment = attachments.get(reader.topicId());
        if (attachment == null)
        {
            return true;
        }
        if (!checkSession(attachment, reader, "TOPIC_DETACH"))
        {
            return false;
        }
        attachments.remove(attachment.topicId);
        attachmentList.remove(attachment);
        final long last = reader.sequence();
        final String text = reader.text();
        final int reason = reader.reason();
        if (reason == DetachReason.CLOSED.value())
        {
            for (int i = 0; i < attachment.members.size(); i++)
            {
                final TopicAttachment.Member member = attachment.members.get(i);
                member.subscription.attachments.remove(attachment);
                if (last > member.lastSequence)
                {
                    member.subscription.enqueue(TopicMessage.gap(attachment.topic, attachment.sessionId,
                        member.lastSequence + 1, last, TopicMessage.GapReason.ENDED));
                }
                member.subscription.enqueue(TopicMessage.end(attachment.topic, attachment.sessionId, last));
            }
            attachment.members.clear();
            return true;
        }
        final RivuletException error;
        if (reason == DetachReason.CUT_OFF.value())
        {
            error = new SlowConsumerException(attachment.topic, attachment.sessionId, last,
                "cut off from " + attachment.topic + " (DROP_SLOW): " + text);
        }
        else if (reason == DetachReason.REJECTED.value())
        {
            error = new RejectedException("subscription to " + attachment.topic + " rejected: " + text);
        }
        else if (reason == DetachReason.TIMEOUT.value())
        {
            error = new RivuletException("the publisher of " + attachment.topic + " timed this subscriber out: " + text);
        }
        else
        {
            error = new RivuletException("the publisher of " + attachment.topic + " detached: " + text);
        }
        failMembers(attachment, error);
        return true;
    }

    private void failMembers(final TopicAttachment attachment, final RivuletException error)
    {
        final ArrayList<TopicAttachment.Member> members = new ArrayList<>(attachment.members);
        for (int i = 0; i < members.size(); i++)
        {
            fail(members.get(i).subscription, error);
        }
        attachment.members.clear();
        attachment.snapshotMember = null;
    }

    private boolean checkSession(final TopicAttachment attachment, final FrameReader reader, final String frame)
    {
        if (attachment.sessionId != reader.sessionId())
        {
            return violation(Violation.UNKNOWN_ID, frame + " for topic " + attachment.topic + " with session " + reader.sessionId() +
                " while attached to session " + attachment.sessionId);
        }
        return true;
    }

    private boolean useCredit(final TopicAttachment attachment, final String frame)
    {
        if (attachment.outstanding <= 0)
        {
            return violation(Violation.CREDIT_EXCEEDED, frame + " for topic " + attachment.topic + " beyond the credits granted");
        }
        attachment.outstanding--;
        markDirty(attachment);
        return true;
    }

    private static byte[] copyData(final FrameReader reader)
    {
        final byte[] data = new byte[reader.dataLength()];
        reader.buffer().getBytes(reader.dataOffset(), data);
        return data;
    }

    @Override
    public String toString()
    {
        return "TopicEndpoint{" + link.remoteAddress() + ", serving " + cursorList.size() + " topics, attached to " +
            attachmentList.size() + "}";
    }

    /** What this endpoint's cursors see of the connection: control frames, and data on the link or the data path. */
    private final class Link implements TopicLink
    {
        @Override
        public boolean sendControl(final DirectBuffer buffer, final int offset, final int length)
        {
            return connection.sendControl(buffer, offset, length);
        }

        @Override
        public boolean offer(final DirectBuffer buffer, final int offset, final int length)
        {
            // Sender thread: on the data path once both ends agreed to it, else on the link's send half.
            final TopicDataPath path = dataPath;
            return path != null && path.isOpen() ? path.offer(buffer, offset, length) :
                connection.offer(buffer, offset, length);
        }

        @Override
        public boolean isSending()
        {
            return connection.isSending();
        }

        @Override
        public int maxFrameLength()
        {
            return connection.maxFrameLength();
        }

        @Override
        public String remoteAddress()
        {
            return connection.remoteAddress();
        }
    }
}
