package io.rivulet.topic;

import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.DetachReason;
import io.rivulet.codec.wire.GapReason;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.IntHashSet;

import java.nio.ByteOrder;
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
 * </pre>
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
    private static final long MAX_CREDITS = 1L << 40;

    private final TopicEndpoint endpoint;
    private final Publication publication;
    private final TopicLink link;
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

    TopicCursor(
        final TopicEndpoint endpoint,
        final Publication publication,
        final TopicLink link,
        final int initialCredits,
        final long nowNs)
    {
        this.endpoint = endpoint;
        this.publication = publication;
        this.link = link;
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
            if (catchUp == null)
            {
                work += sendData(nowNs, engine, sender);
            }
        }
        return work + heartbeat(nowNs, engine, sender);
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
