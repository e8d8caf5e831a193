package io.rivulet.topic;

import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.DetachReason;
import io.rivulet.codec.wire.GapReason;
import io.rivulet.protocol.datagram.multicast.MulticastReceiverState;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.IntHashSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One subscriber connection's attachment to one publication: its position in the publication's log and
 * the state of what it still owes that connection. Every subscription of the connection that matches the
 * topic shares it (they share the connection, so the receiving side fans each frame out locally).
 *
 * <p>What the cursor sends, in order (every frame goes straight to the connection's link; TOPIC_DATA is
 * offered from the log itself, in runs of records, so the copy into the link is the transport's write):
 *
 * <pre>
 *   per joining subscription:  TOPIC_ATTACH(S)  TOPIC_SNAPSHOT x n (seq &lt;= S)      no credits used
 *   live:                      TOPIC_DATA from its position, one credit each, never beyond the keeper
 *   CONFLATE, when lagging:    TOPIC_GAP(from, to)  TOPIC_SNAPSHOT(subscription 0) x m   one credit each
 *   idle:                      TOPIC_HEARTBEAT every heartbeat interval
 *   at the end:                TOPIC_DETACH(reason, last sequence)
 *   multicast:                 TOPIC_MULTICAST(receiver, position): live data from the group's stream from here on
 *                              TOPIC_MULTICAST(receiver 0): back on this path, from the position the receiver reached
 * </pre>
 *
 * <p><b>Multicast.</b> When the publication has a group and the connection's peer offered to take topic data from
 * groups, a cursor caught up with the keeper hands its subscriber over to the group's stream: it adds a receiver to
 * the stream at its position and sends TOPIC_MULTICAST. From then on it sends no TOPIC_DATA; its position follows
 * what the receiver consumed (by the stream's status messages, on the last checkpoint at or below it), so the log is
 * held, and the slow-consumer policy judged, exactly as for a cursor that sends: DROP_SLOW cuts the subscriber off,
 * CONFLATE takes it back to this path for the catch-up and hands it over again once caught up. A receiver that falls
 * silent, a group that fails, or the subscriber's TOPIC_MULTICAST_LEFT take it back to this path, and a new hand-over
 * waits a back-off.
 *
 * <p>Threading: created and joined by the conductor (which owns {@link #members}); credits and status
 * arrive from the conductor through atomics; everything else, and the decision to release, belongs to the
 * sender thread. Joins and the close request meet the release under the cursor's lock: control path only.
 */
final class TopicCursor
{
    /** {@link #requestClose(int)}: end without a frame (the connection is closing). */
    static final int CLOSE_SILENTLY = -1;
    /** {@link #requestClose(int)}: no subscription of the connection matches any more. */
    static final int CLOSE_UNSUBSCRIBED = 1;

    private static final int FRAMES_PER_CYCLE = 256;
    private static final LastValueTable.Entry[] NONE = new LastValueTable.Entry[0];
    private static final byte[] NO_BYTES = new byte[0];
    private static final long MAX_CREDITS = 1L << 40;
    private static final Logger LOG = LoggerFactory.getLogger(TopicCursor.class);
    /** First wait before a hand-over is tried again after a fall-back; doubled each time, up to a minute. */
    private static final long HANDOVER_BACKOFF_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long HANDOVER_BACKOFF_MAX_NS = TimeUnit.MINUTES.toNanos(1);

    private final TopicEndpoint endpoint;
    private final Publication publication;
    private final TopicLink link;
    private final TopicConnection connection;
    private final int topicId;
    private final int sessionId;
    private final byte[] topicName;

    /** Conductor: the subscriptions of the connection attached through this cursor. */
    final IntHashSet members = new IntHashSet();

    private final AtomicLong credits = new AtomicLong();
    private final IntArrayList joins = new IntArrayList();
    private volatile boolean hasJoins;
    private volatile long lastStatusNs;
    private volatile int closeReason;
    private volatile boolean released;
    private volatile String rejectReason;
    /** Joins the cursor never got to (it ended first): the conductor attaches them through a new cursor. */
    private int[] unjoined;
    /** Conductor to sender thread: the subscriber's TOPIC_MULTICAST_LEFT (its receiver id, what it consumed, why). */
    private volatile int leftReceiverId;
    private volatile long leftPosition;
    private volatile String leftReason;

    // Sender thread.
    private long position;
    private long lastSentSequence;
    private long lastSentNs;
    /** When a message (not a heartbeat) last went out: a closed publication waits for a subscriber still taking them. */
    private long lastProgressNs;
    private LastValueTable.Entry[] joinEntries;
    private int joinIndex;
    private int joinSubscriptionId;
    private long joinSequence;
    private boolean joinAttachSent;
    private boolean conflatePending;
    private LastValueTable.Entry[] catchUp;
    private int catchUpIndex;
    private boolean gapSent;
    private long gapFrom;
    private long gapTo;
    private int detachReason;
    private long detachSequence;
    private byte[] detachMessage;
    /** The receiver its subscriber is while it takes the group's stream; null while this cursor sends. */
    private MulticastReceiverState receiver;
    /** A TOPIC_MULTICAST(receiver 0) is owed: the subscriber is taken back to this path. */
    private boolean stopPending;
    private long handoverAfterNs;
    private long handoverBackoffNs = HANDOVER_BACKOFF_NS;
    private long handovers;

    TopicCursor(
        final TopicEndpoint endpoint,
        final Publication publication,
        final TopicConnection connection,
        final int initialCredits,
        final long nowNs)
    {
        this.endpoint = endpoint;
        this.publication = publication;
        this.connection = connection;
        this.link = connection.link();
        this.topicId = publication.topicId();
        this.sessionId = publication.sessionId();
        this.topicName = FrameWriter.utf8(publication.topic(), Integer.MAX_VALUE);
        this.credits.set(initialCredits);
        this.lastStatusNs = nowNs;
    }

    // ------------------------------------------------------------------------------------ conductor

    Publication publication()
    {
        return publication;
    }

    TopicEndpoint endpoint()
    {
        return endpoint;
    }

    /**
     * Conductor: queues a subscription's join (a TOPIC_ATTACH and its snapshot).
     *
     * @return false when the cursor is closing or released: the caller attaches through a new cursor.
     */
    synchronized boolean tryJoin(final int subscriptionId)
    {
        if (released || closeReason != 0)
        {
            return false;
        }
        joins.addInt(subscriptionId);
        hasJoins = true;
        return true;
    }

    /** Conductor: the cursor should end ({@link #CLOSE_UNSUBSCRIBED} or {@link #CLOSE_SILENTLY}). */
    synchronized void requestClose(final int reason)
    {
        if (closeReason == 0 || reason == CLOSE_SILENTLY)
        {
            closeReason = reason;
        }
    }

    /** Conductor, before the cursor is started: it attaches, then detaches at once with REJECTED. */
    void reject(final String reason)
    {
        rejectReason = reason;
    }

    /** Conductor: TOPIC_STATUS from the subscriber. */
    void onStatus(final int grantedCredits, final long nowNs)
    {
        lastStatusNs = nowNs;
        if (grantedCredits > 0 && credits.get() < MAX_CREDITS)
        {
            credits.addAndGet(grantedCredits);
        }
    }

    boolean isReleased()
    {
        return released;
    }

    /** Conductor: the subscriber stopped taking the group's stream (TOPIC_MULTICAST_LEFT). */
    void onMulticastLeft(final int receiverId, final long position, final String reason)
    {
        leftPosition = position;
        leftReason = reason;
        leftReceiverId = receiverId; // last: the sender thread reads it first
    }

    // ------------------------------------------------------------------------------------ sender thread

    /** Sender thread: joins the log at the keeper's position. */
    void start(final long keeperPosition, final long keeperSequence, final long nowNs)
    {
        position = keeperPosition;
        lastSentSequence = keeperSequence;
        lastSentNs = nowNs;
        lastProgressNs = nowNs;
    }

    /** @return the position in the log this cursor still needs: it gates the publisher. */
    long position()
    {
        return position;
    }

    /**
     * Sender thread: sends what is due.
     *
     * @return work done.
     */
    int send(final long nowNs, final PublicationEngine engine, final TopicSender sender)
    {
        if (released)
        {
            return 0;
        }
        if (closeReason == CLOSE_SILENTLY || !link.isSending())
        {
            release();
            return 1;
        }
        if (detachReason == 0)
        {
            checkEnd(nowNs, engine);
        }
        if (detachReason != 0)
        {
            return sendDetach(sender);
        }

        // Acting on a lagging cursor comes first, even mid-snapshot: it must not hold the writer for longer.
        if (engine.policy() != SlowConsumerPolicy.BLOCK && engine.published() - position > engine.lagThreshold())
        {
            onLagging(engine);
            if (detachReason != 0)
            {
                return sendDetach(sender);
            }
        }

        int work = 0;
        if (joinEntries == null && hasJoins)
        {
            takeJoin(engine);
        }
        if (joinEntries != null)
        {
            work += sendJoin(nowNs, sender);
            if (joinEntries != null)
            {
                return work; // the rest of the snapshot first: nothing may overtake it
            }
            if (rejectReason != null)
            {
                detach(DetachReason.REJECTED, lastSentSequence, rejectReason);
                return work + sendDetach(sender);
            }
        }

        if (receiver != null)
        {
            work += followMulticast(nowNs, engine);
        }
        if (stopPending)
        {
            // Before anything else on this path: the subscriber must close its image before data comes here again.
            if (!sendStop(sender))
            {
                return work;
            }
            work++;
        }

        if (conflatePending && credits.get() > 0)
        {
            startCatchUp(engine);
        }
        if (!conflatePending)
        {
            if (catchUp != null)
            {
                work += sendCatchUp(nowNs, sender);
            }
            if (catchUp == null && receiver == null)
            {
                work += sendData(nowNs, engine, sender);
                if (position == engine.keeperPosition())
                {
                    work += handOver(nowNs, engine, sender);
                }
            }
        }
        return work + heartbeat(nowNs, engine, sender);
    }

    // ------------------------------------------------------------------------------------ multicast (sender thread)

    /** Caught up with the keeper: hands the subscriber over to the group's stream when both sides can. */
    private int handOver(final long nowNs, final PublicationEngine engine, final TopicSender sender)
    {
        final PublicationMulticast multicast = engine.multicast();
        final TopicConnection.PeerMulticast peer = connection.peerMulticast();
        if (multicast == null || peer == null || !multicast.isReady() || nowNs - handoverAfterNs < 0 || hasJoins ||
            joinEntries != null || rejectReason != null || peer.handle == -2)
        {
            return 0;
        }
        if (publication.capacity() > peer.maxImage)
        {
            return 0; // the subscriber node mirrors smaller logs only: it stays on this path
        }
        if (peer.handle == -1)
        {
            try
            {
                peer.handle = multicast.resolve(peer.address, peer.remoteHost);
            }
            catch (final RuntimeException ex)
            {
                peer.handle = -2;
                LOG.warn("topic {} to {}: the subscriber's multicast address {} cannot be reached; it stays on its " +
                    "connection: {}", publication.topic(), link.remoteAddress(), peer.address, ex.getMessage());
                return 0;
            }
        }
        final MulticastReceiverState added = multicast.addReceiver(peer.handle, peer.tag, position, nowNs);
        final int length = sender.frames().writeTopicMulticast(sender.scratch(), 0, topicId, sessionId, added.id(),
            multicast.stream().sessionId(), publication.capacity(), position, multicast.groupBytes(),
            multicast.sourceBytes());
        if (!offer(sender, sender.scratch(), length))
        {
            multicast.removeReceiver(added);
            return 0;
        }
        receiver = added;
        handovers++;
        return 1;
    }

    /**
     * While the subscriber takes the group's stream: the position follows what it consumed; a silent receiver, a failed
     * group or the subscriber's own word take it back to this path.
     */
    private int followMulticast(final long nowNs, final PublicationEngine engine)
    {
        final PublicationMulticast multicast = engine.multicast();
        final int left = leftReceiverId;
        if (left != 0 && left == receiver.id())
        {
            fallBack(nowNs, engine, leftPosition, false, "the subscriber left the group: " + leftReason);
            return 1;
        }
        if (receiver.state() == MulticastReceiverState.TIMED_OUT)
        {
            fallBack(nowNs, engine, receiver.consumed(), true, "no status message from its receiver for " +
                TimeUnit.NANOSECONDS.toMillis(nowNs - receiver.lastStatusNs()) + " ms");
            return 1;
        }
        if (multicast.isFailed())
        {
            fallBack(nowNs, engine, receiver.consumed(), true, "the group failed");
            return 1;
        }
        return standOn(engine, receiver.consumed(), nowNs) ? 1 : 0;
    }

    /**
     * Moves the position up to the last record boundary at or below what the receiver says it consumed.
     *
     * @return true when it moved.
     */
    private boolean standOn(final PublicationEngine engine, final long consumed, final long nowNs)
    {
        final long keeper = engine.keeperPosition();
        long boundary;
        long sequence;
        if (consumed >= keeper)
        {
            boundary = keeper;
            sequence = engine.keeperSequence();
        }
        else
        {
            final PublicationMulticast multicast = engine.multicast();
            final int checkpoint = multicast.checkpointAtOrBelow(consumed);
            if (checkpoint < 0)
            {
                return false;
            }
            boundary = multicast.checkpointPosition(checkpoint);
            sequence = multicast.checkpointSequence(checkpoint);
        }
        if (boundary <= position)
        {
            return false;
        }
        position = boundary;
        lastSentSequence = sequence;
        lastProgressNs = nowNs;
        return true;
    }

    /** Takes the subscriber back to this path, from where its receiver got to; the next hand-over waits a back-off. */
    private void fallBack(
        final long nowNs, final PublicationEngine engine, final long consumed, final boolean notify, final String reason)
    {
        engine.multicast().removeReceiver(receiver);
        receiver = null;
        stopPending = notify;
        standOn(engine, consumed, nowNs);
        handoverAfterNs = nowNs + handoverBackoffNs;
        handoverBackoffNs = Math.min(2 * handoverBackoffNs, HANDOVER_BACKOFF_MAX_NS);
        LOG.info("topic {} to {}: back on the connection from position {}: {}", publication.topic(),
            link.remoteAddress(), position, reason);
    }

    private boolean sendStop(final TopicSender sender)
    {
        final int length = sender.frames().writeTopicMulticast(sender.scratch(), 0, topicId, sessionId, 0, 0, 0, 0,
            NO_BYTES, NO_BYTES);
        if (!offer(sender, sender.scratch(), length))
        {
            return false;
        }
        stopPending = false;
        return true;
    }

    /** @return how often this cursor handed its subscriber over to the group. */
    long handovers()
    {
        return handovers;
    }

    /** @return true while its subscriber takes the group's stream. */
    boolean isMulticast()
    {
        return receiver != null;
    }

    /** Decides whether the attachment ends: unsubscribed, subscriber silent, or publication closed and drained. */
    private void checkEnd(final long nowNs, final PublicationEngine engine)
    {
        if (closeReason == CLOSE_UNSUBSCRIBED)
        {
            detach(DetachReason.UNSUBSCRIBED, lastSentSequence, "no subscription on this connection matches any more");
            return;
        }
        final long silentNs = nowNs - lastStatusNs;
        if (silentNs > engine.settings().heartbeatTimeoutNs())
        {
            detach(DetachReason.TIMEOUT, lastSentSequence, "no TOPIC_STATUS from " + link.remoteAddress() + " for " +
                TimeUnit.NANOSECONDS.toMillis(silentNs) + " ms");
            return;
        }
        final long closedSinceNs = engine.closedSinceNs();
        if (closedSinceNs >= 0)
        {
            final boolean drained = joinEntries == null && !hasJoins && catchUp == null && !conflatePending &&
                position == engine.keeperPosition() && engine.keeperPosition() == engine.published();
            // A subscriber still taking messages is waited for; one that took none for a heartbeat timeout is not.
            if (drained || nowNs - Math.max(closedSinceNs, lastProgressNs) > engine.settings().heartbeatTimeoutNs())
            {
                detach(DetachReason.CLOSED, engine.keeperSequence(), "publication closed");
            }
        }
    }

    private void onLagging(final PublicationEngine engine)
    {
        final long behind = engine.published() - position;
        if (engine.policy() == SlowConsumerPolicy.DROP_SLOW)
        {
            engine.onSlowConsumer();
            detach(DetachReason.CUT_OFF, lastSentSequence, "subscriber " + link.remoteAddress() + " fell " + behind +
                " bytes behind (log capacity " + publication.capacity() + "); last sent sequence " + lastSentSequence +
                " of " + engine.keeperSequence());
            return;
        }
        if (!conflatePending)
        {
            engine.onSlowConsumer();
        }
        if (receiver != null)
        {
            // The catch-up goes on this path: the subscriber leaves the group's stream first, and is handed over
            // again once caught up (no back-off: it was slow, not unreachable).
            engine.multicast().removeReceiver(receiver);
            receiver = null;
            stopPending = true;
        }
        // CONFLATE: stop holding the publisher; what was skipped is sent as the latest value per key once the
        // subscriber grants credits again.
        conflatePending = true;
        catchUp = null;
        position = engine.keeperPosition();
    }

    private void startCatchUp(final PublicationEngine engine)
    {
        conflatePending = false;
        position = engine.keeperPosition();
        gapFrom = lastSentSequence + 1;
        gapTo = engine.keeperSequence();
        if (gapTo >= gapFrom)
        {
            catchUp = engine.snapshot(lastSentSequence);
            catchUpIndex = 0;
            gapSent = false;
        }
    }

    private int sendCatchUp(final long nowNs, final TopicSender sender)
    {
        long budget = credits.get();
        int work = 0;
        final MutableDirectBuffer scratch = sender.scratch();
        if (!gapSent)
        {
            if (budget <= 0)
            {
                return 0;
            }
            final int length = sender.frames().writeTopicGap(scratch, 0, topicId, sessionId, gapFrom, gapTo,
                GapReason.CONFLATED.value(), catchUp.length);
            if (!offer(sender, scratch, length))
            {
                return 0;
            }
            gapSent = true;
            budget--;
            work++;
        }
        while (catchUpIndex < catchUp.length && budget > 0 && work < FRAMES_PER_CYCLE)
        {
            final LastValueTable.Entry entry = catchUp[catchUpIndex];
            final int length = sender.frames().writeTopicSnapshot(scratch, 0, 0, topicId, sessionId, entry.sequence(),
                entry.key(), sender.view(entry.data()), 0, entry.data().length);
            if (!offer(sender, scratch, length))
            {
                break;
            }
            lastSentSequence = entry.sequence();
            catchUpIndex++;
            budget--;
            work++;
        }
        if (work > 0)
        {
            credits.addAndGet(-work);
            lastSentNs = nowNs;
            lastProgressNs = nowNs;
        }
        if (catchUpIndex == catchUp.length)
        {
            lastSentSequence = gapTo;
            catchUp = null;
        }
        return work;
    }

    private void takeJoin(final PublicationEngine engine)
    {
        final int subscriptionId;
        synchronized (this)
        {
            if (joins.isEmpty())
            {
                hasJoins = false;
                return;
            }
            subscriptionId = joins.removeAt(0);
            hasJoins = !joins.isEmpty();
        }
        joinSubscriptionId = subscriptionId;
        joinSequence = engine.keeperSequence();
        joinEntries = rejectReason != null ? NONE : engine.snapshot(0);
        joinIndex = 0;
        joinAttachSent = false;
    }

    private int sendJoin(final long nowNs, final TopicSender sender)
    {
        int work = 0;
        final MutableDirectBuffer scratch = sender.scratch();
        if (!joinAttachSent)
        {
            final int length = sender.frames().writeTopicAttach(scratch, 0, joinSubscriptionId, topicId, sessionId,
                publication.options().policy().ordinal(), joinSequence, joinEntries.length, topicName);
            if (!offer(sender, scratch, length))
            {
                return 0;
            }
            joinAttachSent = true;
            work++;
        }
        while (joinIndex < joinEntries.length && work < FRAMES_PER_CYCLE)
        {
            final LastValueTable.Entry entry = joinEntries[joinIndex];
            final int length = sender.frames().writeTopicSnapshot(scratch, 0, joinSubscriptionId, topicId, sessionId,
                entry.sequence(), entry.key(), sender.view(entry.data()), 0, entry.data().length);
            if (!offer(sender, scratch, length))
            {
                break;
            }
            joinIndex++;
            work++;
        }
        if (joinIndex == joinEntries.length)
        {
            joinEntries = null;
        }
        if (work > 0)
        {
            lastSentNs = nowNs;
            lastProgressNs = nowNs;
        }
        return work;
    }

    /**
     * Offers TOPIC_DATA frames straight from the log, in runs: the records between two skips (or the end of the
     * ring) are the link's wire format already, so each run is one {@link TopicLink#offerRun} and one copy.
     */
    private int sendData(final long nowNs, final PublicationEngine engine, final TopicSender sender)
    {
        final long budget = credits.get();
        if (budget <= 0)
        {
            return 0;
        }
        final MutableDirectBuffer log = engine.log();
        final int mask = engine.mask();
        final int capacity = mask + 1;
        final long end = engine.keeperPosition();
        int sent = 0;
        int sentBytes = 0;
        int lastFrame = -1;
        int work = 0;
        while (position < end && sent < budget && work < FRAMES_PER_CYCLE)
        {
            final int runStart = (int)(position & mask);
            final int skip = LogRecords.frameLengthAt(log, runStart, capacity);
            if (skip < 0)
            {
                position -= skip;
                work++;
                continue;
            }
            // The run: whole records from here until a skip, the end of the ring, the keeper or the budget.
            int runEnd = runStart;
            int runFrames = 0;
            int runLastFrame = runStart;
            final long runLimit = Math.min(end - position, capacity - runStart);
            while (runEnd - runStart < runLimit && sent + runFrames < budget && work + runFrames < FRAMES_PER_CYCLE)
            {
                final int frameLength = LogRecords.frameLengthAt(log, runEnd, capacity);
                if (frameLength < 0)
                {
                    break;
                }
                runLastFrame = runEnd + LogRecords.HEADER_LENGTH;
                runEnd = runLastFrame + frameLength;
                runFrames++;
            }
            final int runLength = runEnd - runStart;
            final int taken = link.offerRun(log, runStart, runLength); // encoded once, for every subscriber
            if (taken == runLength)
            {
                lastFrame = runLastFrame;
                sentBytes += runLength - runFrames * LogRecords.HEADER_LENGTH;
                sent += runFrames;
                work += runFrames;
                position += runLength;
                continue;
            }
            // The link took the run's first frames only: count them, and go on next cycle.
            for (int index = runStart; index < runStart + taken; )
            {
                final int frameLength = LogRecords.frameLengthAt(log, index, capacity);
                lastFrame = index + LogRecords.HEADER_LENGTH;
                sentBytes += frameLength;
                sent++;
                work++;
                index = lastFrame + frameLength;
                if (index > runStart + taken)
                {
                    throw new IllegalStateException("the link to " + link.remoteAddress() + " took " + taken +
                        " bytes of a run, which ends inside a frame: a link takes whole frames only");
                }
            }
            position += taken;
            break;
        }
        if (sent > 0)
        {
            // Once per batch, not per frame: the last frame sent is still in the log (this thread moves the
            // writer's limit only after every cursor sent).
            lastSentSequence = log.getLong(lastFrame + FrameWriter.TOPIC_DATA_SEQUENCE_OFFSET, ByteOrder.LITTLE_ENDIAN);
            sender.onSent(sent, sentBytes);
            credits.addAndGet(-sent);
            lastSentNs = nowNs;
            lastProgressNs = nowNs;
        }
        return work;
    }

    private int heartbeat(final long nowNs, final PublicationEngine engine, final TopicSender sender)
    {
        if (nowNs - lastSentNs < engine.settings().heartbeatIntervalNs())
        {
            return 0;
        }
        final int length = sender.frames().writeTopicHeartbeat(sender.scratch(), 0, topicId, sessionId,
            engine.keeperSequence());
        if (offer(sender, sender.scratch(), length))
        {
            lastSentNs = nowNs;
            return 1;
        }
        return 0;
    }

    private boolean offer(final TopicSender sender, final MutableDirectBuffer buffer, final int length)
    {
        if (link.offer(buffer, 0, length))
        {
            sender.onSent(1, length);
            return true;
        }
        return false;
    }

    private void detach(final DetachReason reason, final long lastSequence, final String message)
    {
        detachReason = reason.value();
        detachSequence = lastSequence;
        detachMessage = FrameWriter.utf8(message, 200); // the frame fits the smallest frame a peer accepts
    }

    private int sendDetach(final TopicSender sender)
    {
        final int length = sender.frames().writeTopicDetach(sender.scratch(), 0, topicId, sessionId, detachSequence,
            detachReason, detachMessage);
        if (!offer(sender, sender.scratch(), length))
        {
            return 0;
        }
        release();
        return 1;
    }

    private void release()
    {
        if (receiver != null)
        {
            // Nothing to send: the subscriber side closes its image with the attachment (DETACH or the connection).
            publication.engine().multicast().removeReceiver(receiver);
            receiver = null;
        }
        synchronized (this)
        {
            released = true;
            final boolean inProgress = joinEntries != null && !joinAttachSent;
            unjoined = new int[joins.size() + (inProgress ? 1 : 0)];
            for (int i = 0; i < joins.size(); i++)
            {
                unjoined[i] = joins.getInt(i);
            }
            if (inProgress)
            {
                unjoined[unjoined.length - 1] = joinSubscriptionId;
            }
            joins.clear();
        }
        joinEntries = null;
        catchUp = null;
        endpoint.onCursorReleased(this);
    }

    /** Conductor, once released: the subscriptions whose TOPIC_ATTACH was never sent. */
    synchronized int[] unjoined()
    {
        return unjoined;
    }

    @Override
    public String toString()
    {
        return "TopicCursor{" + publication.topic() + " -> " + link.remoteAddress() + ", position=" + position +
            ", lastSent=" + lastSentSequence + ", credits=" + credits.get() + "}";
    }
}
