package io.rivulet.protocol;

import io.rivulet.ReplyHandler;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;

import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One connection's open streams by id: allocates this side's ids (odd on the client, even on the server, skipping
 * ids in use after a wrap) and counts the streams the peer opened apart from this side's requests, because each has
 * its own limit.
 *
 * <p>Threading: the table itself is the conductor's. Two things may come from any thread, so that a requester can
 * open its stream on the caller's thread without a conductor command (issue 16): {@link #allocateOwn} (a short lock
 * over this side's ids in use) and {@link #announce}, which queues a stream opened on another thread without
 * allocating (an intrusive stack); the conductor adopts the queued streams through the callback given at creation
 * before it acts on signals, and whenever a frame names one of this side's ids it does not know yet (the reply can
 * be read in the same cycle the request was written).
 *
 * <p>Zero-copy requests ({@code Connection.offerRequest}) have no {@link ProtocolStream}: a pooled
 * {@link PendingReply} waits for each reply, under the same lock as this side's ids, so that any thread can open
 * one and the conductor can take it with the reply, or a caller with a cancel, exactly once.
 */
final class StreamTable
{
    private final Int2ObjectHashMap<ProtocolStream> streams = new Int2ObjectHashMap<>();
    private final boolean client;
    private final Runnable adoptAnnounced;
    /** Streams opened on application threads, not yet in the table; linked through ProtocolStream.nextAnnounced. */
    private final AtomicReference<ProtocolStream> announced = new AtomicReference<>();
    /**
     * This side's ids in use by streams (in the table or announced) and by cancelled zero-copy requests whose CANCEL
     * has not gone out yet; guarded by itself, the lock of everything this side's ids touch.
     */
    private final IntHashSet ownIds = new IntHashSet();
    /** Zero-copy requests waiting for their replies, by stream id; their ids are in use too; guarded by ownIds. */
    private final PendingReplies replies = new PendingReplies();
    /** Spare entries for {@link #replies}, linked through nextFree; guarded by ownIds. */
    private PendingReply spareReplies;
    /** Set under the lock when the connection closed: no reply can wait any more. */
    private boolean repliesClosed;
    /** {@code replies.size()}, for readers that do not take the lock. */
    private volatile int pendingReplies;
    private int nextStreamId;
    /** Streams the peer opened that are in the table; the rest are this side's requests. */
    private int peerStreams;

    StreamTable(final boolean client)
    {
        this(client, () -> { });
    }

    /**
     * @param client         true on the connecting side (odd ids).
     * @param adoptAnnounced conductor: adopts what {@link #takeAnnounced()} returns into the table.
     */
    StreamTable(final boolean client, final Runnable adoptAnnounced)
    {
        this.client = client;
        this.adoptAnnounced = adoptAnnounced;
        this.nextStreamId = firstId();
    }

    /**
     * Any thread: a free id of this side's parity for a stream that will be put in the table, counted against
     * {@code limit} until it is removed.
     *
     * @return the id, or 0 when {@code limit} of this side's streams are already open.
     */
    int allocateOwn(final int limit)
    {
        synchronized (ownIds)
        {
            if (ownIds.size() + replies.size() >= limit)
            {
                return 0;
            }
            final int id = nextFree();
            ownIds.add(id);
            return id;
        }
    }

    /** Any thread: an id of this side's parity not in use now, for frames of a stream kept in no table. */
    int allocate()
    {
        synchronized (ownIds)
        {
            return nextFree();
        }
    }

    /** Any thread: gives back an id from {@link #allocateOwn} whose stream never reached the table. */
    void release(final int streamId)
    {
        synchronized (ownIds)
        {
            ownIds.remove(streamId);
        }
    }

    private int nextFree()
    {
        int id = nextStreamId;
        // An id whose pending-reply slot holds an older request is skipped as if in use: its request could not wait.
        while (ownIds.contains(id) || !replies.isSlotFree(id))
        {
            id = advance(id);
        }
        nextStreamId = advance(id);
        return id;
    }

    /** Tests: the next id to hand out, as on a connection that has opened about that many streams. */
    void skipIdsTo(final int id)
    {
        synchronized (ownIds)
        {
            nextStreamId = id;
        }
    }

    /** Any thread: a stream with an id from {@link #allocateOwn} waits for the conductor to adopt it. */
    void announce(final ProtocolStream stream)
    {
        ProtocolStream head;
        do
        {
            head = announced.get();
            stream.nextAnnounced = head;
        }
        while (!announced.compareAndSet(head, stream));
    }

    /** Conductor: the announced streams, linked through {@code nextAnnounced}, or null. */
    ProtocolStream takeAnnounced()
    {
        return announced.get() == null ? null : announced.getAndSet(null);
    }

