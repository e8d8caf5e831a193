package io.rivulet.protocol;

import io.rivulet.ApplicationErrorException;
import io.rivulet.MalformedMetadataException;
import io.rivulet.Message;
import io.rivulet.MessageView;
import io.rivulet.RejectedException;
import io.rivulet.ReplyHandler;
import io.rivulet.RequestHandler;
import io.rivulet.Responder;
import io.rivulet.RivuletException;
import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameReader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.counters.ConnectionCounters;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.Violation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

import java.util.List;
import java.util.function.Consumer;

/**
 * The stream frames of one connection, on the conductor: requests from the peer start responder streams (or
 * are refused beyond the stream limit), REQUEST_N, CANCEL, PAYLOAD and stream ERROR frames reach their stream,
 * and fragments are reassembled within the message length limit. Fire-and-forget messages go to the responder:
 * the zero-copy handler sees the frame in place, the reactive handler an owned copy.
 */
final class InboundStreams
{
    private final ProtocolConnection connection;
    private final StreamTable streams;
    private final FrameReader reader;
    private final ControlFrames control;
    private final ConnectionServices services;
    private final ProtocolSettings settings;
    private final ConnectionCounters counters;
    /** The node's spare reassembly buffers. */
    private final ReassemblyPool reassemblies;
    /** Set once, before any request is read (at creation, or when the acceptor chose it). */
    private Responder responder;
    private final Consumer<Throwable> errorHandler;
    private final boolean client;
    private final String localAddress;
    private final MessageView view = new MessageView();
    /** Answers requests of the zero-copy request handler; made on the first. */
    private InPlaceReply reply;

    InboundStreams(
        final ProtocolConnection connection,
        final StreamTable streams,
        final FrameReader reader,
        final ControlFrames control,
        final ConnectionServices services,
        final ProtocolSettings settings,
        final ConnectionCounters counters,
        final ReassemblyPool reassemblies,
        final Consumer<Throwable> errorHandler,
        final boolean client,
        final String localAddress)
    {
        this.connection = connection;
        this.streams = streams;
        this.reader = reader;
        this.control = control;
        this.services = services;
        this.settings = settings;
        this.counters = counters;
        this.reassemblies = reassemblies;
        this.errorHandler = errorHandler;
        this.client = client;
        this.localAddress = localAddress;
    }

    /** Conductor, before any request is read: the responder that serves the peer's requests. */
    void responder(final Responder responder)
    {
        this.responder = responder;
    }

    /** REQUEST_FNF: on stream 0 a whole message; with a stream id, the first fragment of one. */
    void onFireAndForget(final int streamId)
    {
        if (streamId == 0)
        {
            if (reader.hasFlag(FrameFlags.FOLLOWS))
            {
                services.violation(Violation.MALFORMED_FRAME, "fragmented REQUEST_FNF on stream 0");
                return;
            }
            deliverFireAndForget(null, null);
            return;
        }
        onRequest(FrameType.REQUEST_FNF, streamId);
    }

    /** A request frame opening a stream of the peer's. */
    void onRequest(final int type, final int streamId)
    {
        if (streamId == 0 || streams.isOwnId(streamId))
        {
            services.violation(Violation.ID_IN_USE, FrameType.name(type) + " with stream id " + streamId +
                " not allowed from the " + (client ? "server" : "client"));
            return;
        }
        if (streams.contains(streamId))
        {
            services.violation(Violation.ID_IN_USE, FrameType.name(type) + " for stream " + streamId +
                " which is already in use");
            return;
        }
        if (streams.peerStreams() >= settings.maxStreams())
        {
            refuseStream(type, streamId);
            return;
        }
        if (reader.hasFlag(FrameFlags.FOLLOWS))
        {
            final ProtocolStream stream = newResponderStream(type);
            stream.registered(streamId);
            stream.assemblingRequestType = type;
            stream.assemblingInitialRequestN = reader.initialRequestN();
            stream.reassembly = newReassembly();
            streams.put(streamId, stream);
            appendFragment(stream);
            return;
        }
        final RequestHandler inPlace = type == FrameType.REQUEST_RESPONSE ? responder.requestResponseHandler() : null;
        if (inPlace != null)
        {
            answerInPlace(inPlace, viewOfFrame(), streamId);
            return;
        }
        final Message message = FrameFlags.isSet(reader.flags(), FrameFlags.NEXT) || type != FrameType.REQUEST_CHANNEL ?
            copyMessage() : null;
        if (type == FrameType.REQUEST_FNF)
        {
            deliverFireAndForget(message, null);
            return;
        }
        final ProtocolStream stream = newResponderStream(type);
        stream.registered(streamId);
        streams.put(streamId, stream);
        startResponder(stream, type, reader.initialRequestN(), reader.flags(), message);
    }

