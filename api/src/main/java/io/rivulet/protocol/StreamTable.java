package io.rivulet.protocol;

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
 */
final class StreamTable
{
    private final Int2ObjectHashMap<ProtocolStream> streams = new Int2ObjectHashMap<>();
    private final boolean client;
    private final Runnable adoptAnnounced;
    /** Streams opened on application threads, not yet in the table; linked through ProtocolStream.nextAnnounced. */
    private final AtomicReference<ProtocolStream> announced = new AtomicReference<>();
    /** This side's ids in use (in the table or announced); guarded by itself. */
    private final IntHashSet ownIds = new IntHashSet();
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
            if (ownIds.size() >= limit)
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
        while (ownIds.contains(id))
        {
            id = advance(id);
        }
        nextStreamId = advance(id);
        return id;
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

    /** @return true when no stream is open either way. */
    boolean isEmpty()
    {
        return streams.isEmpty();
    }

    /** @return the streams the peer opened. */
    int peerStreams()
    {
        return peerStreams;
    }

    /** @return this side's open requests, announced ones included. */
    int ownStreams()
    {
        synchronized (ownIds)
        {
            return ownIds.size();
        }
    }

    /** Empties the table (the connection is closing). @return the streams it held, to terminate. */
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
