package io.rivulet.codec;

import io.rivulet.codec.wire.CancelEncoder;
import io.rivulet.codec.wire.CloseEncoder;
import io.rivulet.codec.wire.ErrorCode;
import io.rivulet.codec.wire.ErrorEncoder;
import io.rivulet.codec.wire.KeepaliveEncoder;
import io.rivulet.codec.wire.MessageHeaderEncoder;
import io.rivulet.codec.wire.PayloadEncoder;
import io.rivulet.codec.wire.RequestChannelEncoder;
import io.rivulet.codec.wire.RequestFnfEncoder;
import io.rivulet.codec.wire.RequestNEncoder;
import io.rivulet.codec.wire.RequestResponseEncoder;
import io.rivulet.codec.wire.RequestStreamEncoder;
import io.rivulet.codec.wire.SetupEncoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.charset.StandardCharsets;

/**
 * Encodes whole frames (SBE header + body) into a caller's buffer, typically a slot claimed in an
 * outbound ring, so that application bytes are written once. Each method returns the encoded length;
 * {@code xxxLength} methods give the length beforehand so that the caller can claim exactly that much.
 *
 * <p>Not thread-safe: the flyweights are reused. Give each writing thread its own instance.
 */
public final class FrameWriter
{
    /** Bytes of the SBE message header that begins every frame. */
    public static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;
    /** Overhead of a payload-carrying frame besides its metadata and data (the largest such layout). */
    public static final int MAX_PAYLOAD_FRAME_OVERHEAD =
        HEADER_LENGTH + RequestStreamEncoder.BLOCK_LENGTH + 2 * RequestStreamEncoder.metadataHeaderLength();

    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final SetupEncoder setup = new SetupEncoder();
    private final RequestFnfEncoder requestFnf = new RequestFnfEncoder();
    private final RequestResponseEncoder requestResponse = new RequestResponseEncoder();
    private final RequestStreamEncoder requestStream = new RequestStreamEncoder();
    private final RequestChannelEncoder requestChannel = new RequestChannelEncoder();
    private final RequestNEncoder requestN = new RequestNEncoder();
    private final CancelEncoder cancel = new CancelEncoder();
    private final PayloadEncoder payload = new PayloadEncoder();
    private final ErrorEncoder error = new ErrorEncoder();
    private final KeepaliveEncoder keepalive = new KeepaliveEncoder();
    private final CloseEncoder close = new CloseEncoder();

    /**
     * Length of a request or payload frame of the given type.
     *
     * @param frameType      one of the payload-carrying {@link FrameType}s.
     * @param metadataLength bytes of metadata in this frame.
     * @param dataLength     bytes of data in this frame.
     * @return the frame's encoded length.
     */
    public static int payloadFrameLength(final int frameType, final int metadataLength, final int dataLength)
    {
        return payloadFrameOverhead(frameType) + metadataLength + dataLength;
    }

    /**
     * Fixed bytes of a payload-carrying frame type: header, block and both var-data length fields.
     *
     * @param frameType one of the payload-carrying {@link FrameType}s.
     * @return overhead in bytes.
     */
    public static int payloadFrameOverhead(final int frameType)
    {
        final int block = frameType == FrameType.REQUEST_STREAM || frameType == FrameType.REQUEST_CHANNEL ?
            RequestStreamEncoder.BLOCK_LENGTH : PayloadEncoder.BLOCK_LENGTH;
        return HEADER_LENGTH + block + 2 * PayloadEncoder.metadataHeaderLength();
    }

    public static int requestNLength()
    {
        return HEADER_LENGTH + RequestNEncoder.BLOCK_LENGTH;
    }

    public static int cancelLength()
    {
        return HEADER_LENGTH + CancelEncoder.BLOCK_LENGTH;
    }

    public static int keepaliveLength()
    {
        return HEADER_LENGTH + KeepaliveEncoder.BLOCK_LENGTH;
    }

    public static int errorLength(final int messageLength)
    {
        return HEADER_LENGTH + ErrorEncoder.BLOCK_LENGTH + ErrorEncoder.messageHeaderLength() + messageLength;
    }

    public static int closeLength(final int reasonLength)
    {
        return HEADER_LENGTH + CloseEncoder.BLOCK_LENGTH + CloseEncoder.reasonHeaderLength() + reasonLength;
    }

    public static int setupLength(final int metadataLength, final int dataLength)
    {
        return HEADER_LENGTH + SetupEncoder.BLOCK_LENGTH + 2 * SetupEncoder.metadataHeaderLength() +
            metadataLength + dataLength;
    }

