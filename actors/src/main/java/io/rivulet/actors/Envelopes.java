package io.rivulet.actors;

import io.rivulet.ProtocolViolationException;
import io.rivulet.actors.wire.ActorErrorCode;
import io.rivulet.actors.wire.AskDecoder;
import io.rivulet.actors.wire.AskEncoder;
import io.rivulet.actors.wire.AskStreamDecoder;
import io.rivulet.actors.wire.AskStreamEncoder;
import io.rivulet.actors.wire.MessageHeaderEncoder;
import io.rivulet.actors.wire.ReplyDecoder;
import io.rivulet.actors.wire.ReplyEncoder;
import io.rivulet.actors.wire.ReplyErrorDecoder;
import io.rivulet.actors.wire.ReplyErrorEncoder;
import io.rivulet.actors.wire.RouteDecoder;
import io.rivulet.actors.wire.RouteEncoder;
import io.rivulet.actors.wire.RouteKind;
import io.rivulet.actors.wire.StreamReadyDecoder;
import io.rivulet.actors.wire.StreamReadyEncoder;
import io.rivulet.actors.wire.TellDecoder;
import io.rivulet.actors.wire.TellEncoder;
import io.rivulet.actors.wire.TerminatedDecoder;
import io.rivulet.actors.wire.TerminatedEncoder;
import io.rivulet.actors.wire.TerminationReason;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Encodes and validates the actor envelopes of {@code sbe/rivulet-actors.xml}. Encoding goes through a
 * per-thread scratch buffer and returns an exact-length array (a channel batches them; a Rivulet
 * {@code Message} owns its bytes). Serializers write payloads straight into the scratch buffer behind the
 * var-data length.
 *
 * <p>Thread-safe: the encoding state is per thread; {@link Reader} instances are not thread-safe.
 */
final class Envelopes
{
    /** SBE header length. */
    static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;
    /** Length prefix of an envelope inside a channel batch. */
    static final int ENTRY_PREFIX = Integer.BYTES;
    /** Longest actor name, in UTF-8 bytes. */
    static final int MAX_NAME_LENGTH = 255;
    /** Longest error or termination detail sent. */
    static final int MAX_DETAIL_LENGTH = 1024;

    static final int ROUTE = RouteEncoder.TEMPLATE_ID;
    static final int TELL = TellEncoder.TEMPLATE_ID;
    static final int ASK = AskEncoder.TEMPLATE_ID;
    static final int ASK_STREAM = AskStreamEncoder.TEMPLATE_ID;
    static final int REPLY = ReplyEncoder.TEMPLATE_ID;
    static final int REPLY_ERROR = ReplyErrorEncoder.TEMPLATE_ID;
    static final int STREAM_READY = StreamReadyEncoder.TEMPLATE_ID;
    static final int TERMINATED = TerminatedEncoder.TEMPLATE_ID;

    private static final ThreadLocal<Encoders> ENCODERS = ThreadLocal.withInitial(Encoders::new);

    private Envelopes()
    {
    }

    static byte[] route(final RouteKind kind, final long incarnation, final long correlationId, final String target)
    {
        final Encoders e = ENCODERS.get();
        e.route.wrapAndApplyHeader(e.buffer, 0, e.header)
            .kind(kind)
            .incarnation(incarnation)
            .correlationId(correlationId)
            .target(target);
        return e.copy(HEADER_LENGTH + e.route.encodedLength());
    }

    static byte[] tell(final CodecRegistry serializers, final Object message)
    {
        final Encoders e = ENCODERS.get();
        final CodecBinding<Object> serializer = serializers.forMessage(message);
        e.tell.wrapAndApplyHeader(e.buffer, 0, e.header).serializerId(serializer.id());
        return e.payload(e.tell.limit(), serializer, message);
    }

    static byte[] ask(final CodecRegistry serializers, final long correlationId, final Object message,
        final boolean stream)
    {
        final Encoders e = ENCODERS.get();
        final CodecBinding<Object> serializer = serializers.forMessage(message);
        final int limit;
        if (stream)
        {
            e.askStream.wrapAndApplyHeader(e.buffer, 0, e.header).correlationId(correlationId).serializerId(serializer.id());
            limit = e.askStream.limit();
        }
        else
        {
            e.ask.wrapAndApplyHeader(e.buffer, 0, e.header).correlationId(correlationId).serializerId(serializer.id());
            limit = e.ask.limit();
        }
        return e.payload(limit, serializer, message);
    }

    static byte[] reply(final CodecRegistry serializers, final long correlationId, final Object value)
    {
        final Encoders e = ENCODERS.get();
        final CodecBinding<Object> serializer = serializers.forMessage(value);
        e.reply.wrapAndApplyHeader(e.buffer, 0, e.header).correlationId(correlationId).serializerId(serializer.id());
        return e.payload(e.reply.limit(), serializer, value);
    }