    void onRequestN(final int streamId)
    {
        final ProtocolStream stream = streams.get(streamId);
        if (stream != null)
        {
            stream.onRequestN(reader.requestN());
        }
    }

    void onCancel(final int streamId)
    {
        final ProtocolStream stream = streams.get(streamId);
        if (stream != null)
        {
            stream.onCancel();
        }
    }

    void onPayload(final int streamId)
    {
        final ProtocolStream stream = streams.get(streamId);
        if (stream == null)
        {
            if (streams.isOwnId(streamId))
            {
                onReply(streamId);
            }
            return; // else a late frame of a cancelled or finished stream
        }
        if (stream.reassembly != null || reader.hasFlag(FrameFlags.FOLLOWS))
        {
            if (stream.reassembly == null)
            {
                stream.reassembly = newReassembly();
            }
            if (!appendFragment(stream) || reader.hasFlag(FrameFlags.FOLLOWS))
            {
                return;
            }
            final Reassembly reassembly = stream.reassembly;
            stream.reassembly = null;
            if (stream.assemblingRequestType == FrameType.REQUEST_FNF)
            {
                stream.assemblingRequestType = 0;
                stream.removeNow();
                deliverFireAndForget(null, reassembly); // the zero-copy handler reads the fragments in place
                reassembly.release();
                return;
            }
            final RequestHandler inPlace = responder.requestResponseHandler();
            if (stream.assemblingRequestType == FrameType.REQUEST_RESPONSE && inPlace != null)
            {
                stream.assemblingRequestType = 0;
                stream.removeNow();
                answerInPlace(inPlace, viewOf(reassembly), streamId); // reads the fragments in place
                reassembly.release();
                return;
            }
            final Message message = reassembly.toMessage();
            reassembly.release();
            if (stream.assemblingRequestType != 0)
            {
                final int type = stream.assemblingRequestType;
                stream.assemblingRequestType = 0;
                startResponder(stream, type, stream.assemblingInitialRequestN, reader.flags(), message);
                return;
            }
            deliverToStream(stream, streamId, message);
            return;
        }
        deliverToStream(stream, streamId, FrameFlags.isSet(reader.flags(), FrameFlags.NEXT) ? copyMessage() : null);
    }

    /** ERROR on a stream: the stream ends with the error the code stands for. */
    void onStreamError(final int streamId, final ErrorCode code, final String text)
    {
        final ProtocolStream stream = streams.get(streamId);
        if (stream == null)
        {
            final PendingReply reply = streams.isOwnId(streamId) ? streams.takeReply(streamId, true) : null;
            if (reply != null)
            {
                endReply(reply, streamError(code, text));
            }
            return;
        }
        stream.dropReassembly();
        stream.onError(streamError(code, text));
        streams.remove(stream);
    }

    private static RivuletException streamError(final ErrorCode code, final String text)
    {
        switch (code)
        {
            case APPLICATION_ERROR:
                return new ApplicationErrorException(text);
            case REJECTED:
            case INVALID:
                return new RejectedException(text);
            default:
                return new RivuletException(code + ": " + text);
        }
    }

    // ---------------------------------------------------------------- zero-copy requests' replies

