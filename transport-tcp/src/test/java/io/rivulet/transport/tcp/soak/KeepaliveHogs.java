package io.rivulet.transport.tcp.soak;

import io.rivulet.transport.tcp.RawFrames;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Attack (b): authenticated clients whose SETUP asks for a keepalive interval and timeout of about 24.8 days
 * (Integer.MAX_VALUE ms), then say nothing, and do not answer keepalives. A server that adopts that keepalive never
 * hears them missing and holds them (and what each connection costs) for ever; one that clamps it, or times idle
 * connections out, closes them, and they come back at a bounded rate.
 */
final class KeepaliveHogs extends Attack
{
    static final int CONNECTIONS = 200;
    private static final int OPENS_PER_SECOND = 20;

    private final RawFrames frames = new RawFrames();
    private final String token;
    private final Rate opens = new Rate(OPENS_PER_SECOND);
    /** The age of the oldest connection still held, updated about once a second. */
    private volatile long oldestHeldNs;
    private volatile long longestBeforeServerClosedNs;
    private long nextAgeCheckNs;

    KeepaliveHogs(final InetSocketAddress target, final String token)
    {
        super("(b) 24.8-day keepalive", target, SourceRange.of('b'));
        this.token = token;
    }

    @Override
    void tick(final long nowNs)
    {
        final long wanted = CONNECTIONS - open.get();
        for (long i = opens.take(nowNs, Math.max(0, wanted)); i > 0; i--)
        {
            open(nowNs);
        }
        if (nowNs - nextAgeCheckNs >= 0)
        {
            nextAgeCheckNs = nowNs + TimeUnit.SECONDS.toNanos(1);
            long oldest = 0;
            for (final Peer peer : peers())
            {
                oldest = Math.max(oldest, nowNs - peer.openedNs);
            }
            oldestHeldNs = oldest;
        }
    }

    @Override
    void onConnected(final Peer peer, final long nowNs)
    {
        send(peer, frames.setup(token, Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 16 * 1024));
    }

    @Override
    void onClosedByServer(final Peer peer, final long nowNs)
    {
        longestBeforeServerClosedNs = Math.max(longestBeforeServerClosedNs, nowNs - peer.openedNs);
    }

    @Override
    String details()
    {
        return " oldestHeldS=" + TimeUnit.NANOSECONDS.toSeconds(oldestHeldNs) + " longestBeforeServerClosedS=" +
            TimeUnit.NANOSECONDS.toSeconds(longestBeforeServerClosedNs);
    }
}
