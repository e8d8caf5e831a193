package io.rivulet.transport.tcp.soak;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.transport.tcp.RawFrames;

import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Attack (a), the memory attack: authenticated connections that open many request streams and send each a
 * fragmented message that never ends (every frame has FOLLOWS; the last fragment never comes), round robin, at a
 * bounded byte rate. Each stream's partial message stays below the 16 MiB message limit for the run, so only a
 * budget across streams and connections stops the server holding all of it.
 */
final class FragmentFlood extends Attack
{
    static final int CONNECTIONS = 32;
    static final int STREAMS = 32;
    static final int CHUNK = 8 * 1024;
    private static final int OPENS_PER_SECOND = 10;
    /** Stop feeding a connection whose unsent bytes reach this: the server is not reading it. */
    private static final int MAX_PENDING = 4 * CHUNK;

    private final RawFrames frames = new RawFrames();
    private final String token;
    private final Rate opens = new Rate(OPENS_PER_SECOND);
    private final Rate bytes;
    private final byte[] chunk = new byte[CHUNK];

    /** Per connection: which streams have started, and whose turn it is. */
    private static final class Streams
    {
        final boolean[] started = new boolean[STREAMS];
        int next;
    }

    FragmentFlood(final InetSocketAddress target, final String token, final long bytesPerSecond)
    {
        super("(a) endless fragments", target, SourceRange.of('a'));
        this.token = token;
        this.bytes = new Rate(bytesPerSecond);
        ThreadLocalRandom.current().nextBytes(chunk);
    }

    @Override
    void tick(final long nowNs)
    {
        if (open.get() < CONNECTIONS && opens.take(nowNs, 1) > 0)
        {
            open(nowNs);
        }
        long budget = bytes.take(nowNs, CONNECTIONS * 2L * CHUNK);
        for (final Peer peer : peers())
        {
            if (budget < CHUNK)
            {
                break;
            }
            if (!peer.connected || peer.pendingBytes() >= MAX_PENDING)
            {
                continue;
            }
            final Streams streams = (Streams)peer.state;
            final int index = streams.next;
            streams.next = (index + 1) % STREAMS;
            final int streamId = 2 * index + 1; // the client's ids are odd
            final boolean first = !streams.started[index];
            streams.started[index] = true;
            send(peer, frames.payloadFrame(first ? FrameType.REQUEST_RESPONSE : FrameType.PAYLOAD, streamId, 0,
                FrameFlags.FOLLOWS, chunk));
            budget -= CHUNK;
            count("fragments", 1);
            if (first)
            {
                count("streams", 1);
            }
        }
    }

    @Override
    void onConnected(final Peer peer, final long nowNs)
    {
        peer.state = new Streams();
        send(peer, frames.setup(token, 10_000, 60_000, 16 * 1024));
    }
}
