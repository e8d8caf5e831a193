package io.rivulet.codec;

import io.rivulet.codec.wire.CancelEncoder;
import io.rivulet.codec.wire.CloseEncoder;
import io.rivulet.codec.wire.DatagramOfferEncoder;
import io.rivulet.codec.wire.MulticastOfferEncoder;
import io.rivulet.codec.wire.TopicMulticastEncoder;
import io.rivulet.codec.wire.TopicMulticastLeftEncoder;
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
import io.rivulet.codec.wire.RegionErrorEncoder;
import io.rivulet.codec.wire.RegionInfoEncoder;
import io.rivulet.codec.wire.RegionLookupEncoder;
import io.rivulet.codec.wire.RegionOpEncoder;
import io.rivulet.codec.wire.RegionOpResultEncoder;
import io.rivulet.codec.wire.RegionRevokedEncoder;
import io.rivulet.codec.wire.SetupEncoder;
import io.rivulet.codec.wire.SubscribeEncoder;
import io.rivulet.codec.wire.TopicAttachEncoder;
import io.rivulet.codec.wire.TopicDataEncoder;
import io.rivulet.codec.wire.TopicDetachEncoder;
import io.rivulet.codec.wire.TopicGapEncoder;
import io.rivulet.codec.wire.TopicHeartbeatEncoder;
import io.rivulet.codec.wire.TopicSnapshotEncoder;
import io.rivulet.codec.wire.TopicStatusEncoder;
import io.rivulet.codec.wire.UnsubscribeEncoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
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
    private final SubscribeEncoder subscribe = new SubscribeEncoder();
    private final UnsubscribeEncoder unsubscribe = new UnsubscribeEncoder();
    private final TopicStatusEncoder topicStatus = new TopicStatusEncoder();
    private final TopicAttachEncoder topicAttach = new TopicAttachEncoder();
    private final TopicSnapshotEncoder topicSnapshot = new TopicSnapshotEncoder();
    private final TopicGapEncoder topicGap = new TopicGapEncoder();
    private final TopicHeartbeatEncoder topicHeartbeat = new TopicHeartbeatEncoder();
    private final TopicDetachEncoder topicDetach = new TopicDetachEncoder();
    private final RegionLookupEncoder regionLookup = new RegionLookupEncoder();
    private final RegionInfoEncoder regionInfo = new RegionInfoEncoder();
    private final RegionErrorEncoder regionError = new RegionErrorEncoder();
    private final RegionRevokedEncoder regionRevoked = new RegionRevokedEncoder();
    private final RegionOpEncoder regionOp = new RegionOpEncoder();
    private final RegionOpResultEncoder regionOpResult = new RegionOpResultEncoder();
    private final DatagramOfferEncoder datagramOffer = new DatagramOfferEncoder();
    private final MulticastOfferEncoder multicastOffer = new MulticastOfferEncoder();
    private final TopicMulticastEncoder topicMulticast = new TopicMulticastEncoder();
    private final TopicMulticastLeftEncoder topicMulticastLeft = new TopicMulticastLeftEncoder();

    /**
     * Bytes of a TOPIC_DATA frame before its data: header, block and the data's length field. A publisher
     * encodes the payload at {@code frameOffset + TOPIC_DATA_HEADER_LENGTH} of a claimed log slot.
     */
    public static final int TOPIC_DATA_HEADER_LENGTH =
        HEADER_LENGTH + TopicDataEncoder.BLOCK_LENGTH + TopicDataEncoder.dataHeaderLength();
    /**
     * Bytes of a REQUEST_FNF frame without metadata before its data: header, block and both length fields. The
     * zero-copy path encodes the data at {@code frameOffset + FIRE_AND_FORGET_DATA_OFFSET} of a claimed ring slot.
     */
    public static final int FIRE_AND_FORGET_DATA_OFFSET =
        HEADER_LENGTH + RequestFnfEncoder.BLOCK_LENGTH + RequestFnfEncoder.metadataHeaderLength() +
        RequestFnfEncoder.dataHeaderLength();
    /** Bytes of a TOPIC_SNAPSHOT frame besides its data. */
    public static final int TOPIC_SNAPSHOT_OVERHEAD =
        HEADER_LENGTH + TopicSnapshotEncoder.BLOCK_LENGTH + TopicSnapshotEncoder.dataHeaderLength();
    /** Offset of the sequence field within a TOPIC_DATA frame. */
    public static final int TOPIC_DATA_SEQUENCE_OFFSET = HEADER_LENGTH + TopicDataEncoder.sequenceEncodingOffset();
    /** Offset of the key field within a TOPIC_DATA frame. */
    public static final int TOPIC_DATA_KEY_OFFSET = HEADER_LENGTH + TopicDataEncoder.keyEncodingOffset();

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

    public static int topicDataLength(final int dataLength)
    {
        return TOPIC_DATA_HEADER_LENGTH + dataLength;
    }

    public static int topicSnapshotLength(final int dataLength)
    {
        return TOPIC_SNAPSHOT_OVERHEAD + dataLength;
    }

    public static int subscribeLength(final int patternLength)
    {
        return HEADER_LENGTH + SubscribeEncoder.BLOCK_LENGTH + SubscribeEncoder.patternHeaderLength() + patternLength;
    }

    public static int unsubscribeLength()
    {
        return HEADER_LENGTH + UnsubscribeEncoder.BLOCK_LENGTH;
    }

    public static int topicStatusLength()
    {
        return HEADER_LENGTH + TopicStatusEncoder.BLOCK_LENGTH;
    }

    public static int topicAttachLength(final int topicLength)
    {
        return HEADER_LENGTH + TopicAttachEncoder.BLOCK_LENGTH + TopicAttachEncoder.topicNameHeaderLength() + topicLength;
    }

    public static int topicGapLength()
    {
        return HEADER_LENGTH + TopicGapEncoder.BLOCK_LENGTH;
    }

    public static int topicHeartbeatLength()
    {
        return HEADER_LENGTH + TopicHeartbeatEncoder.BLOCK_LENGTH;
    }

    public static int topicDetachLength(final int messageLength)
    {
        return HEADER_LENGTH + TopicDetachEncoder.BLOCK_LENGTH + TopicDetachEncoder.messageHeaderLength() + messageLength;
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
            case FrameType.REQUEST_FNF:
                requestFnf.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
                buffer.putByte(offset + HEADER_LENGTH + RequestFnfEncoder.flagsEncodingOffset(), flags);
                requestFnf.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestFnf.encodedLength();

            case FrameType.REQUEST_RESPONSE:
                requestResponse.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
                buffer.putByte(offset + HEADER_LENGTH + RequestResponseEncoder.flagsEncodingOffset(), flags);
                requestResponse.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestResponse.encodedLength();

            case FrameType.REQUEST_STREAM:
                requestStream.wrapAndApplyHeader(buffer, offset, header).streamId(streamId)
                    .initialRequestN(initialRequestN);
                buffer.putByte(offset + HEADER_LENGTH + RequestStreamEncoder.flagsEncodingOffset(), flags);
                requestStream.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestStream.encodedLength();

            case FrameType.REQUEST_CHANNEL:
                requestChannel.wrapAndApplyHeader(buffer, offset, header).streamId(streamId)
                    .initialRequestN(initialRequestN);
                buffer.putByte(offset + HEADER_LENGTH + RequestChannelEncoder.flagsEncodingOffset(), flags);
                requestChannel.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + requestChannel.encodedLength();

            case FrameType.PAYLOAD:
                payload.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
                buffer.putByte(offset + HEADER_LENGTH + PayloadEncoder.flagsEncodingOffset(), flags);
                payload.putMetadata(orEmpty(metadata), metadataOffset, metadataLength)
                    .putData(orEmpty(data), dataOffset, dataLength);
                return HEADER_LENGTH + payload.encodedLength();

            default:
                throw new IllegalArgumentException("not a payload-carrying frame type: " + FrameType.name(frameType));
        }
    }

    /**
     * Encodes everything of a REQUEST_FNF frame without metadata but its data bytes, which the caller has written
     * (or will write) at {@code offset + FIRE_AND_FORGET_DATA_OFFSET}: the in-place path of the zero-copy offer and
     * claim. The frame is the same as {@link #writePayloadFrame} encodes with no metadata.
     *
     * @return the frame's encoded length.
     */
    public int writeFireAndForgetHeader(
        final MutableDirectBuffer buffer, final int offset, final int streamId, final byte flags, final int dataLength)
    {
        requestFnf.wrapAndApplyHeader(buffer, offset, header).streamId(streamId);
        buffer.putByte(offset + HEADER_LENGTH + RequestFnfEncoder.flagsEncodingOffset(), flags);
        final int metadataLengthOffset = offset + HEADER_LENGTH + RequestFnfEncoder.BLOCK_LENGTH;
        buffer.putInt(metadataLengthOffset, 0, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(metadataLengthOffset + RequestFnfEncoder.metadataHeaderLength(), dataLength,
            ByteOrder.LITTLE_ENDIAN);
        return FIRE_AND_FORGET_DATA_OFFSET + dataLength;
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

    // ------------------------------------------------------------------------------------ topic frames

    /**
     * Encodes everything of a TOPIC_DATA frame but its data bytes, which the caller has written (or will
     * write) at {@code offset + TOPIC_DATA_HEADER_LENGTH}: the in-place path of a publisher's log.
     *
     * @return the frame's encoded length.
     */
    public int writeTopicDataHeader(
        final MutableDirectBuffer buffer,
        final int offset,
        final int topicId,
        final int sessionId,
        final long sequence,
        final long key,
        final int dataLength)
    {
        header.wrap(buffer, offset)
            .blockLength(TopicDataEncoder.BLOCK_LENGTH)
            .templateId(TopicDataEncoder.TEMPLATE_ID)
            .schemaId(TopicDataEncoder.SCHEMA_ID)
            .version(TopicDataEncoder.SCHEMA_VERSION);
        final int block = offset + HEADER_LENGTH;
        buffer.putInt(block + TopicDataEncoder.topicIdEncodingOffset(), topicId, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(block + TopicDataEncoder.sessionIdEncodingOffset(), sessionId, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(block + TopicDataEncoder.sequenceEncodingOffset(), sequence, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(block + TopicDataEncoder.keyEncodingOffset(), key, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(block + TopicDataEncoder.BLOCK_LENGTH, dataLength, ByteOrder.LITTLE_ENDIAN);
        return TOPIC_DATA_HEADER_LENGTH + dataLength;
    }

    /** Encodes a whole TOPIC_DATA frame. */
    public int writeTopicData(
        final MutableDirectBuffer buffer,
        final int offset,
        final int topicId,
        final int sessionId,
        final long sequence,
        final long key,
        final DirectBuffer data,
        final int dataOffset,
        final int dataLength)
    {
        if (dataLength > 0)
        {
            buffer.putBytes(offset + TOPIC_DATA_HEADER_LENGTH, data, dataOffset, dataLength);
        }
        return writeTopicDataHeader(buffer, offset, topicId, sessionId, sequence, key, dataLength);
    }

    public int writeSubscribe(
        final MutableDirectBuffer buffer, final int offset, final int subscriptionId, final int initialCredits,
        final byte[] pattern)
    {
        subscribe.wrapAndApplyHeader(buffer, offset, header).subscriptionId(subscriptionId).initialCredits(initialCredits)
            .putPattern(pattern, 0, pattern.length);
        return HEADER_LENGTH + subscribe.encodedLength();
    }

    public int writeUnsubscribe(final MutableDirectBuffer buffer, final int offset, final int subscriptionId)
    {
        unsubscribe.wrapAndApplyHeader(buffer, offset, header).subscriptionId(subscriptionId);
        return HEADER_LENGTH + unsubscribe.encodedLength();
    }

    public int writeTopicStatus(
        final MutableDirectBuffer buffer, final int offset, final int topicId, final int sessionId, final int credits)
    {
        topicStatus.wrapAndApplyHeader(buffer, offset, header).topicId(topicId).sessionId(sessionId).credits(credits);
        return HEADER_LENGTH + topicStatus.encodedLength();
    }

    /**
     * @param policy a {@code TopicPolicy} value (0 BLOCK, 1 DROP_SLOW, 2 CONFLATE).
     */
    public int writeTopicAttach(
        final MutableDirectBuffer buffer,
        final int offset,
        final int subscriptionId,
        final int topicId,
        final int sessionId,
        final int policy,
        final long snapshotSequence,
        final int snapshotCount,
        final byte[] topic)
    {
        topicAttach.wrapAndApplyHeader(buffer, offset, header).subscriptionId(subscriptionId).topicId(topicId)
            .sessionId(sessionId);
        buffer.putByte(offset + HEADER_LENGTH + TopicAttachEncoder.policyEncodingOffset(), (byte)policy);
        topicAttach.snapshotSequence(snapshotSequence).snapshotCount(snapshotCount).putTopicName(topic, 0, topic.length);
        return HEADER_LENGTH + topicAttach.encodedLength();
    }

    public int writeTopicSnapshot(
        final MutableDirectBuffer buffer,
        final int offset,
        final int subscriptionId,
        final int topicId,
        final int sessionId,
        final long sequence,
        final long key,
        final DirectBuffer data,
        final int dataOffset,
        final int dataLength)
    {
        topicSnapshot.wrapAndApplyHeader(buffer, offset, header).subscriptionId(subscriptionId).topicId(topicId)
            .sessionId(sessionId).sequence(sequence).key(key).putData(orEmpty(data), dataOffset, dataLength);
        return HEADER_LENGTH + topicSnapshot.encodedLength();
    }

    /**
     * @param reason a {@code GapReason} value (1 CONFLATED, 2 LOST).
     */
    public int writeTopicGap(
        final MutableDirectBuffer buffer,
        final int offset,
        final int topicId,
        final int sessionId,
        final long fromSequence,
        final long toSequence,
        final int reason,
        final int entries)
    {
        topicGap.wrapAndApplyHeader(buffer, offset, header).topicId(topicId).sessionId(sessionId)
            .fromSequence(fromSequence).toSequence(toSequence);
        buffer.putByte(offset + HEADER_LENGTH + TopicGapEncoder.reasonEncodingOffset(), (byte)reason);
        topicGap.entries(entries);
        return HEADER_LENGTH + topicGap.encodedLength();
    }

    public int writeTopicHeartbeat(
        final MutableDirectBuffer buffer, final int offset, final int topicId, final int sessionId, final long sequence)
    {
        topicHeartbeat.wrapAndApplyHeader(buffer, offset, header).topicId(topicId).sessionId(sessionId).sequence(sequence);
        return HEADER_LENGTH + topicHeartbeat.encodedLength();
    }

    /**
     * @param reason a {@code DetachReason} value (1 CLOSED, 2 CUT_OFF, 3 TIMEOUT, 4 REJECTED, 5 UNSUBSCRIBED).
     */
    public int writeTopicDetach(
        final MutableDirectBuffer buffer,
        final int offset,
        final int topicId,
        final int sessionId,
        final long lastSequence,
        final int reason,
        final byte[] message)
    {
        topicDetach.wrapAndApplyHeader(buffer, offset, header).topicId(topicId).sessionId(sessionId)
            .lastSequence(lastSequence);
        buffer.putByte(offset + HEADER_LENGTH + TopicDetachEncoder.reasonEncodingOffset(), (byte)reason);
        topicDetach.putMessage(message, 0, message.length);
        return HEADER_LENGTH + topicDetach.encodedLength();
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

    // ----------------------------------------------------------------------------------- region frames

    public static int regionLookupLength(final int nameLength)
    {
        return HEADER_LENGTH + RegionLookupEncoder.BLOCK_LENGTH + RegionLookupEncoder.nameHeaderLength() + nameLength;
    }

    public static int regionInfoLength(final int endpointLength)
    {
        return HEADER_LENGTH + RegionInfoEncoder.BLOCK_LENGTH + RegionInfoEncoder.endpointHeaderLength() + endpointLength;
    }

    public static int regionErrorLength(final int messageLength)
    {
        return HEADER_LENGTH + RegionErrorEncoder.BLOCK_LENGTH + RegionErrorEncoder.messageHeaderLength() + messageLength;
    }

    public static int regionRevokedLength()
    {
        return HEADER_LENGTH + RegionRevokedEncoder.BLOCK_LENGTH;
    }

    public static int regionOpLength(final int dataLength)
    {
        return HEADER_LENGTH + RegionOpEncoder.BLOCK_LENGTH + RegionOpEncoder.dataHeaderLength() + dataLength;
    }

    public static int regionOpResultLength(final int dataLength)
    {
        return HEADER_LENGTH + RegionOpResultEncoder.BLOCK_LENGTH + RegionOpResultEncoder.dataHeaderLength() + dataLength;
    }

    public int writeRegionLookup(final MutableDirectBuffer buffer, final int offset, final long requestId, final byte[] name)
    {
        regionLookup.wrapAndApplyHeader(buffer, offset, header).requestId(requestId).putName(name, 0, name.length);
        return HEADER_LENGTH + regionLookup.encodedLength();
    }

    public int writeRegionInfo(
        final MutableDirectBuffer buffer,
        final int offset,
        final long requestId,
        final int regionId,
        final int rkey,
        final long address,
        final long length,
        final int access,
        final byte[] endpoint)
    {
        regionInfo.wrapAndApplyHeader(buffer, offset, header).requestId(requestId).regionId(regionId).rkey(rkey)
            .address(address).length(length).access((short)access).putEndpoint(endpoint, 0, endpoint.length);
        return HEADER_LENGTH + regionInfo.encodedLength();
    }

    public int writeRegionError(
        final MutableDirectBuffer buffer, final int offset, final long requestId, final int code, final byte[] message)
    {
        regionError.wrapAndApplyHeader(buffer, offset, header).requestId(requestId).code((short)code)
            .putMessage(message, 0, message.length);
        return HEADER_LENGTH + regionError.encodedLength();
    }

    public int writeRegionRevoked(final MutableDirectBuffer buffer, final int offset, final int regionId)
    {
        regionRevoked.wrapAndApplyHeader(buffer, offset, header).regionId(regionId);
        return HEADER_LENGTH + regionRevoked.encodedLength();
    }

    /**
     * Writes a REGION_OP; {@code data} (may be null) carries a WRITE's bytes.
     */
    public int writeRegionOp(
        final MutableDirectBuffer buffer,
        final int offset,
        final long requestId,
        final int regionId,
        final int rkey,
        final int op,
        final long regionOffset,
        final int length,
        final long compareAdd,
        final long swap,
        final DirectBuffer data,
        final int dataOffset,
        final int dataLength)
    {
        regionOp.wrapAndApplyHeader(buffer, offset, header).requestId(requestId).regionId(regionId).rkey(rkey)
            .op((short)op).regionOffset(regionOffset).length(length).compareAdd(compareAdd).swap(swap);
        if (data == null)
        {
            regionOp.putData(EMPTY, 0, 0);
        }
        else
        {
            regionOp.putData(data, dataOffset, dataLength);
        }
        return HEADER_LENGTH + regionOp.encodedLength();
    }

    /**
     * Writes a REGION_OP_RESULT; {@code data} (may be null) carries a READ's bytes.
     */
    public int writeRegionOpResult(
        final MutableDirectBuffer buffer,
        final int offset,
        final long requestId,
        final long value,
        final DirectBuffer data,
        final int dataOffset,
        final int dataLength)
    {
        regionOpResult.wrapAndApplyHeader(buffer, offset, header).requestId(requestId).value(value);
        if (data == null)
        {
            regionOpResult.putData(EMPTY, 0, 0);
        }
        else
        {
            regionOpResult.putData(data, dataOffset, dataLength);
        }
        return HEADER_LENGTH + regionOpResult.encodedLength();
    }

    // ---------------------------------------------------------------------------------- datagram offer

    /**
     * Length of a DATAGRAM_OFFER frame.
     *
     * @param addressLength bytes of the UTF-8 address.
     * @return the frame's encoded length.
     */
    public static int datagramOfferLength(final int addressLength)
    {
        return HEADER_LENGTH + DatagramOfferEncoder.BLOCK_LENGTH + DatagramOfferEncoder.addressHeaderLength() +
            addressLength;
    }

    /**
     * Encodes a DATAGRAM_OFFER: send this connection's topic data to me as reliable datagrams at this address and
     * session. The writer does not check the ranges; the peer's {@link FrameReader} does.
     *
     * @param buffer          to write into.
     * @param offset          where the frame starts.
     * @param sessionId       the datagram session the offering side receives on (not 0).
     * @param initialSequence the first sequence it expects.
     * @param maxPayload      the largest datagram payload it receives.
     * @param window          its receive window in datagrams (a power of two).
     * @param address         its datagram address, UTF-8.
     * @return the encoded length, {@link #datagramOfferLength(int)} of the address.
     */
    public int writeDatagramOffer(
        final MutableDirectBuffer buffer,
        final int offset,
        final int sessionId,
        final int initialSequence,
        final int maxPayload,
        final int window,
        final byte[] address)
    {
        datagramOffer.wrapAndApplyHeader(buffer, offset, header).sessionId(sessionId).initialSequence(initialSequence)
            .maxPayload(maxPayload).window(window).putAddress(address, 0, address.length);
        return HEADER_LENGTH + datagramOffer.encodedLength();
    }

    // ---------------------------------------------------------------------------------- topic multicast

    /** @return the length of a MULTICAST_OFFER with an address of {@code addressLength} UTF-8 bytes. */
    public static int multicastOfferLength(final int addressLength)
    {
        return HEADER_LENGTH + MulticastOfferEncoder.BLOCK_LENGTH + MulticastOfferEncoder.addressHeaderLength() +
            addressLength;
    }

    /**
     * Encodes a MULTICAST_OFFER: this node takes topic data from multicast groups.
     *
     * @param tag      its tag, for a publisher's tagged flow control.
     * @param maxImage the largest publication log it mirrors.
     * @param address  the unicast address of its receiving endpoint, UTF-8.
     * @return the encoded length.
     */
    public int writeMulticastOffer(
        final MutableDirectBuffer buffer, final int offset, final long tag, final int maxImage, final byte[] address)
    {
        multicastOffer.wrapAndApplyHeader(buffer, offset, header).tag(tag).maxImage(maxImage)
            .putAddress(address, 0, address.length);
        return HEADER_LENGTH + multicastOffer.encodedLength();
    }

    /** @return the length of a TOPIC_MULTICAST with the given UTF-8 lengths of group and source. */
    public static int topicMulticastLength(final int groupLength, final int sourceLength)
    {
        return HEADER_LENGTH + TopicMulticastEncoder.BLOCK_LENGTH + TopicMulticastEncoder.groupHeaderLength() +
            groupLength + TopicMulticastEncoder.sourceHeaderLength() + sourceLength;
    }

    /**
     * Encodes a TOPIC_MULTICAST: from {@code position} on, the topic's data comes from the group's stream.
     *
     * @param receiverId      the subscriber's receiver id at the publisher; 0 takes the data back to the connection.
     * @param streamSessionId the multicast stream's session.
     * @param logCapacity     the publication's log capacity (the image's size).
     * @param position        where the subscriber's stream starts (a record boundary).
     * @param group           the group, UTF-8 (empty with receiver 0).
     * @param source          the publisher's unicast address, the stream's source, UTF-8 (empty with receiver 0).
     * @return the encoded length.
     */
    public int writeTopicMulticast(
        final MutableDirectBuffer buffer,
        final int offset,
        final int topicId,
        final int sessionId,
        final int receiverId,
        final int streamSessionId,
        final int logCapacity,
        final long position,
        final byte[] group,
        final byte[] source)
    {
        topicMulticast.wrapAndApplyHeader(buffer, offset, header).topicId(topicId).sessionId(sessionId)
            .receiverId(receiverId).streamSessionId(streamSessionId).logCapacity(logCapacity).position(position)
            .putGroup(group, 0, group.length).putSource(source, 0, source.length);
        return HEADER_LENGTH + topicMulticast.encodedLength();
    }

    /** @return the length of a TOPIC_MULTICAST_LEFT with a reason of {@code reasonLength} UTF-8 bytes. */
    public static int topicMulticastLeftLength(final int reasonLength)
    {
        return HEADER_LENGTH + TopicMulticastLeftEncoder.BLOCK_LENGTH + TopicMulticastLeftEncoder.reasonHeaderLength() +
            reasonLength;
    }

    /**
     * Encodes a TOPIC_MULTICAST_LEFT: the subscriber stopped taking the topic from its group.
     *
     * @param receiverId the receiver id the hand-over gave it.
     * @param position   what it consumed: the connection goes on from there.
     * @param reason     why, UTF-8.
     * @return the encoded length.
     */
    public int writeTopicMulticastLeft(
        final MutableDirectBuffer buffer,
        final int offset,
        final int topicId,
        final int sessionId,
        final int receiverId,
        final long position,
        final byte[] reason)
    {
        topicMulticastLeft.wrapAndApplyHeader(buffer, offset, header).topicId(topicId).sessionId(sessionId)
            .receiverId(receiverId).position(position).putReason(reason, 0, reason.length);
        return HEADER_LENGTH + topicMulticastLeft.encodedLength();
    }
}