    /**
     * PAYLOAD for one of this side's ids that has no stream: the reply of a zero-copy request, handed to its handler
     * in place (a reply in fragments from its reassembly). A frame no request waits for is a late one (cancelled) and
     * dropped, as for streams.
     */
    private void onReply(final int streamId)
    {
        // The last (or only) frame of a reply takes its request out of the table at once: one lock per reply. A
        // fragment that others follow leaves it there. A request cancelled meanwhile is not found: the cancel
        // releases what its reply had assembled.
        final boolean follows = reader.hasFlag(FrameFlags.FOLLOWS);
        final PendingReply reply = follows ? streams.reply(streamId) : streams.takeReply(streamId, true);
        if (reply == null)
        {
            return;
        }
        if (reply.reassembly != null || follows)
        {
            if (reply.reassembly == null)
            {
                reply.reassembly = newReassembly();
            }
            if (!appendFragment(reply.reassembly, streamId))
            {
                // A violation: the connection closes. A request still in the table ends with the close; one this
                // frame took out ends here, with the same cause.
                if (!follows)
                {
                    endReply(reply, connection.closedError());
                }
                return;
            }
            if (follows)
            {
                return;
            }
        }
        counters.onRequestResponseReply(connection.replyArrivalNs() - reply.sentNs);
        final Reassembly reassembly = reply.reassembly;
        final ReplyHandler handler = reply.handler;
        final long requestId = reply.requestId();
        reply.reassembly = null;
        streams.recycle(reply);
        try
        {
            if (reassembly != null)
            {
                handler.onReply(requestId, viewOf(reassembly));
            }
            else if (reader.hasFlag(FrameFlags.NEXT))
            {
                handler.onReply(requestId, viewOfFrame());
            }
            else
            {
                handler.onEmpty(requestId);
            }
        }
        catch (final Throwable ex)
        {
            rethrowFatal(ex);
            errorHandler.accept(ex);
        }
        finally
        {
            if (reassembly != null)
            {
                reassembly.release();
            }
        }
    }

    /** Conductor: the connection closed; every zero-copy request still waiting ends with its cause. */
    void endReplies(final List<PendingReply> waiting, final Throwable cause)
    {
        for (int i = 0; i < waiting.size(); i++)
        {
            endReply(waiting.get(i), cause);
        }
    }

    /**
     * Conductor: a zero-copy request its caller cancelled (already out of the table): its fragments go back, the
     * CANCEL goes out if the connection still sends, and its id is free again.
     */
    void cancelReply(final PendingReply reply, final boolean sendCancel)
    {
        if (reply.reassembly != null)
        {
            reply.reassembly.release();
        }
        if (sendCancel)
        {
            final StreamWriter writer = new StreamWriter(connection.outbound());
            writer.streamId(reply.streamId);
            writer.sendCancel();
        }
        streams.release(reply.streamId);
        streams.recycle(reply);
    }

    private void endReply(final PendingReply reply, final Throwable error)
    {
        final ReplyHandler handler = reply.handler;
        final long requestId = reply.requestId();
        if (reply.reassembly != null)
        {
            reply.reassembly.release();
        }
        streams.recycle(reply);
        try
        {
            handler.onError(requestId, error);
        }
        catch (final Throwable ex)
        {
            rethrowFatal(ex);
            errorHandler.accept(ex);
        }
    }

    private void deliverToStream(final ProtocolStream stream, final int streamId, final Message message)
    {
        if (!stream.onMessage(message, reader.flags()))
        {
            services.violation(Violation.CREDIT_EXCEEDED,
                "PAYLOAD on stream " + streamId + " beyond the credits granted");
        }
    }

    private ProtocolStream newResponderStream(final int type)
    {
        switch (type)
        {
            case FrameType.REQUEST_FNF: return new ProtocolStream(connection, ProtocolStream.Kind.RESPONDER_FNF);
            case FrameType.REQUEST_RESPONSE:
                return new ProtocolStream(connection, ProtocolStream.Kind.RESPONDER_RESPONSE);
            case FrameType.REQUEST_STREAM: return new ProtocolStream(connection, ProtocolStream.Kind.RESPONDER_STREAM);
            default: return new ProtocolStream(connection, ProtocolStream.Kind.RESPONDER_CHANNEL);
        }
    }