    /**
     * Any thread: a free id for a zero-copy request, with its handler waiting for the reply from now on. Allocates
     * nothing once the pool is warm.
     *
     * @return the entry, or null when {@code limit} of this side's requests are open already or the connection
     *         closed ({@link #repliesClosed()} tells which).
     */
    PendingReply openReply(final int limit, final ReplyHandler handler, final long sentNs)
    {
        synchronized (ownIds)
        {
            if (repliesClosed || ownIds.size() + replies.size() >= limit)
            {
                return null;
            }
            final int id = nextFree();
            PendingReply reply = spareReplies;
            if (reply != null)
            {
                spareReplies = reply.nextFree;
                reply.nextFree = null;
            }
            else
            {
                reply = new PendingReply();
            }
            reply.streamId = id;
            reply.handler = handler;
            reply.sentNs = sentNs;
            replies.put(reply);
            pendingReplies = replies.size();
            return reply;
        }
    }

    /** Any thread: true once {@link #takeAllReplies()} ran (the connection closed). */
    boolean repliesClosed()
    {
        synchronized (ownIds)
        {
            return repliesClosed;
        }
    }

    /** Conductor: the zero-copy request waiting under this id, left in the table (a fragment of its reply came). */
    PendingReply reply(final int streamId)
    {
        if (pendingReplies == 0)
        {
            return null;
        }
        synchronized (ownIds)
        {
            return replies.get(streamId);
        }
    }

    /**
     * Any thread: takes the zero-copy request waiting under this id out of the table; the taker alone settles it.
     *
     * @param releaseId true when the id is free again at once (the reply came); false when a frame must still go out
     *                  on it (a cancel), after which {@link #release} frees it.
     * @return the entry, or null when none waits under the id (taken already, or never opened).
     */
    PendingReply takeReply(final int streamId, final boolean releaseId)
    {
        if (pendingReplies == 0)
        {
            return null;
        }
        synchronized (ownIds)
        {
            final PendingReply reply = replies.remove(streamId);
            if (reply != null)
            {
                pendingReplies = replies.size();
                if (!releaseId)
                {
                    ownIds.add(streamId); // in use until release(), after the CANCEL
                }
            }
            return reply;
        }
    }

    /** Any thread: an entry its taker is done with goes back to the pool. */
    void recycle(final PendingReply reply)
    {
        reply.handler = null;
        reply.reassembly = null;
        synchronized (ownIds)
        {
            reply.nextFree = spareReplies;
            spareReplies = reply;
        }
    }

    /** Conductor, closing: every zero-copy request still waiting, to end; none can be opened from now on. */
    ArrayList<PendingReply> takeAllReplies()
    {
        synchronized (ownIds)
        {
            repliesClosed = true;
            final ArrayList<PendingReply> waiting = new ArrayList<>(replies.size());
            replies.removeAll(waiting);
            pendingReplies = 0;
            return waiting;
        }
    }

    /** @return true when the id belongs to this side's parity: the peer may not open a stream with it. */
    boolean isOwnId(final int streamId)
    {
        return (streamId & 1) == (client ? 1 : 0);
    }

    ProtocolStream get(final int streamId)
    {
        final ProtocolStream stream = streams.get(streamId);
        if (stream == null && isOwnId(streamId) && announced.get() != null)
        {
            adoptAnnounced.run();
            return streams.get(streamId);
        }
        return stream;
    }

    boolean contains(final int streamId)
    {
        return streams.containsKey(streamId);
    }

    /** Registers a stream under its id; a peer's stream counts towards {@link #peerStreams()}. */
    void put(final int streamId, final ProtocolStream stream)
    {
        streams.put(streamId, stream);
        if (isPeerStream(stream))
        {
            peerStreams++;
        }
    }

    /** Removes the stream if the table still holds it under its id. */
    void remove(final ProtocolStream stream)
    {
        final int id = stream.streamId();
        if (id != 0 && streams.get(id) == stream)
        {
            streams.remove(id);
            stream.releaseMemory();
            if (isPeerStream(stream))
            {
                peerStreams--;
            }
            else
            {
                release(id);
            }
        }
    }

    /** @return true when no stream is open either way, and no zero-copy request waits for its reply. */
    boolean isEmpty()
    {
        return streams.isEmpty() && pendingReplies == 0;
    }

    /** @return the streams the peer opened. */
    int peerStreams()
    {
        return peerStreams;
    }

    /** @return this side's open requests, announced ones and zero-copy ones included. */
    int ownStreams()
    {
        synchronized (ownIds)
        {
            return ownIds.size() + replies.size();
        }
    }

    /**
     * Empties the table (the connection is closing); zero-copy requests are taken apart ({@link #takeAllReplies()},
     * first). @return the streams it held, to terminate.
     */
    ArrayList<ProtocolStream> removeAll()
    {
        final ArrayList<ProtocolStream> live = new ArrayList<>(streams.values());
        streams.clear();
        peerStreams = 0;
        synchronized (ownIds)
        {
            ownIds.clear();
        }
        return live;
    }

    private static boolean isPeerStream(final ProtocolStream stream)
    {
        return stream.kind().ordinal() >= ProtocolStream.Kind.RESPONDER_RESPONSE.ordinal();
    }

    private int advance(final int id)
    {
        final int next = id + 2;
        return next > 0 ? next : firstId();
    }

    private int firstId()
    {
        return client ? 1 : 2;
    }
}
