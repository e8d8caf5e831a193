package io.rivulet.protocol;

import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayList;

/**
 * One connection's open streams by id, on the conductor: allocates this side's ids (odd on the client, even on
 * the server, skipping ids in use after a wrap) and counts the streams the peer opened apart from this side's
 * requests, because each has its own limit.
 */
final class StreamTable
{
    private final Int2ObjectHashMap<ProtocolStream> streams = new Int2ObjectHashMap<>();
    private final boolean client;
    private int nextStreamId;
    /** Streams the peer opened that are in the table; the rest are this side's requests. */
    private int peerStreams;

    StreamTable(final boolean client)
    {
        this.client = client;
        this.nextStreamId = firstId();
    }

    /** @return a free id of this side's parity. */
    int allocate()
    {
        int id = nextStreamId;
        while (streams.containsKey(id))
        {
            id = advance(id);
        }
        nextStreamId = advance(id);
        return id;
    }

    /** @return true when the id belongs to this side's parity: the peer may not open a stream with it. */
    boolean isOwnId(final int streamId)
    {
        return (streamId & 1) == (client ? 1 : 0);
    }

    ProtocolStream get(final int streamId)
    {
        return streams.get(streamId);
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

    /** @return this side's open requests. */
    int ownStreams()
    {
        return streams.size() - peerStreams;
    }

    /** Empties the table (the connection is closing). @return the streams it held, to terminate. */
    ArrayList<ProtocolStream> removeAll()
    {
        final ArrayList<ProtocolStream> live = new ArrayList<>(streams.values());
        streams.clear();
        peerStreams = 0;
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
