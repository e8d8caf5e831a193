package io.rivulet.protocol;

import io.rivulet.Connection;
import io.rivulet.ConnectionClosedException;
import io.rivulet.RejectedException;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameHeader;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.FrameHandler;
import io.rivulet.spi.Violation;
import org.agrona.DirectBuffer;

/**
 * Every frame one connection reads from its link, on the conductor, decoded once and dispatched by type: SETUP
 * to the handshake until it is done, stream frames to {@link InboundStreams}, KEEPALIVE, CLOSE and connection
 * ERROR to the connection's own parts, and the frame types an extension claimed to that extension. A frame that
 * does not decode, or that no one here takes, is a protocol violation.
 */
final class InboundDispatcher implements FrameHandler
{
    private final FrameReader reader;
    private final Connection api;
    private final SetupHandshake setup;
    private final InboundStreams streams;
    private final Keepalive keepalive;
    private final ConnectionClose close;
    private final ConnectionExtensions extensions;
    private final ConnectionCounters counters;
    private final String remoteAddress;
    /** Null unless {@link FrameLogger} was at DEBUG when the connection was created. */
    private final FrameLogger receivedFrames;
    private long nowNs;

    InboundDispatcher(
        final FrameReader reader,
        final Connection api,
        final SetupHandshake setup,
        final InboundStreams streams,
        final Keepalive keepalive,
        final ConnectionClose close,
        final ConnectionExtensions extensions,
        final ConnectionCounters counters,
        final String remoteAddress,
        final FrameLogger receivedFrames)
    {
        this.reader = reader;
        this.api = api;
        this.setup = setup;
        this.streams = streams;
        this.keepalive = keepalive;
        this.close = close;
        this.extensions = extensions;
        this.counters = counters;
        this.remoteAddress = remoteAddress;
        this.receivedFrames = receivedFrames;
    }

    /** Conductor: the clock of the cycle whose frames come next. */
    void nowNs(final long nowNs)
    {
        this.nowNs = nowNs;
    }

    @Override
    public void onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (receivedFrames != null)
        {
            receivedFrames.log(buffer, offset, length);
        }
        if (close.isClosing())
        {
            return;
        }
        counters.onFrameReceived(length);
        keepalive.onFrameReceived(nowNs);
        if (!reader.wrap(buffer, offset, length))
        {
            extensions.violation(Violation.MALFORMED_FRAME, "malformed " +
                FrameType.name(FrameHeader.typeOrUnknown(buffer, offset, length)) + " frame: " + reader.error());
            return;
        }
        final int type = reader.frameType();
        if (FrameType.carriesPayload(type) && !reader.hasFlag(FrameFlags.FOLLOWS) &&
            (type != FrameType.PAYLOAD || reader.hasFlag(FrameFlags.NEXT)))
        {
            counters.onMessageIn();
        }
        if (!setup.isComplete())
        {
            if (setup.onFirstFrame(reader))
            {
                extensions.onSetupComplete(); // before the server's application can act on this connection
            }
            return;
        }
        if (type == FrameType.SETUP)
        {
            final String wrong = setup.onSetupAnswer(reader);
            if (wrong != null)
            {
                extensions.violation(Violation.UNEXPECTED_FRAME, wrong);
                return;
            }
        }
        else if (type != FrameType.KEEPALIVE)
        {
            keepalive.onActive(nowNs);
        }
        final int streamId = reader.streamId();
        setup.onFrameAfterSetup(type, streamId, api);
        switch (type)
        {
            case FrameType.REQUEST_FNF:
                streams.onFireAndForget(streamId);
                return;
            case FrameType.REQUEST_RESPONSE:
            case FrameType.REQUEST_STREAM:
            case FrameType.REQUEST_CHANNEL:
                streams.onRequest(type, streamId);
                return;
            case FrameType.REQUEST_N:
                streams.onRequestN(streamId);
                return;
            case FrameType.CANCEL:
                streams.onCancel(streamId);
                return;
            case FrameType.PAYLOAD:
                streams.onPayload(streamId);
                return;
            case FrameType.ERROR:
                onError(streamId);
                return;
            case FrameType.KEEPALIVE:
                keepalive.onKeepaliveFrame(reader.respond(), reader.timestampNs());
                return;
            case FrameType.SETUP:
                return; // the server's answer, followed above
            case FrameType.CLOSE:
                close.closeByPeer(reader.text());
                return;
            default:
                onExtensionFrame(type);
        }
    }

    private void onError(final int streamId)
    {
        final String text = reader.text();
        final ErrorCode code = ErrorCode.get(reader.errorCode());
        if (streamId != 0)
        {
            streams.onStreamError(streamId, code, text);
            return;
        }
        final RivuletException error = code == ErrorCode.REJECTED_SETUP || code == ErrorCode.INVALID_SETUP ||
            code == ErrorCode.UNSUPPORTED_SETUP ?
            new RejectedException("connection rejected by " + remoteAddress + ": " + text) :
            new ConnectionClosedException("connection closed by " + remoteAddress + " with " + code + ": " + text);
        close.lose(error);
    }

    private void onExtensionFrame(final int type)
    {
        final ConnectionExtension extension = extensions.forFrameType(type);
        if (extension != null)
        {
            extension.onFrame(reader, nowNs);
        }
        else if (FrameType.isTopic(type))
        {
            extensions.violation(Violation.UNEXPECTED_FRAME, "topic frames are not enabled on this connection");
        }
        else if (FrameType.isRegion(type))
        {
            extensions.violation(Violation.UNEXPECTED_FRAME, "region frames are not enabled on this connection");
        }
        else if (type != FrameType.DATAGRAM_OFFER) // a node without datagrams ignores offers: topic data stays here
        {
            extensions.violation(Violation.UNEXPECTED_FRAME, "unexpected " + FrameType.name(type) +
                " frame after set-up");
        }
    }
}
