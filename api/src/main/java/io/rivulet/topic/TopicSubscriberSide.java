package io.rivulet.topic;

import io.rivulet.RejectedException;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.DetachReason;
import io.rivulet.codec.wire.GapReason;
import io.rivulet.protocol.datagram.multicast.MulticastReceiver;
import io.rivulet.protocol.datagram.multicast.MulticastReceivers;
import io.rivulet.spi.Violation;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The subscriber side of one connection's topic layer (as Aeron's {@code PublicationImage} is of a remote
 * publication), on the conductor thread: this side's {@code subscribe(pattern)} calls (SUBSCRIBE /
 * UNSUBSCRIBE), and a {@link TopicAttachment} per topic the peer attached (TOPIC_ATTACH, TOPIC_SNAPSHOT,
 * TOPIC_DATA, TOPIC_GAP, TOPIC_HEARTBEAT, TOPIC_DETACH), which fans each frame out to the subscriptions it
 * feeds, checks sequences, grants credits (TOPIC_STATUS) and watches the publisher's heartbeat.
 *
 * <p><b>Credits.</b> An attachment keeps its outstanding credits plus the undelivered items of the fullest
 * subscription it feeds within {@code window}: a subscriber's request(n) bounds what it is handed, at most a
 * window per topic waits for it, and one that stops requesting stops its topics' flow (BLOCK holds the
 * publisher; DROP_SLOW cuts the subscriber off, and the cut-off reaches it without demand; CONFLATE skips it
 * ahead). TOPIC_DATA, TOPIC_GAP and catch-up
 * TOPIC_SNAPSHOT frames use a credit each; a frame beyond the credits is a protocol violation.
 *
 * <p><b>The seam.</b> A subscription joining at snapshot sequence S is handed the snapshot, then only
 * sequences above S; any other gap in the sequence is handed over as a GAP item, never dropped silently.
 *
 * <p><b>Multicast.</b> On a node that takes topic data from groups, a topic's publisher may hand its live data over
 * to a group's stream (TOPIC_MULTICAST): the attachment then gets TOPIC_DATA from an image of that stream
 * ({@link TopicMulticastImage}), in order and once, without credits (the stream's flow control replaces them), while
 * snapshots, gaps, heartbeats and the detach still come over the connection. An image whose group cannot be joined,
 * or that hears nothing from it for {@code rivulet.multicast.timeout}, is closed and the publisher told
 * (TOPIC_MULTICAST_LEFT), so the data comes over the connection again; TOPIC_MULTICAST with receiver 0 takes it back
 * the same way at the publisher's word.
 *
 * <p>Thread-safety: {@link #signal} from any thread; everything else on the conductor.
 */
final class TopicSubscriberSide
{
    private static final Logger LOG = LoggerFactory.getLogger(TopicSubscriberSide.class);

    private final TopicRegistry registry;
    private final TopicConnection connection;
    private final TopicSettings settings;
    private final FrameWriter frames = new FrameWriter();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);
    /** The view a DATA item goes to handlers in (conductor; reused). */
    private final TopicItem inPlaceItem = new TopicItem();
    private final long scanIntervalNs;
    private final Int2ObjectHashMap<TopicSubscription> subscriptions = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<TopicAttachment> attachments = new Int2ObjectHashMap<>();
    private final ArrayList<TopicAttachment> attachmentList = new ArrayList<>();
    private final ManyToOneConcurrentLinkedQueue<TopicSubscription> signals = new ManyToOneConcurrentLinkedQueue<>();
    private final ArrayDeque<TopicAttachment> dirty = new ArrayDeque<>();
    private int nextSubscriptionId = 1;
    private long nextScanNs;

    TopicSubscriberSide(final TopicRegistry registry, final TopicConnection connection, final TopicSettings settings)
    {
        this.registry = registry;
        this.connection = connection;
        this.settings = settings;
        this.scanIntervalNs = Math.max(TimeUnit.MICROSECONDS.toNanos(100), settings.heartbeatIntervalNs() / 4);
    }

    /** Any thread: a subscription has something for the conductor. */
    void signal(final TopicSubscription subscription)
    {
        signals.offer(subscription);
        if (connection.isClosed())
        {
            registry.execute(this::processSignals); // no more duty cycles for this connection: answer on the conductor
        }
    }

    /** @return whether this side has subscriptions on the peer, attached or waiting for a topic to match. */
    boolean hasSubscriptions()
    {
        return !subscriptions.isEmpty() || !attachmentList.isEmpty();
    }

    /** @return topics the peer attached, for messages. */
    int attachmentCount()
    {
        return attachmentList.size();
    }

    /** Conductor: the connection is closing; every subscription ends with the cause. */
    void close()
    {
        final Throwable cause = connection.closeCause();
        final ArrayList<TopicSubscription> live = new ArrayList<>(subscriptions.values());
        for (int i = 0; i < attachmentList.size(); i++)
        {
            closeImage(attachmentList.get(i));
        }
        subscriptions.clear();
        attachments.clear();
        attachmentList.clear();
        dirty.clear();
        connection.clearPendingControl();
        for (int i = 0; i < live.size(); i++)
        {
            final TopicSubscription subscription = live.get(i);
            subscription.done = true;
            subscription.attachments.clear();
            subscription.fail(cause);
        }
        processSignals();
    }

    // ---------------------------------------------------------------------------------- conductor: duty

    /** Conductor: subscriptions that signalled: registered, drained, left. @return subscriptions handled. */
    int processSignals()
    {
        int work = 0;
        TopicSubscription subscription;
        while ((subscription = signals.poll()) != null)
        {
            subscription.clearSignal();
            work++;
            final Throwable closeCause = connection.closeCause();
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
        connection.sendOrQueue(scratch, frames.writeSubscribe(scratch, 0, id, settings.window(), pattern));
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
            subscription.attachments.get(i).removeMember(subscription);
        }
        subscription.attachments.clear();
        if (subscription.registered && subscriptions.remove(subscription.id) != null)
        {
            connection.sendOrQueue(scratch, frames.writeUnsubscribe(scratch, 0, subscription.id));
        }
    }

    private void fail(final TopicSubscription subscription, final Throwable error)
    {
        leave(subscription);
        subscription.fail(error);
    }

    /** Conductor: liveness, every quarter heartbeat interval (at least 100 us). @return work done. */
    int scanIfDue(final long nowNs)
    {
        if (nowNs - nextScanNs >= 0)
        {
            nextScanNs = nowNs + scanIntervalNs;
            return scan(nowNs);
        }
        return 0;
    }

    /** Liveness both ways: the publisher's silence, and this side's TOPIC_STATUS heartbeat. */
    private int scan(final long nowNs)
    {
        int work = 0;
        for (int i = attachmentList.size() - 1; i >= 0; i--)
        {
            final TopicAttachment attachment = attachmentList.get(i);
            if (attachment.image != null)
            {
                work += watchImage(attachment, nowNs);
            }
            if (attachment.members.isEmpty())
            {
                continue; // detaching: no status, the publisher's DETACH (or its timeout) ends it
            }
            final long silentNs = nowNs - attachment.lastHeardNs;
            if (silentNs > settings.heartbeatTimeoutNs())
            {
                final PublisherTimeoutException error = new PublisherTimeoutException(attachment.topic,
                    "no frame for topic " + attachment.topic + " from " + connection.link().remoteAddress() +
                    " for " + TimeUnit.NANOSECONDS.toMillis(silentNs) + " ms (topic heartbeat timeout " +
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

    /** Conductor: TOPIC_STATUS for the attachments whose credits may have changed. @return frames sent. */
    int grantDirty()
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
        if (!connection.link().sendControl(scratch, 0, length))
        {
            return false;
        }
        attachment.outstanding += credits;
        attachment.lastStatusNs = connection.nowNs();
        return true;
    }

    // ------------------------------------------------------------------------------ conductor: frames
    boolean onAttach(final FrameReader reader)
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
            return connection.violation(Violation.INVALID_VALUE,
                "TOPIC_ATTACH with an invalid topic name: " + ex.getMessage());
        }
        if (reader.count() > TopicOptions.MAX_KEYS_LIMIT)
        {
            return connection.violation(Violation.LIMIT_EXCEEDED, "TOPIC_ATTACH announces a snapshot of " +
                reader.count() + " entries, more than " + TopicOptions.MAX_KEYS_LIMIT);
        }
        TopicAttachment attachment = attachments.get(topicId);
        if (attachment == null)
        {
            final SlowConsumerPolicy policy = SlowConsumerPolicy.values()[reader.policy()];
            attachment = new TopicAttachment(topicId, topic, reader.sessionId(), policy);
            // The publisher's cursor starts with the credits this side's SUBSCRIBE offered: the window.
            attachment.outstanding = settings.window();
            attachment.lastStatusNs = connection.nowNs();
            attachments.put(topicId, attachment);
            attachmentList.add(attachment);
        }
        else if (attachment.sessionId != reader.sessionId() || !attachment.topic.equals(topic))
        {
            return connection.violation(Violation.ID_IN_USE,
                "TOPIC_ATTACH for topic id " + topicId + " changes its session or name");
        }
        else if (attachment.snapshotRemaining > 0)
        {
            return connection.violation(Violation.OUT_OF_ORDER,
                "TOPIC_ATTACH for topic " + topic + " before the previous snapshot ended");
        }
        attachment.lastHeardNs = connection.nowNs();
        final long snapshotSequence = reader.sequence();
        TopicAttachment.Member member = null;
        final TopicSubscription subscription = subscriptions.get(reader.subscriptionId());
        if (subscription != null && !subscription.done)
        {
            if (!subscription.pattern().matches(name))
            {
                return connection.violation(Violation.INVALID_VALUE, "TOPIC_ATTACH of topic " + topic +
                    " to subscription " + subscription.id + " whose pattern " + subscription.pattern() +
                    " does not match it");
            }
            if (attachment.member(subscription) != null)
            {
                return connection.violation(Violation.OUT_OF_ORDER,
                    "TOPIC_ATTACH of topic " + topic + " to subscription " + subscription.id + " twice");
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

    boolean onSnapshot(final FrameReader reader)
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
        attachment.lastHeardNs = connection.nowNs();
        final int subscriptionId = reader.subscriptionId();
        if (subscriptionId != 0)
        {
            // A joining subscription's snapshot: no credit, for that subscription only.
            if (attachment.snapshotRemaining <= 0 || attachment.snapshotSubscriptionId != subscriptionId)
            {
                return connection.violation(Violation.OUT_OF_ORDER, "TOPIC_SNAPSHOT for subscription " +
                    subscriptionId + " of topic " + attachment.topic + " outside its snapshot");
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
            return connection.violation(Violation.OUT_OF_ORDER,
                "catch-up TOPIC_SNAPSHOT for topic " + attachment.topic + " without a TOPIC_GAP");
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

    boolean onData(final FrameReader reader)
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
        deliverData(attachment, reader);
        return true;
    }

    /** A TOPIC_DATA of the attachment's group stream, validated: no credit, the stream's flow control holds it. */
    void onMulticastData(final TopicAttachment attachment, final FrameReader reader)
    {
        if (connection.closeCause() == null)
        {
            deliverData(attachment, reader);
        }
    }

    /** @return true while every subscription the attachment feeds has room for another item (else the image waits). */
    boolean canTake(final TopicAttachment attachment)
    {
        for (int i = 0; i < attachment.members.size(); i++)
        {
            if (attachment.members.get(i).subscription.queued() >= settings.window())
            {
                return false;
            }
        }
        return true;
    }

    /** Hands one TOPIC_DATA to every member not already past it, a GAP first where its sequence jumps. */
    private void deliverData(final TopicAttachment attachment, final FrameReader reader)
    {
        attachment.lastHeardNs = connection.nowNs();
        if (attachment.inCatchUp)
        {
            // The catch-up is complete: the live stream continues after the gap's last sequence.
            attachment.inCatchUp = false;
            attachment.skipTo(attachment.catchUpTo);
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
            if (member.subscription.takesInPlace())
            {
                // A TopicHandler: the frame's bytes in place, no message and no copy (issue 16).
                member.lastSequence = sequence;
                member.subscription.deliverInPlace(inPlaceItem.wrapData(attachment.topic, attachment.sessionId,
                    sequence, reader.key(), reader.buffer(), reader.dataOffset(), reader.dataLength()));
                continue;
            }
            if (message == null)
            {
                message = TopicMessage.data(TopicMessage.Kind.DATA, attachment.topic, attachment.sessionId, sequence,
                    reader.key(), copyData(reader));
            }
            member.lastSequence = sequence;
            member.subscription.enqueue(message);
        }
    }

    boolean onGap(final FrameReader reader)
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
        attachment.lastHeardNs = connection.nowNs();
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
            attachment.skipTo(to);
        }
        return true;
    }

    boolean onHeartbeat(final FrameReader reader)
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
        attachment.lastHeardNs = connection.nowNs();
        return true;
    }

    boolean onDetach(final FrameReader reader)
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
        closeImage(attachment);
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
        if (reason == DetachReason.CUT_OFF.value())
        {
            // At once, whatever each subscriber requested: one that is cut off is one that stopped requesting.
            final ArrayList<TopicAttachment.Member> members = new ArrayList<>(attachment.members);
            attachment.members.clear();
            attachment.snapshotMember = null;
            for (int i = 0; i < members.size(); i++)
            {
                final TopicSubscription subscription = members.get(i).subscription;
                leave(subscription);
                subscription.cutOff(attachment.topic, attachment.sessionId, last,
                    "cut off from " + attachment.topic + " (DROP_SLOW): " + text);
            }
            return true;
        }
        final RivuletException error;
        if (reason == DetachReason.REJECTED.value())
        {
            error = new RejectedException("subscription to " + attachment.topic + " rejected: " + text);
        }
        else if (reason == DetachReason.TIMEOUT.value())
        {
            error = new RivuletException(
                "the publisher of " + attachment.topic + " timed this subscriber out: " + text);
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

    // ------------------------------------------------------------------------------ conductor: multicast

    /** Right after SETUP, on a node that takes topic data from groups: MULTICAST_OFFER, so publishers may hand over. */
    void offerMulticast()
    {
        final MulticastReceivers plane = registry.multicastReceivers();
        if (plane == null)
        {
            return;
        }
        final byte[] address = plane.localAddress().getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameWriter.multicastOfferLength(address.length)]);
        final int length = frames.writeMulticastOffer(frame, 0, registry.multicastSettings().receiverTag(),
            registry.multicastSettings().maxImage(), address);
        connection.sendOrQueue(frame, length);
    }

    /** TOPIC_MULTICAST: the topic's live data comes from a group's stream from a position on, or back here (receiver 0). */
    boolean onMulticast(final FrameReader reader)
    {
        final TopicAttachment attachment = attachments.get(reader.topicId());
        if (attachment == null)
        {
            return true; // the attachment ended; a late frame
        }
        if (!checkSession(attachment, reader, "TOPIC_MULTICAST"))
        {
            return false;
        }
        attachment.lastHeardNs = connection.nowNs();
        if (reader.receiverId() == 0)
        {
            closeImage(attachment); // the publisher's cursor sends over the connection again
            return true;
        }
        final MulticastReceivers plane = registry.multicastReceivers();
        if (plane == null)
        {
            return connection.violation(Violation.UNEXPECTED_FRAME, "TOPIC_MULTICAST for topic " + attachment.topic +
                " to a node that offered no multicast");
        }
        if (attachment.image != null)
        {
            return connection.violation(Violation.OUT_OF_ORDER, "TOPIC_MULTICAST for topic " + attachment.topic +
                " while its data already comes from a group");
        }
        final int receiverId = reader.receiverId();
        final long position = reader.position();
        final int maxImage = registry.multicastSettings().maxImage();
        if (reader.logCapacity() > maxImage)
        {
            sendLeft(attachment, receiverId, position, "its log of " + reader.logCapacity() + " bytes is larger than " +
                "rivulet.multicast.maxImage " + maxImage);
            return true;
        }
        final String group = reader.groupText();
        final TopicMulticastImage consumer = new TopicMulticastImage(this, attachment);
        try
        {
            attachment.image = plane.open(group, reader.text(), connection.remoteHost(), reader.streamSessionId(),
                receiverId, reader.logCapacity(), position, settings.maxFrameLength(), consumer);
            attachment.receiverId = receiverId;
        }
        catch (final IllegalArgumentException ex)
        {
            sendLeft(attachment, receiverId, position, "cannot take group " + group + ": " + ex.getMessage());
        }
        return true;
    }

    /** Every scan: an image whose group failed or fell silent goes, and its data comes over the connection again. */
    private int watchImage(final TopicAttachment attachment, final long nowNs)
    {
        final MulticastReceiver image = attachment.image;
        final String failure = registry.multicastReceivers().failure(image);
        if (failure != null)
        {
            leaveGroup(attachment, "cannot join the group: " + failure);
            return 1;
        }
        if (image.isSilent(nowNs))
        {
            leaveGroup(attachment, "nothing from the group for " +
                TimeUnit.NANOSECONDS.toMillis(registry.multicastSettings().timeoutNs()) + " ms");
            return 1;
        }
        return 0;
    }

    private void leaveGroup(final TopicAttachment attachment, final String reason)
    {
        final long consumed = attachment.image.consumed();
        final int receiverId = attachment.receiverId;
        closeImage(attachment);
        LOG.warn("topic {} from {}: its data comes over the connection again: {}", attachment.topic,
            connection.link().remoteAddress(), reason);
        sendLeft(attachment, receiverId, consumed, reason);
    }

    private void sendLeft(final TopicAttachment attachment, final int receiverId, final long position, final String reason)
    {
        final byte[] text = FrameWriter.utf8(reason, FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameWriter.topicMulticastLeftLength(text.length)]);
        final int length = frames.writeTopicMulticastLeft(frame, 0, attachment.topicId, attachment.sessionId, receiverId,
            position, text);
        connection.sendOrQueue(frame, length);
    }

    private void closeImage(final TopicAttachment attachment)
    {
        if (attachment.image != null)
        {
            registry.multicastReceivers().close(attachment.image);
            attachment.image = null;
            attachment.receiverId = 0;
        }
    }

    /** The group's stream broke the rules (a malformed or foreign frame, a broken record): the connection closes. */
    void onCorruptStream(final TopicAttachment attachment, final String reason)
    {
        if (attachment.image != null)
        {
            attachment.image.fail();
        }
        connection.violation(Violation.MALFORMED_FRAME, "topic " + attachment.topic + ": " + reason);
    }

    private boolean checkSession(final TopicAttachment attachment, final FrameReader reader, final String frame)
    {
        if (attachment.sessionId != reader.sessionId())
        {
            return connection.violation(Violation.UNKNOWN_ID, frame + " for topic " + attachment.topic +
                " with session " + reader.sessionId() + " while attached to session " + attachment.sessionId);
        }
        return true;
    }

    private boolean useCredit(final TopicAttachment attachment, final String frame)
    {
        if (attachment.outstanding <= 0)
        {
            return connection.violation(Violation.CREDIT_EXCEEDED,
                frame + " for topic " + attachment.topic + " beyond the credits granted");
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
}