    private void startResponder(
        final ProtocolStream stream, final int type, final int initialRequestN, final byte flags, final Message message)
    {
        if (message != null)
        {
            final String refused = stream.hold((long)message.dataLength() + message.metadataLength());
            if (refused != null)
            {
                counters.onLimitRejection();
                services.violation(Violation.LIMIT_EXCEEDED, FrameType.name(type) + " on stream " + stream.streamId() +
                    " refused: " + refused);
                return;
            }
        }
        stream.openAsResponder();
        final Publisher<Message> producer;
        try
        {
            switch (type)
            {
                case FrameType.REQUEST_RESPONSE:
                    producer = responder.requestResponse() == null ? null :
                        responder.requestResponse().apply(message);
                    break;
                case FrameType.REQUEST_STREAM:
                    producer = responder.requestStream() == null ? null : responder.requestStream().apply(message);
                    break;
                default:
                    if (responder.requestChannelWithFirst() != null)
                    {
                        stream.onFirstMessage(message, flags);
                        producer = responder.requestChannelWithFirst().apply(message, Flux.from(stream.inbound));
                        break;
                    }
                    if (responder.requestChannel() == null)
                    {
                        producer = null;
                        break;
                    }
                    stream.onFirstMessage(message, flags);
                    producer = responder.requestChannel().apply(Flux.from(stream.inbound));
                    break;
            }
        }
        catch (final Throwable ex)
        {
            rethrowFatal(ex);
            if (ex instanceof MalformedMetadataException)
            {
                // The responder found the peer's metadata hostile: the peer breaks the protocol, as with a bad frame.
                services.violation(Violation.MALFORMED_FRAME, FrameType.name(type) + " on stream " +
                    stream.streamId() + ": " + ex.getMessage());
                return;
            }
            if (ex instanceof RejectedException)
            {
                rejectStream(stream, ErrorCode.REJECTED, String.valueOf(ex.getMessage()));
                return;
            }
            rejectStream(stream, ErrorCode.APPLICATION_ERROR, String.valueOf(ex.getMessage()));
            errorHandler.accept(ex);
            return;
        }
        if (producer == null)
        {
            rejectStream(stream, ErrorCode.REJECTED, "no " + FrameType.name(type) + " handler on " + localAddress);
            return;
        }
        stream.startOutbound(producer, type == FrameType.REQUEST_RESPONSE ? 1 : initialRequestN);
        stream.onSignal();
    }

    /** @return the connection's view on the frame just read: its metadata and data in the read buffer. */
    private MessageView viewOfFrame()
    {
        return view.wrap(reader.buffer(), reader.metadataOffset(), reader.metadataLength(), reader.dataOffset(),
            reader.dataLength());
    }

    /** @return the connection's view on a message reassembled from fragments, in the reassembly's buffers. */
    private MessageView viewOf(final Reassembly reassembly)
    {
        return view.wrap(reassembly.metadataBuffer(), reassembly.metadataLength(), reassembly.dataBuffer(),
            reassembly.dataLength());
    }

    /**
     * A request-response for the zero-copy handler, in {@code request}: the handler answers through the connection's
     * {@link InPlaceReply} before it returns, and the request never takes a place in the stream table. A handler that
     * fails or does not answer ends the stream with an error, as the reactive path does.
     */
    private void answerInPlace(final RequestHandler handler, final MessageView request, final int streamId)
    {
        if (reply == null)
        {
            reply = new InPlaceReply(connection.outbound(), settings.maxMessageLength());
        }
        reply.begin(streamId);
        try
        {
            handler.onRequest(request, reply);
        }
        catch (final Throwable ex)
        {
            rethrowFatal(ex);
            final boolean answered = reply.end();
            if (ex instanceof MalformedMetadataException)
            {
                services.violation(Violation.MALFORMED_FRAME, "REQUEST_RESPONSE on stream " + streamId + ": " +
                    ex.getMessage());
                return;
            }
            if (!answered)
            {
                reply.error(ex instanceof RejectedException ? ErrorCode.REJECTED : ErrorCode.APPLICATION_ERROR,
                    String.valueOf(ex.getMessage()));
            }
            if (!(ex instanceof RejectedException))
            {
                errorHandler.accept(ex);
            }
            return;
        }
        if (!reply.end())
        {
            final String missing =
                "no reply from the request handler on " + localAddress + " (stream " + streamId + ")";
            reply.error(ErrorCode.APPLICATION_ERROR, missing);
            errorHandler.accept(new IllegalStateException(missing));
        }
    }