    static byte[] replyError(final long correlationId, final ActorErrorCode code, final String detail)
    {
        final Encoders e = ENCODERS.get();
        e.replyError.wrapAndApplyHeader(e.buffer, 0, e.header)
            .correlationId(correlationId)
            .code(code)
            .detail(truncate(detail));
        return e.copy(HEADER_LENGTH + e.replyError.encodedLength());
    }

    static byte[] streamReady(final long correlationId)
    {
        final Encoders e = ENCODERS.get();
        e.streamReady.wrapAndApplyHeader(e.buffer, 0, e.header).correlationId(correlationId);
        return e.copy(HEADER_LENGTH + e.streamReady.encodedLength());
    }

    static byte[] terminated(final TerminationReason reason, final String detail)
    {
        final Encoders e = ENCODERS.get();
        e.terminated.wrapAndApplyHeader(e.buffer, 0, e.header).reason(reason).detail(truncate(detail));
        return e.copy(HEADER_LENGTH + e.terminated.encodedLength());
    }

    static String truncate(final String detail)
    {
        final String text = detail == null ? "" : detail;
        return text.length() > MAX_DETAIL_LENGTH ? text.substring(0, MAX_DETAIL_LENGTH) : text;
    }

    /**
     * Validates a batch (the data of a channel message) and counts its envelopes.
     *
     * @return the number of envelopes.
     * @throws ProtocolViolationException when a length prefix does not fit.
     */
    static int countEntries(final DirectBuffer buffer, final int length)
    {
        int offset = 0;
        int count = 0;
        while (offset < length)
        {
            if (length - offset < ENTRY_PREFIX)
            {
                throw new ProtocolViolationException("actor batch: truncated length prefix at " + offset);
            }
            final int entryLength = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
            if (entryLength < HEADER_LENGTH || entryLength > length - offset - ENTRY_PREFIX)
            {
                throw new ProtocolViolationException("actor batch: envelope length " + entryLength + " at " + offset +
                    " does not fit the " + length + " bytes");
            }
            offset += ENTRY_PREFIX + entryLength;
            count++;
        }
        return count;
    }

    /** Per-thread encoders and scratch buffer. */
    private static final class Encoders
    {
        ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final RouteEncoder route = new RouteEncoder();
        final TellEncoder tell = new TellEncoder();
        final AskEncoder ask = new AskEncoder();
        final AskStreamEncoder askStream = new AskStreamEncoder();
        final ReplyEncoder reply = new ReplyEncoder();
        final ReplyErrorEncoder replyError = new ReplyErrorEncoder();
        final StreamReadyEncoder streamReady = new StreamReadyEncoder();
        final TerminatedEncoder terminated = new TerminatedEncoder();

        /** The serializer writes after the var-data length; then the length is filled in. */
        byte[] payload(final int lengthOffset, final CodecBinding<Object> serializer, final Object message)
        {
            final int payloadOffset = lengthOffset + Integer.BYTES;
            final int payloadLength;
            try
            {
                payloadLength = serializer.encode(message, buffer, payloadOffset);
            }
            catch (final SerializationException ex)
            {
                throw ex;
            }
            catch (final RuntimeException ex)
            {
                throw new SerializationException("serializer " + serializer.id() + " failed to encode a " +
                    message.getClass().getName() + ": " + ex, ex);
            }
            if (payloadLength < 0)
            {
                throw new SerializationException("serializer " + serializer.id() + " returned a negative length");
            }
            buffer.putInt(lengthOffset, payloadLength, ByteOrder.LITTLE_ENDIAN);
            return copy(payloadOffset + payloadLength);
        }

