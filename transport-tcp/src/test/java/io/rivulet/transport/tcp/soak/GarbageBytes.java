package io.rivulet.transport.tcp.soak;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Attack (f): bytes that are not the protocol, at a bounded rate, in four shapes: random bytes; a length prefix of
 * almost 2 GiB; a small length prefix before a body that is not a frame; a frame cut short, then silence. Each
 * connection waits for the server to close it, and gives up after ten seconds.
 */
final class GarbageBytes extends Attack
{
    private static final int PER_SECOND = 20;
    private static final int MAX_IN_FLIGHT = 100;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    private final Rate attempts = new Rate(PER_SECOND);
    private long sent;

    GarbageBytes(final InetSocketAddress target)
    {
        super("(f) garbage bytes", target, SourceRange.of('f'));
    }

    @Override
    void tick(final long nowNs)
    {
        for (long i = attempts.take(nowNs, Math.max(0, MAX_IN_FLIGHT - open.get())); i > 0; i--)
        {
            open(nowNs);
        }
        for (final Peer peer : peers())
        {
            if (nowNs - peer.openedNs > WAIT_NS)
            {
                count("notClosedByServer", 1);
                close(peer, true);
            }
        }
    }

    @Override
    void onConnected(final Peer peer, final long nowNs)
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final byte[] bytes = new byte[random.nextInt(1024, 4097)];
        random.nextBytes(bytes);
        final ByteBuffer framing = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final int shape = (int)(sent++ % 4);
        switch (shape)
        {
            case 1 -> framing.putInt(0, 0x7FFF_FFF0);
            case 2 -> framing.putInt(0, 100);
            case 3 ->
            {
                framing.putInt(0, 64);
                send(peer, Arrays.copyOf(bytes, 4 + 32)); // half a frame, then nothing
                count("cutShort", 1);
                return;
            }
            default ->
            {
                // random, length prefix included
            }
        }
        send(peer, bytes);
        count("shape" + shape, 1);
    }
}
