package io.rivulet.transport.tcp.soak;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Attack (c): connections that send nothing at all, not even SETUP. The server's SETUP timeout should close each;
 * they come back at a bounded rate.
 */
final class SilentSockets extends Attack
{
    static final int CONNECTIONS = 200;
    private static final int OPENS_PER_SECOND = 50;

    private final Rate opens = new Rate(OPENS_PER_SECOND);

    SilentSockets(final InetSocketAddress target)
    {
        super("(c) silent sockets", target, SourceRange.of('c'));
    }

    @Override
    void tick(final long nowNs)
    {
        final long wanted = CONNECTIONS - open.get();
        for (long i = opens.take(nowNs, Math.max(0, wanted)); i > 0; i--)
        {
            open(nowNs);
        }
    }

    @Override
    void onClosedByServer(final Peer peer, final long nowNs)
    {
        count("heldMsTotal", TimeUnit.NANOSECONDS.toMillis(nowNs - peer.openedNs));
    }

    @Override
    String details()
    {
        final long closed = closedByServer.get();
        return " meanHeldBeforeServerClosedMs=" + (closed == 0 ? "-" : Long.toString(counter("heldMsTotal") / closed));
    }
}
