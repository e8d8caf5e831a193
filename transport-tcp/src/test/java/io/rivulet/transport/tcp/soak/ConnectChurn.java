package io.rivulet.transport.tcp.soak;

import java.net.InetSocketAddress;

/**
 * Attack (d): connect and close at once, at a bounded rate, half with FIN and half with RST, so the server accepts
 * links that are gone before they say anything.
 */
final class ConnectChurn extends Attack
{
    private static final int PER_SECOND = 50;
    private static final int MAX_IN_FLIGHT = 50;

    private final Rate cycles = new Rate(PER_SECOND);
    private long count;

    ConnectChurn(final InetSocketAddress target)
    {
        super("(d) connect/close", target, SourceRange.of('d'));
    }

    @Override
    void tick(final long nowNs)
    {
        for (long i = cycles.take(nowNs, Math.max(0, MAX_IN_FLIGHT - open.get())); i > 0; i--)
        {
            open(nowNs);
        }
    }

    @Override
    void onConnected(final Peer peer, final long nowNs)
    {
        close(peer, (count++ & 1) == 0);
        count("cycles", 1);
    }
}
