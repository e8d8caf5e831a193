package io.rivulet.transport.tcp.soak;

import io.rivulet.transport.tcp.RawFrames;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Attack (e): SETUPs with wrong tokens at a bounded rate, spread over the source addresses, each connection closed
 * once the server answered. Counts the answers: a plain refusal ("token not accepted"), a refusal because the address
 * is backing off ("too many failed authentications"), or anything else.
 */
final class WrongTokens extends Attack
{
    private static final int PER_SECOND = 20;
    private static final int MAX_IN_FLIGHT = 100;
    private static final long ANSWER_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private final RawFrames frames = new RawFrames();
    private final Rate attempts = new Rate(PER_SECOND);
    private long guesses;

    WrongTokens(final InetSocketAddress target)
    {
        super("(e) wrong tokens", target, SourceRange.of('e'));
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
            if (nowNs - peer.openedNs > ANSWER_TIMEOUT_NS)
            {
                count("unanswered", 1);
                close(peer, false);
            }
        }
    }

    @Override
    void onConnected(final Peer peer, final long nowNs)
    {
        send(peer, frames.setup("guess-" + guesses++, 1_000, 5_000, 16 * 1024));
    }

    @Override
    void onData(final Peer peer, final ByteBuffer data, final long nowNs)
    {
        final String text = peer.replies.lastText();
        if (text == null)
        {
            return; // no ERROR yet
        }
        if (text.contains("too many failed authentications"))
        {
            count("backedOff", 1);
        }
        else if (text.contains("token not accepted"))
        {
            count("refused", 1);
        }
        else
        {
            count("otherAnswer", 1);
        }
        close(peer, false);
    }
}
