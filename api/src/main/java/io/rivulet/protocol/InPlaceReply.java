package io.rivulet.protocol;

import io.rivulet.Message;
import io.rivulet.MessageTooLargeException;
import io.rivulet.RequestHandler;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import io.rivulet.codec.wire.ErrorCode;
import org.agrona.DirectBuffer;

/**
 * The answer a {@link RequestHandler} gives to one request, in place: one instance per connection, on the conductor,
 * pointed at each request's stream for the length of its handler's call. A reply that fits one frame is encoded
 * straight into the outbound ring; the rare rest — a reply longer than a frame, a ring that is full, an error —
 * goes through a {@link StreamWriter}, which fragments and parks as for reactive replies (and allocates).
 */
final class InPlaceReply implements RequestHandler.Reply
{
    private final Outbound outbound;
    private final int maxMessageLength;
    private final int maxSingleFrameReply;
    private int streamId;
    private boolean open;
    private boolean answered;

    /**
     * @param outbound         the connection's ring.
     * @param maxMessageLength longest message the peer accepts.
     */
    InPlaceReply(final Outbound outbound, final int maxMessageLength)
    {
        this.outbound = outbound;
        this.maxMessageLength = maxMessageLength;
        this.maxSingleFrameReply = outbound.maxFrameLength() - FrameWriter.payloadFrameOverhead(FrameType.PAYLOAD);
    }

    /** Conductor: the next handler call answers this stream. */
    void begin(final int streamId)
    {
        this.streamId = streamId;
        this.open = true;
        this.answered = false;
    }

    /** Conductor: the handler returned. @return true when it answered. */
    boolean end()
    {
        open = false;
        return answered;
    }

    @Override
    public void send(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > maxMessageLength)
        {
            // Before answering: the handler may still answer otherwise (else its request fails with this message).
            throw new MessageTooLargeException("reply of " + length + " bytes exceeds the maximum of " +
                maxMessageLength);
        }
        answer();
        final byte flags = FrameFlags.NEXT | FrameFlags.COMPLETE;
        if (length <= maxSingleFrameReply &&
            outbound.offerPayloadFrame(FrameType.PAYLOAD, streamId, flags, buffer, offset, length))
        {
            return;
        }
        final byte[] data = new byte[length];
        buffer.getBytes(offset, data);
        writer().sendMessage(FrameType.PAYLOAD, 0, flags, Message.of(data));
    }

    @Override
    public void sendEmpty()
    {
        answer();
        if (!outbound.offerPayloadFrame(FrameType.PAYLOAD, streamId, FrameFlags.COMPLETE, null, 0, 0))
        {
            writer().sendMessage(FrameType.PAYLOAD, 0, FrameFlags.COMPLETE, null);
        }
    }

    @Override
    public void sendError(final String message)
    {
        answer();
        error(ErrorCode.APPLICATION_ERROR, String.valueOf(message));
    }

    /** Conductor: ends the stream with an error of this code (a handler that failed, or that did not answer). */
    void error(final ErrorCode code, final String message)
    {
        writer().sendError(code, message);
    }

    private void answer()
    {
        if (!open)
        {
            throw new IllegalStateException("a request's reply is valid only during its handler's call");
        }
        if (answered)
        {
            throw new IllegalStateException("request on stream " + streamId + " is answered already");
        }
        answered = true;
    }

    private StreamWriter writer()
    {
        final StreamWriter writer = new StreamWriter(outbound);
        writer.streamId(streamId);
        return writer;
    }
}