        byte[] copy(final int length)
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(0, bytes);
            if (buffer.capacity() > 64 * 1024)
            {
                // A rare huge message must not pin its scratch memory to the thread for ever.
                buffer = new ExpandableArrayBuffer(256);
            }
            return bytes;
        }
    }

    /**
     * Validates one envelope from the network before any field is read: the header (schema, known template,
     * block length) and the var-data length must fit the bytes exactly.
     *
     * <p>Not thread-safe: one per reading thread or per channel.
     */
    static final class Reader
    {
        private final RouteDecoder route = new RouteDecoder();
        private final TellDecoder tell = new TellDecoder();
        private final AskDecoder ask = new AskDecoder();
        private final AskStreamDecoder askStream = new AskStreamDecoder();
        private final ReplyDecoder reply = new ReplyDecoder();
        private final ReplyErrorDecoder replyError = new ReplyErrorDecoder();
        private final StreamReadyDecoder streamReady = new StreamReadyDecoder();
        private final TerminatedDecoder terminatedDecoder = new TerminatedDecoder();

        private DirectBuffer buffer;
        private int templateId;
        private int varOffset;
        private int varLength;

        /**
         * @return the template id of a valid envelope.
         * @throws ProtocolViolationException when it is malformed.
         */
        int wrap(final DirectBuffer buffer, final int offset, final int length)
        {
            this.buffer = buffer;
            if (length < HEADER_LENGTH)
            {
                throw new ProtocolViolationException("actor envelope of " + length + " bytes is shorter than a header");
            }
            final int blockLength = buffer.getShort(offset, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            final int template = buffer.getShort(offset + 2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            final int schemaId = buffer.getShort(offset + 4, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            final int version = buffer.getShort(offset + 6, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            if (schemaId != MessageHeaderEncoder.SCHEMA_ID)
            {
                throw new ProtocolViolationException("actor envelope: unknown schema id " + schemaId);
            }
            final int minBlockLength;
            final boolean hasVar;
            switch (template)
            {
                case ROUTE: minBlockLength = RouteDecoder.BLOCK_LENGTH; hasVar = true; break;
                case TELL: minBlockLength = TellDecoder.BLOCK_LENGTH; hasVar = true; break;
                case ASK: minBlockLength = AskDecoder.BLOCK_LENGTH; hasVar = true; break;
                case ASK_STREAM: minBlockLength = AskStreamDecoder.BLOCK_LENGTH; hasVar = true; break;
                case REPLY: minBlockLength = ReplyDecoder.BLOCK_LENGTH; hasVar = true; break;
                case REPLY_ERROR: minBlockLength = ReplyErrorDecoder.BLOCK_LENGTH; hasVar = true; break;
                case STREAM_READY: minBlockLength = StreamReadyDecoder.BLOCK_LENGTH; hasVar = false; break;
                case TERMINATED: minBlockLength = TerminatedDecoder.BLOCK_LENGTH; hasVar = true; break;
                default:
                    throw new ProtocolViolationException("actor envelope: unknown template id " + template);
            }
            if (blockLength < minBlockLength || blockLength > length - HEADER_LENGTH)
            {
                throw new ProtocolViolationException("actor envelope " + template + ": block length " + blockLength +
                    " does not fit " + length + " bytes");
            }
            final int limit = offset + HEADER_LENGTH + blockLength;
            final int end = offset + length;
            if (hasVar)
            {
                if (end - limit < Integer.BYTES)
                {
                    throw new ProtocolViolationException("actor envelope " + template + ": no var-data length");
                }
                final long declared = buffer.getInt(limit, ByteOrder.LITTLE_ENDIAN) & 0xFFFF_FFFFL;
                if (declared != end - limit - Integer.BYTES)
                {
                    throw new ProtocolViolationException("actor envelope " + template + ": var data of " + declared +
                        " bytes does not end the " + length + "-byte envelope");
                }
                varOffset = limit + Integer.BYTES;
                varLength = (int)declared;
            }
            else
            {
                varOffset = limit;
                varLength = 0;
            }
            final int bodyOffset = offset + HEADER_LENGTH;
            switch (template)
            {
                case ROUTE: route.wrap(buffer, bodyOffset, blockLength, version); break;
                case TELL: tell.wrap(buffer, bodyOffset, blockLength, version); break;
                case ASK: ask.wrap(buffer, bodyOffset, blockLength, version); break;
                case ASK_STREAM: askStream.wrap(buffer, bodyOffset, blockLength, version); break;
                case REPLY: reply.wrap(buffer, bodyOffset, blockLength, version); break;
                case REPLY_ERROR: replyError.wrap(buffer, bodyOffset, blockLength, version); break;
                case STREAM_READY: streamReady.wrap(buffer, bodyOffset, blockLength, version); break;
                default: terminatedDecoder.wrap(buffer, bodyOffset, blockLength, version); break;
            }
            templateId = template;
            return template;
        }

        int templateId()
        {
            return templateId;
        }

        long correlationId()
        {
            switch (templateId)
            {
                case ROUTE: return route.correlationId();
                case ASK: return ask.correlationId();
                case ASK_STREAM: return askStream.correlationId();
                case REPLY: return reply.correlationId();
                case REPLY_ERROR: return replyError.correlationId();
                case STREAM_READY: return streamReady.correlationId();
                default: return 0;
            }
        }

        int serializerId()
        {
            switch (templateId)
            {
                case TELL: return tell.serializerId();
                case ASK: return ask.serializerId();
                case ASK_STREAM: return askStream.serializerId();
                case REPLY: return reply.serializerId();
                default: return 0;
            }
        }

        /** @return the absolute offset of the payload, target or detail. */
        int varOffset()
        {
            return varOffset;
        }

        int varLength()
        {
            return varLength;
        }

        /** @return the var data as UTF-8 text, for the bounded fields (target, detail). */
        String varText(final int maxLength)
        {
            if (varLength > maxLength)
            {
                throw new ProtocolViolationException("actor envelope " + templateId + ": text of " + varLength +
                    " bytes exceeds " + maxLength);
            }
            final byte[] bytes = new byte[varLength];
            buffer.getBytes(varOffset, bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }

        RouteKind routeKind()
        {
            return route.kind();
        }

        long incarnation()
        {
            return route.incarnation();
        }

        ActorErrorCode errorCode()
        {
            return replyError.code();
        }

        TerminationReason terminationReason()
        {
            return terminatedDecoder.reason();
        }
    }
}