    /**
     * The peer has {@code maxStreams} open: refuse this one with ERROR (REJECTED) on its stream and keep the
     * connection. Its later fragments find no stream and are dropped. A peer that floods requests faster than
     * it reads the refusals fills the ring: then the connection is closed, so refusals never queue unbounded.
     */
    private void refuseStream(final int type, final int streamId)
    {
        counters.onLimitRejection();
        final String reason = FrameType.name(type) + " on stream " + streamId + " refused: " + settings.maxStreams() +
            " streams already open on this connection (rivulet.maxStreams)";
        if (!control.error(streamId, ErrorCode.REJECTED, reason))
        {
            services.violation(Violation.LIMIT_EXCEEDED, "requests beyond the stream limit of " +
                settings.maxStreams() + " faster than refusals can be sent");
        }
    }

    private void rejectStream(final ProtocolStream stream, final ErrorCode code, final String reason)
    {
        stream.writer().sendError(code, reason);
        stream.terminate(new RejectedException(reason));
        streams.remove(stream);
    }

    private Reassembly newReassembly()
    {
        return new Reassembly(settings.maxMessageLength(), connection.memory(), reassemblies);
    }

    private boolean appendFragment(final ProtocolStream stream)
    {
        return appendFragment(stream.reassembly, stream.streamId());
    }

    private boolean appendFragment(final Reassembly reassembly, final int streamId)
    {
        switch (reassembly.append(reader.buffer(), reader.metadataOffset(), reader.metadataLength(),
            reader.dataOffset(), reader.dataLength()))
        {
            case APPENDED:
                return true;
            case MESSAGE_TOO_LONG:
                services.violation(Violation.LIMIT_EXCEEDED, "message on stream " + streamId +
                    " exceeds the maximum message length of " + settings.maxMessageLength());
                return false;
            default:
                counters.onLimitRejection();
                services.violation(Violation.LIMIT_EXCEEDED, "unfinished message on stream " + streamId +
                    " refused: " + reassembly.refusal());
                return false;
        }
    }

    /**
     * Hands a fire-and-forget to the responder: the zero-copy handler sees the frame (or reassembly) in place,
     * the reactive handler gets an owned message.
     */
    private void deliverFireAndForget(final Message assembled, final Reassembly reassembly)
    {
        counters.onMessageReceived();
        try
        {
            if (responder.fireAndForgetHandler() != null)
            {
                responder.fireAndForgetHandler().onMessage(reassembly != null ? viewOf(reassembly) :
                    assembled == null ? viewOfFrame() : view.wrap(assembled.metadata(), assembled.metadataLength(),
                    assembled.data(), assembled.dataLength()));
            }
            else if (responder.fireAndForget() != null)
            {
                final Message message = assembled != null ? assembled :
                    reassembly != null ? reassembly.toMessage() : copyMessage();
                responder.fireAndForget().apply(message).subscribe(null, errorHandler);
            }
        }
        catch (final Throwable ex)
        {
            rethrowFatal(ex);
            if (ex instanceof MalformedMetadataException)
            {
                services.violation(Violation.MALFORMED_FRAME, "REQUEST_FNF: " + ex.getMessage());
                return;
            }
            errorHandler.accept(ex);
        }
    }

    /** An application's handler failing is its stream's error; the JVM failing is the engine's (fail-stop). */
    private static void rethrowFatal(final Throwable ex)
    {
        if (ex instanceof VirtualMachineError fatal)
        {
            throw fatal;
        }
    }

    private Message copyMessage()
    {
        final byte[] data = new byte[reader.dataLength()];
        reader.buffer().getBytes(reader.dataOffset(), data);
        final Message message = Message.of(data);
        if (reader.metadataLength() == 0)
        {
            return message;
        }
        final byte[] metadata = new byte[reader.metadataLength()];
        reader.buffer().getBytes(reader.metadataOffset(), metadata);
        return message.metadata(metadata);
    }
}
