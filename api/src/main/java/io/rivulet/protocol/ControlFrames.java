package io.rivulet.protocol;

import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import org.agrona.DirectBuffer;

import java.util.concurrent.TimeUnit;

/**
 * Conductor: writes one connection's control frames (ERROR, CLOSE, KEEPALIVE, and whole frames from the
 * extensions) into its outbound ring, behind what the streams queued.
 */
final class ControlFrames
{
    /** Longest error or close text sent, in bytes: enough to explain, never a large frame. */
    private static final int MAX_TEXT = 1024;
    private static final byte[] NO_BYTES = new byte[0];

    private final Outbound outbound;

    ControlFrames(final Outbound outbound)
    {
        this.outbound = outbound;
    }

    /** @return false when the connection is closed or the ring has no room now; the caller retries later. */
    boolean copy(final DirectBuffer buffer, final int offset, final int length)
    {
        if (outbound.isClosed())
        {
            return false;
        }
        final int index = outbound.claim(length);
        if (index <= 0)
        {
            return false;
        }
        outbound.ring().buffer().putBytes(index, buffer, offset, length);
        outbound.commit(index);
        return true;
    }

    /** @return false when the ring has no room for the error. */
    boolean error(final int streamId, final ErrorCode code, final String reason)
    {
        final byte[] text = FrameWriter.utf8(reason,
            Math.min(MAX_TEXT, outbound.maxFrameLength() - FrameWriter.errorLength(0)));
        final int index = outbound.claim(FrameWriter.errorLength(text.length));
        if (index <= 0)
        {
            return false;
        }
        Frames.writer().writeError(outbound.ring().buffer(), index, streamId, code, text);
        outbound.commit(index);
        return true;
    }

    void close(final ErrorCode code, final String reason)
    {
        final byte[] text = FrameWriter.utf8(reason,
            Math.min(MAX_TEXT, outbound.maxFrameLength() - FrameWriter.closeLength(0)));
        final int index = outbound.claim(FrameWriter.closeLength(text.length));
        if (index > 0)
        {
            Frames.writer().writeClose(outbound.ring().buffer(), index, code, text);
            outbound.commit(index);
        }
    }

    /**
     * Server: the answer to an accepted SETUP, a SETUP frame of its own with the keepalive it granted and its frame
     * length, and no metadata or data.
     */
    void setupAnswer(final long intervalNs, final long timeoutNs, final int maxFrameLength)
    {
        final int index = outbound.claim(FrameWriter.setupLength(0, 0));
        if (index > 0)
        {
            Frames.writer().writeSetup(outbound.ring().buffer(), index, SetupHandshake.PROTOCOL_VERSION,
                (int)TimeUnit.NANOSECONDS.toMillis(intervalNs), (int)TimeUnit.NANOSECONDS.toMillis(timeoutNs),
                maxFrameLength, NO_BYTES, NO_BYTES);
            outbound.commit(index);
        }
    }

    void keepalive(final boolean respond, final long timestampNs)
    {
        final int index = outbound.claim(FrameWriter.keepaliveLength());
        if (index > 0)
        {
            Frames.writer().writeKeepalive(outbound.ring().buffer(), index, respond, timestampNs);
            outbound.commit(index);
        }
    }
}