    /**
     * Encodes a request or payload frame.
     *
     * @param buffer          to write into.
     * @param offset          where the frame starts.
     * @param frameType       REQUEST_FNF, REQUEST_RESPONSE, REQUEST_STREAM, REQUEST_CHANNEL or PAYLOAD.
     * @param streamId        the stream.
     * @param initialRequestN credits granted with REQUEST_STREAM / REQUEST_CHANNEL, ignored otherwise.
     * @param flags           {@link FrameFlags} bits.
     * @param metadata        source of the metadata bytes (may be null when the length is 0).
     * @param metadataOffset  in {@code metadata}.
     * @param metadataLength  bytes of metadata.
     * @param data            source of the data bytes (may be null when the length is 0).
     * @param dataOffset      in {@code data}.
     * @param dataLength      bytes of data.
     * @return the encoded length.
     */
    public int writePayloadFrame(
        final MutableDirectBuffer buffer,
        final int offset,
        final int frameType,
        final int streamId,
        final int initialRequestN,
        final byte flags,
        final DirectBuffer metadata,
        final int metadataOffset,
        final int metadataLength,
        final DirectBuffer data,
        final int dataOffset,
        final int dataLength)
    {
        switch (frameType)
        {
            case 2:
                requestFnf.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
                buffer.putByte(offset + HEADER_LENGTH + RequestFnfEncoder.flagsEncodingOffset(), flags);
                requestFnf.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestFnf.encodedLength();

            case 3:
                requestResponse.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
                buffer.putByte(offset + HEADER_LENGTH + RequestResponseEncoder.flagsEncodingOffset(), flags);
                requestResponse.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestResponse.encodedLength();

            case 4:
                requestStream.wrapAndApplyHeader(buffer, offset, header).streamId(streamId)
                    .initialRequestN(initialRequestN);
                buffer.putByte(offset + HEADER_LENGTH + RequestStreamEncoder.flagsEncodingOffset(), flags);
                requestStream.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestStream.encodedLength();

            case 5:
                requestChannel.wrapAndApplyHeader(buffer, offset, header).streamId(streamId)
                    .initialRequestN(initialRequestN);
                buffer.putByte(offset + HEADER_LENGTH + RequestChannelEncoder.flagsEncodingOffset(), flags);
                requestChannel.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestChannel.encodedLength();

            case 8:
                payload.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
                buffer.putByte(offset + HEADER_LENGTH + PayloadEncoder.flagsEncodingOffset(), flags);
                payload.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + payload.encodedLength();

            default:
                throw new IllegalArgumentException("not a payload-carrying frame type: " + FrameType.name(frameType));
        }
    }

    public int writeRequestN(final MutableDirectBuffer buffer, final int offset, final int streamId, final int n)
    {
        requestN.wrapAndApplyHeader(buffer, offset, header).streamId(streamId).n(n);
        return HEADER_LENGTH + requestN.encodedLength();
    }

    public int writeCancel(final MutableDirectBuffer buffer, final int offset, final int streamId)
    {
        cancel.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
        return HEADER_LENGTH + cancel.encodedLength();
    }

    public int writeKeepalive(
        final MutableDirectBuffer buffer, final int offset, final boolean respond, final long timestampNs)
    {
        keepalive.wrapAndApplyHeader(buffer, offset, header).timestampNs(timestampNs).flags().clear().respond(respond);
        return HEADER_LENGTH + keepalive.encodedLength();
    }

    /**
     * Encodes an ERROR frame; the message is UTF-8 and must fit the buffer (see {@link #errorLength}).
     */
    public int writeError(
        final MutableDirectBuffer buffer, final int offset, final int streamId, final ErrorCode code, final byte[] message)
    {
        error.wrapAndApplyHeader(buffer, offset, header).streamId(streamId).code(code)
            .putMessage(message, 0, message.length);
        return HEADER_LENGTH + error.encodedLength();
    }

    public int writeClose(final MutableDirectBuffer buffer, final int offset, final ErrorCode code, final byte[] reason)
    {
        close.wrapAndApplyHeader(buffer, offset, header).code(code).putReason(reason, 0, reason.length);
        return HEADER_LENGTH + close.encodedLength();
    }

    public int writeSetup(
        final MutableDirectBuffer buffer,
        final int offset,
        final int protocolVersion,
        final int keepaliveIntervalMs,
        final int keepaliveTimeoutMs,
        final int maxFrameLength,
        final byte[] metadata,
        final byte[] data)
    {
        setup.wrapAndApplyHeader(buffer, offset, header)
            .protocolVersion(protocolVersion)
            .keepaliveIntervalMs(keepaliveIntervalMs)
            .keepaliveTimeoutMs(keepaliveTimeoutMs)
            .maxFrameLength(maxFrameLength)
            .putMetadata(metadata, 0, metadata.length)
            .putData(data, 0, data.length);
        return HEADER_LENGTH + setup.encodedLength();
    }

    /**
     * UTF-8 bytes of a diagnostic text, cut so that an ERROR or CLOSE frame stays small.
     *
     * @param text      the text, may be null.
     * @param maxLength the most bytes to keep.
     * @return the bytes.
     */
    public static byte[] utf8(final String text, final int maxLength)
    {
        final byte[] bytes = (text == null ? "" : text).getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxLength)
        {
            return bytes;
        }
        return java.util.Arrays.copyOf(bytes, maxLength);
    }

    private static final DirectBuffer EMPTY = new org.agrona.concurrent.UnsafeBuffer(new byte[0]);

    private static DirectBuffer orEmpty(final DirectBuffer buffer)
    {
        return buffer == null ? EMPTY : buffer;
    }
}
