package io.rivulet.codec;

import io.rivulet.codec.wire.CancelDecoder;
import io.rivulet.codec.wire.CloseDecoder;
import io.rivulet.codec.wire.DatagramOfferDecoder;
import io.rivulet.codec.wire.MulticastOfferDecoder;
import io.rivulet.codec.wire.TopicMulticastDecoder;
import io.rivulet.codec.wire.TopicMulticastLeftDecoder;
import io.rivulet.codec.wire.ErrorDecoder;
import io.rivulet.codec.wire.KeepaliveDecoder;
import io.rivulet.codec.wire.MessageHeaderDecoder;
import io.rivulet.codec.wire.PayloadDecoder;
import io.rivulet.codec.wire.RequestNDecoder;
import io.rivulet.codec.wire.RequestStreamDecoder;
import io.rivulet.codec.wire.RegionErrorDecoder;
import io.rivulet.codec.wire.RegionInfoDecoder;
import io.rivulet.codec.wire.RegionLookupDecoder;
import io.rivulet.codec.wire.RegionOpDecoder;
import io.rivulet.codec.wire.RegionOpResultDecoder;
import io.rivulet.codec.wire.RegionRevokedDecoder;
import io.rivulet.codec.wire.SetupDecoder;
import io.rivulet.codec.wire.SubscribeDecoder;
import io.rivulet.codec.wire.TopicAttachDecoder;
import io.rivulet.codec.wire.TopicDataDecoder;
import io.rivulet.codec.wire.TopicDetachDecoder;
import io.rivulet.codec.wire.TopicGapDecoder;
import io.rivulet.codec.wire.TopicHeartbeatDecoder;
import io.rivulet.codec.wire.TopicSnapshotDecoder;
import io.rivulet.codec.wire.TopicStatusDecoder;
import io.rivulet.codec.wire.UnsubscribeDecoder;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * A validating, allocation-free view over one frame received from the network.
 *
 * <p>Network bytes are hostile: {@link #wrap(DirectBuffer, int, int)} checks the header, the
 * template, the block length and every var-data length against the frame's bounds before any field
 * is read, and returns false with a fixed {@link #error()} text when the frame is malformed. Only
 * after a successful wrap are the accessors meaningful. Field offsets come from the generated SBE
 * codecs, so the layout has one source: the schema.
 *
 * <p>Not thread-safe; one instance per polling thread.
 */
public final class FrameReader
{
    public static final int SCHEMA_ID = MessageHeaderDecoder.SCHEMA_ID;
    /**
     * Longest topic name or subscription pattern, in UTF-8 bytes: short enough that every topic control frame
     * (the largest is TOPIC_ATTACH, 37 bytes plus the name) fits the smallest frame a peer may accept (256).
     */
    public static final int MAX_TOPIC_LENGTH = 200;
    private static final int HEADER = MessageHeaderDecoder.ENCODED_LENGTH;
    private static final int VAR_LENGTH_FIELD = PayloadDecoder.metadataHeaderLength();
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int MAX_POLICY = 2;
    private static final int MAX_GAP_REASON = 2;
    private static final int MAX_DETACH_REASON = 5;
    /** Region access bits: READ 1, WRITE 2, ATOMIC 4. */
    public static final int REGION_ACCESS_BITS = 7;
    /** Region operations: READ 1, WRITE 2, COMPARE_AND_SWAP 3, FETCH_AND_ADD 4. */
    public static final int REGION_OP_READ = 1;
    public static final int REGION_OP_WRITE = 2;
    public static final int REGION_OP_COMPARE_AND_SWAP = 3;
    public static final int REGION_OP_FETCH_AND_ADD = 4;
    /** Highest region error code (UNSUPPORTED). */
    public static final int MAX_REGION_ERROR = 7;
    /** Smallest datagram payload a DATAGRAM_OFFER may ask for: room for a topic frame's header and some data. */
    public static final int MIN_DATAGRAM_PAYLOAD = 64;
    /** Largest datagram payload a DATAGRAM_OFFER may ask for. */
    public static final int MAX_DATAGRAM_PAYLOAD = 65536;
    /** Largest window of a DATAGRAM_OFFER; the window is a power of two from 1 up to this. */
    public static final int MAX_DATAGRAM_WINDOW = 65536;
    /** Longest address of a DATAGRAM_OFFER in UTF-8 bytes, so that the offer fits the smallest frame (256). */
    public static final int MAX_DATAGRAM_ADDRESS_LENGTH = 200;
    /** Longest group of a TOPIC_MULTICAST in UTF-8 bytes. */
    public static final int MAX_MULTICAST_GROUP_LENGTH = 100;
    /** Smallest log a TOPIC_MULTICAST may announce. */
    public static final int MIN_MULTICAST_LOG = 4096;

    private DirectBuffer buffer;
    private int frameOffset;
    private int frameLength;
    private int frameType;
    private int blockOffset;
    private int streamId;
    private byte flags;
    private int initialRequestN;
    private int requestN;
    private int errorCode;
    private long timestampNs;
    private boolean respond;
    private int protocolVersion;
    private int keepaliveIntervalMs;
    private int keepaliveTimeoutMs;
    private int maxFrameLength;
    private int metadataOffset;
    private int metadataLength;
    private int dataOffset;
    private int dataLength;
    private String error;
    // Topic frames.
    private int topicId;
    private int sessionId;
    private long sequence;
    private long key;
    private int subscriptionId;
    private int credits;
    private int policy;
    private int count;
    private long fromSequence;
    private long toSequence;
    private int reason;
    // Region frames.
    private long requestId;
    private int regionId;
    private int rkey;
    private long address;
    private long regionLength;
    private int access;
    private int op;
    private long regionOffset;
    private int opLength;
    private long compareAdd;
    private long swap;
    private long value;
    // Topic multicast.
    private long tag;
    private int receiverId;
    private int streamSessionId;
    private int logCapacity;
    private long position;
    // Datagram offer.
    private int initialSequence;
    private int maxPayload;
    private int window;

    /**
     * Validates a frame and makes its fields readable.
     *
     * @param buffer holding the frame.
     * @param offset of the frame's first byte (its SBE header).
     * @param length of the frame as delimited by the transport.
     * @return true when the frame is well formed; false with {@link #error()} set otherwise.
     */
    public boolean wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.frameOffset = offset;
        this.frameLength = length;
        this.error = null;
        metadataOffset = dataOffset = offset;
        metadataLength = dataLength = 0;
        streamId = 0;
        flags = 0;

        if (length < HEADER)
        {
            return fail("frame shorter than its header");
        }
        final int blockLength = buffer.getShort(offset, ORDER) & 0xFFFF;
        final int templateId = buffer.getShort(offset + 2, ORDER) & 0xFFFF;
        final int schemaId = buffer.getShort(offset + 4, ORDER) & 0xFFFF;
        final int version = buffer.getShort(offset + 6, ORDER) & 0xFFFF;
        if (schemaId != SCHEMA_ID)
        {
            return fail("unknown schema id");
        }
        if (version < 1)
        {
            return fail("unsupported schema version");
        }
        final int minBlock = minBlockLength(templateId);
        if (minBlock < 0)
        {
            return fail("unknown frame type");
        }
        if (blockLength < minBlock)
        {
            return fail("block length shorter than the frame type requires");
        }
        if (blockLength > length - HEADER)
        {
            return fail("block length beyond the end of the frame");
        }

        frameType = templateId;
        blockOffset = offset + HEADER;
        final int end = offset + length;
        final int position = readFields(templateId, blockOffset + blockLength, end);
        if (position < 0)
        {
            return false;
        }
        if (position != end)
        {
            return fail("frame length does not match its contents");
        }
        if (streamId < 0)
        {
            return fail("negative stream id");
        }
        return true;
    }

    /**
     * Reads and range-checks the fixed fields of one frame type, then its var data.
     *
     * @param templateId a known frame type (its block length already checked).
     * @param position   just after the block, where the var data starts.
     * @param end        just after the frame.
     * @return the position after the var data, or -1 with {@link #error()} set.
     */
    private int readFields(final int templateId, final int position, final int end)
    {
        switch (templateId)
        {
            case FrameType.SETUP: return readSetup(position, end);
            case FrameType.REQUEST_FNF:
            case FrameType.REQUEST_RESPONSE:
            case FrameType.PAYLOAD: return readPayload(position, end);
            case FrameType.REQUEST_STREAM:
            case FrameType.REQUEST_CHANNEL: return readRequestStream(position, end);
            case FrameType.REQUEST_N: return readRequestN(position);
            case FrameType.CANCEL: return readCancel(position);
            case FrameType.ERROR: return readError(position, end);
            case FrameType.KEEPALIVE: return readKeepalive(position);
            case FrameType.CLOSE: return readClose(position, end);
            case FrameType.TOPIC_DATA: return readTopicData(position, end);
            case FrameType.SUBSCRIBE: return readSubscribe(position, end);
            case FrameType.UNSUBSCRIBE: return readUnsubscribe(position);
            case FrameType.TOPIC_STATUS: return readTopicStatus(position);
            case FrameType.TOPIC_ATTACH: return readTopicAttach(position, end);
            case FrameType.TOPIC_SNAPSHOT: return readTopicSnapshot(position, end);
            case FrameType.TOPIC_GAP: return readTopicGap(position);
            case FrameType.TOPIC_HEARTBEAT: return readTopicHeartbeat(position);
            case FrameType.TOPIC_DETACH: return readTopicDetach(position, end);
            case FrameType.REGION_LOOKUP: return readRegionLookup(position, end);
            case FrameType.REGION_INFO: return readRegionInfo(position, end);
            case FrameType.REGION_ERROR: return readRegionError(position, end);
            case FrameType.REGION_REVOKED: return readRegionRevoked(position);
            case FrameType.REGION_OP: return readRegionOp(position, end);
            case FrameType.REGION_OP_RESULT: return readRegionOpResult(position, end);
            case FrameType.DATAGRAM_OFFER: return readDatagramOffer(position, end);
            case FrameType.MULTICAST_OFFER: return readMulticastOffer(position, end);
            case FrameType.TOPIC_MULTICAST: return readTopicMulticast(position, end);
            case FrameType.TOPIC_MULTICAST_LEFT: return readTopicMulticastLeft(position, end);
            default: return reject("unknown frame type");
        }
    }

    // Each readX below reads one frame type's block at blockOffset; position and end bound its var data.
    // They return the position after the frame's var data, or -1 with the error set.

    private int readSetup(final int position, final int end)
    {
        protocolVersion = buffer.getShort(blockOffset + SetupDecoder.protocolVersionEncodingOffset(), ORDER) & 0xFFFF;
        keepaliveIntervalMs = buffer.getInt(blockOffset + SetupDecoder.keepaliveIntervalMsEncodingOffset(), ORDER);
        keepaliveTimeoutMs = buffer.getInt(blockOffset + SetupDecoder.keepaliveTimeoutMsEncodingOffset(), ORDER);
        maxFrameLength = buffer.getInt(blockOffset + SetupDecoder.maxFrameLengthEncodingOffset(), ORDER);
        return readMetadataAndData(position, end);
    }

    /** REQUEST_FNF, REQUEST_RESPONSE and PAYLOAD share one layout. */
    private int readPayload(final int position, final int end)
    {
        streamId = buffer.getInt(blockOffset + PayloadDecoder.streamIdEncodingOffset(), ORDER);
        flags = buffer.getByte(blockOffset + PayloadDecoder.flagsEncodingOffset());
        return readMetadataAndData(position, end);
    }

    /** REQUEST_STREAM and REQUEST_CHANNEL share one layout. */
    private int readRequestStream(final int position, final int end)
    {
        streamId = buffer.getInt(blockOffset + RequestStreamDecoder.streamIdEncodingOffset(), ORDER);
        initialRequestN = buffer.getInt(blockOffset + RequestStreamDecoder.initialRequestNEncodingOffset(), ORDER);
        flags = buffer.getByte(blockOffset + RequestStreamDecoder.flagsEncodingOffset());
        if (initialRequestN < 0)
        {
            return reject("negative initial request n");
        }
        return readMetadataAndData(position, end);
    }

    private int readRequestN(final int position)
    {
        streamId = buffer.getInt(blockOffset + RequestNDecoder.streamIdEncodingOffset(), ORDER);
        requestN = buffer.getInt(blockOffset + RequestNDecoder.nEncodingOffset(), ORDER);
        if (requestN <= 0)
        {
            return reject("request n must be positive");
        }
        return position;
    }

    private int readCancel(final int position)
    {
        streamId = buffer.getInt(blockOffset + CancelDecoder.streamIdEncodingOffset(), ORDER);
        return position;
    }

    private int readError(final int position, final int end)
    {
        streamId = buffer.getInt(blockOffset + ErrorDecoder.streamIdEncodingOffset(), ORDER);
        errorCode = buffer.getInt(blockOffset + ErrorDecoder.codeEncodingOffset(), ORDER);
        return readData(position, end);
    }

    private int readKeepalive(final int position)
    {
        respond = (buffer.getByte(blockOffset + KeepaliveDecoder.flagsEncodingOffset()) & 1) != 0;
        timestampNs = buffer.getLong(blockOffset + KeepaliveDecoder.timestampNsEncodingOffset(), ORDER);
        return position;
    }

    private int readClose(final int position, final int end)
    {
        errorCode = buffer.getInt(blockOffset + CloseDecoder.codeEncodingOffset(), ORDER);
        return readData(position, end);
    }

    // Fan-out topics: every field a peer could abuse is range-checked here, once.

    private int readTopicData(final int position, final int end)
    {
        topicId = buffer.getInt(blockOffset + TopicDataDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicDataDecoder.sessionIdEncodingOffset(), ORDER);
        sequence = buffer.getLong(blockOffset + TopicDataDecoder.sequenceEncodingOffset(), ORDER);
        key = buffer.getLong(blockOffset + TopicDataDecoder.keyEncodingOffset(), ORDER);
        if (topicId <= 0 || sequence <= 0)
        {
            return reject("topic id and sequence must be positive");
        }
        return readData(position, end);
    }

    private int readSubscribe(final int position, final int end)
    {
        subscriptionId = buffer.getInt(blockOffset + SubscribeDecoder.subscriptionIdEncodingOffset(), ORDER);
        credits = buffer.getInt(blockOffset + SubscribeDecoder.initialCreditsEncodingOffset(), ORDER);
        if (subscriptionId <= 0 || credits < 0)
        {
            return reject("subscription id must be positive and credits not negative");
        }
        return readTopicName(position, end);
    }

    private int readUnsubscribe(final int position)
    {
        subscriptionId = buffer.getInt(blockOffset + UnsubscribeDecoder.subscriptionIdEncodingOffset(), ORDER);
        if (subscriptionId <= 0)
        {
            return reject("subscription id must be positive");
        }
        return position;
    }

    private int readTopicStatus(final int position)
    {
        topicId = buffer.getInt(blockOffset + TopicStatusDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicStatusDecoder.sessionIdEncodingOffset(), ORDER);
        credits = buffer.getInt(blockOffset + TopicStatusDecoder.creditsEncodingOffset(), ORDER);
        if (topicId <= 0 || credits < 0)
        {
            return reject("topic id must be positive and credits not negative");
        }
        return position;
    }

    private int readTopicAttach(final int position, final int end)
    {
        subscriptionId = buffer.getInt(blockOffset + TopicAttachDecoder.subscriptionIdEncodingOffset(), ORDER);
        topicId = buffer.getInt(blockOffset + TopicAttachDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicAttachDecoder.sessionIdEncodingOffset(), ORDER);
        policy = buffer.getByte(blockOffset + TopicAttachDecoder.policyEncodingOffset()) & 0xFF;
        sequence = buffer.getLong(blockOffset + TopicAttachDecoder.snapshotSequenceEncodingOffset(), ORDER);
        count = buffer.getInt(blockOffset + TopicAttachDecoder.snapshotCountEncodingOffset(), ORDER);
        if (subscriptionId <= 0 || topicId <= 0 || policy > MAX_POLICY || sequence < 0 || count < 0)
        {
            return reject("invalid TOPIC_ATTACH field");
        }
        return readTopicName(position, end);
    }

    private int readTopicSnapshot(final int position, final int end)
    {
        subscriptionId = buffer.getInt(blockOffset + TopicSnapshotDecoder.subscriptionIdEncodingOffset(), ORDER);
        topicId = buffer.getInt(blockOffset + TopicSnapshotDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicSnapshotDecoder.sessionIdEncodingOffset(), ORDER);
        sequence = buffer.getLong(blockOffset + TopicSnapshotDecoder.sequenceEncodingOffset(), ORDER);
        key = buffer.getLong(blockOffset + TopicSnapshotDecoder.keyEncodingOffset(), ORDER);
        if (subscriptionId < 0 || topicId <= 0 || sequence <= 0)
        {
            return reject("invalid TOPIC_SNAPSHOT field");
        }
        return readData(position, end);
    }

    private int readTopicGap(final int position)
    {
        topicId = buffer.getInt(blockOffset + TopicGapDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicGapDecoder.sessionIdEncodingOffset(), ORDER);
        fromSequence = buffer.getLong(blockOffset + TopicGapDecoder.fromSequenceEncodingOffset(), ORDER);
        toSequence = buffer.getLong(blockOffset + TopicGapDecoder.toSequenceEncodingOffset(), ORDER);
        reason = buffer.getByte(blockOffset + TopicGapDecoder.reasonEncodingOffset()) & 0xFF;
        count = buffer.getInt(blockOffset + TopicGapDecoder.entriesEncodingOffset(), ORDER);
        if (topicId <= 0 || fromSequence <= 0 || toSequence < fromSequence || reason < 1 ||
            reason > MAX_GAP_REASON || count < 0)
        {
            return reject("invalid TOPIC_GAP field");
        }
        return position;
    }

    private int readTopicHeartbeat(final int position)
    {
        topicId = buffer.getInt(blockOffset + TopicHeartbeatDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicHeartbeatDecoder.sessionIdEncodingOffset(), ORDER);
        sequence = buffer.getLong(blockOffset + TopicHeartbeatDecoder.sequenceEncodingOffset(), ORDER);
        if (topicId <= 0 || sequence < 0)
        {
            return reject("invalid TOPIC_HEARTBEAT field");
        }
        return position;
    }

    private int readTopicDetach(final int position, final int end)
    {
        topicId = buffer.getInt(blockOffset + TopicDetachDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicDetachDecoder.sessionIdEncodingOffset(), ORDER);
        sequence = buffer.getLong(blockOffset + TopicDetachDecoder.lastSequenceEncodingOffset(), ORDER);
        reason = buffer.getByte(blockOffset + TopicDetachDecoder.reasonEncodingOffset()) & 0xFF;
        if (topicId <= 0 || sequence < 0 || reason < 1 || reason > MAX_DETACH_REASON)
        {
            return reject("invalid TOPIC_DETACH field");
        }
        return readData(position, end);
    }

    // One-sided remote memory: ids, ranges and shapes checked here; the engine checks them against its regions.

    private int readRegionLookup(final int position, final int end)
    {
        requestId = buffer.getLong(blockOffset + RegionLookupDecoder.requestIdEncodingOffset(), ORDER);
        if (requestId <= 0)
        {
            return reject("region request id must be positive");
        }
        return readTopicName(position, end);
    }

    private int readRegionInfo(final int position, final int end)
    {
        requestId = buffer.getLong(blockOffset + RegionInfoDecoder.requestIdEncodingOffset(), ORDER);
        regionId = buffer.getInt(blockOffset + RegionInfoDecoder.regionIdEncodingOffset(), ORDER);
        rkey = buffer.getInt(blockOffset + RegionInfoDecoder.rkeyEncodingOffset(), ORDER);
        address = buffer.getLong(blockOffset + RegionInfoDecoder.addressEncodingOffset(), ORDER);
        regionLength = buffer.getLong(blockOffset + RegionInfoDecoder.lengthEncodingOffset(), ORDER);
        access = buffer.getByte(blockOffset + RegionInfoDecoder.accessEncodingOffset()) & 0xFF;
        if (requestId <= 0 || regionId <= 0 || regionLength <= 0 || regionLength > Integer.MAX_VALUE ||
            access == 0 || (access & ~REGION_ACCESS_BITS) != 0)
        {
            return reject("invalid REGION_INFO field");
        }
        final int after = readData(position, end);
        if (after >= 0 && dataLength > MAX_TOPIC_LENGTH)
        {
            return reject("region endpoint longer than " + MAX_TOPIC_LENGTH + " bytes");
        }
        return after;
    }

    private int readRegionError(final int position, final int end)
    {
        requestId = buffer.getLong(blockOffset + RegionErrorDecoder.requestIdEncodingOffset(), ORDER);
        errorCode = buffer.getByte(blockOffset + RegionErrorDecoder.codeEncodingOffset()) & 0xFF;
        if (requestId <= 0 || errorCode < 1 || errorCode > MAX_REGION_ERROR)
        {
            return reject("invalid REGION_ERROR field");
        }
        return readData(position, end);
    }

    private int readRegionRevoked(final int position)
    {
        regionId = buffer.getInt(blockOffset + RegionRevokedDecoder.regionIdEncodingOffset(), ORDER);
        if (regionId <= 0)
        {
            return reject("region id must be positive");
        }
        return position;
    }

    private int readRegionOp(final int position, final int end)
    {
        requestId = buffer.getLong(blockOffset + RegionOpDecoder.requestIdEncodingOffset(), ORDER);
        regionId = buffer.getInt(blockOffset + RegionOpDecoder.regionIdEncodingOffset(), ORDER);
        rkey = buffer.getInt(blockOffset + RegionOpDecoder.rkeyEncodingOffset(), ORDER);
        op = buffer.getByte(blockOffset + RegionOpDecoder.opEncodingOffset()) & 0xFF;
        regionOffset = buffer.getLong(blockOffset + RegionOpDecoder.regionOffsetEncodingOffset(), ORDER);
        opLength = buffer.getInt(blockOffset + RegionOpDecoder.lengthEncodingOffset(), ORDER);
        compareAdd = buffer.getLong(blockOffset + RegionOpDecoder.compareAddEncodingOffset(), ORDER);
        swap = buffer.getLong(blockOffset + RegionOpDecoder.swapEncodingOffset(), ORDER);
        if (requestId <= 0 || regionId <= 0 || op < REGION_OP_READ || op > REGION_OP_FETCH_AND_ADD ||
            regionOffset < 0 || opLength <= 0)
        {
            return reject("invalid REGION_OP field");
        }
        final int after = readData(position, end);
        if (after >= 0 && !regionOpShapeValid())
        {
            return reject("REGION_OP length does not fit its operation");
        }
        return after;
    }

    private int readRegionOpResult(final int position, final int end)
    {
        requestId = buffer.getLong(blockOffset + RegionOpResultDecoder.requestIdEncodingOffset(), ORDER);
        value = buffer.getLong(blockOffset + RegionOpResultDecoder.valueEncodingOffset(), ORDER);
        if (requestId <= 0)
        {
            return reject("region request id must be positive");
        }
        return readData(position, end);
    }

    /** Reliable datagrams: the offer sizes the receiver's window and buffers, so every bound is checked here. */
    private int readDatagramOffer(final int position, final int end)
    {
        sessionId = buffer.getInt(blockOffset + DatagramOfferDecoder.sessionIdEncodingOffset(), ORDER);
        initialSequence = buffer.getInt(blockOffset + DatagramOfferDecoder.initialSequenceEncodingOffset(), ORDER);
        maxPayload = buffer.getInt(blockOffset + DatagramOfferDecoder.maxPayloadEncodingOffset(), ORDER);
        window = buffer.getInt(blockOffset + DatagramOfferDecoder.windowEncodingOffset(), ORDER);
        if (sessionId == 0)
        {
            return reject("DATAGRAM_OFFER session id must not be 0");
        }
        if (maxPayload < MIN_DATAGRAM_PAYLOAD || maxPayload > MAX_DATAGRAM_PAYLOAD)
        {
            return reject("DATAGRAM_OFFER max payload must be " + MIN_DATAGRAM_PAYLOAD + " to " +
                MAX_DATAGRAM_PAYLOAD + " bytes");
        }
        if (window <= 0 || window > MAX_DATAGRAM_WINDOW || (window & (window - 1)) != 0)
        {
            return reject("DATAGRAM_OFFER window must be a power of two from 1 to " + MAX_DATAGRAM_WINDOW);
        }
        final int after = readData(position, end);
        if (after >= 0 && (dataLength < 1 || dataLength > MAX_DATAGRAM_ADDRESS_LENGTH))
        {
            return reject("DATAGRAM_OFFER address must be 1 to " + MAX_DATAGRAM_ADDRESS_LENGTH + " bytes");
        }
        return after;
    }

    /** Topic multicast: the offer sizes nothing but a later image (bounded by maxImage), its address is bounded here. */
    private int readMulticastOffer(final int position, final int end)
    {
        tag = buffer.getLong(blockOffset + MulticastOfferDecoder.tagEncodingOffset(), ORDER);
        logCapacity = buffer.getInt(blockOffset + MulticastOfferDecoder.maxImageEncodingOffset(), ORDER);
        if (logCapacity < MIN_MULTICAST_LOG)
        {
            return reject("MULTICAST_OFFER max image must be at least " + MIN_MULTICAST_LOG + " bytes");
        }
        final int after = readData(position, end);
        if (after >= 0 && (dataLength < 1 || dataLength > MAX_DATAGRAM_ADDRESS_LENGTH))
        {
            return reject("MULTICAST_OFFER address must be 1 to " + MAX_DATAGRAM_ADDRESS_LENGTH + " bytes");
        }
        return after;
    }

    /** The hand-over sizes the subscriber's image: the capacity is a power of two, the rest bounded. */
    private int readTopicMulticast(final int position, final int end)
    {
        topicId = buffer.getInt(blockOffset + TopicMulticastDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicMulticastDecoder.sessionIdEncodingOffset(), ORDER);
        receiverId = buffer.getInt(blockOffset + TopicMulticastDecoder.receiverIdEncodingOffset(), ORDER);
        streamSessionId = buffer.getInt(blockOffset + TopicMulticastDecoder.streamSessionIdEncodingOffset(), ORDER);
        logCapacity = buffer.getInt(blockOffset + TopicMulticastDecoder.logCapacityEncodingOffset(), ORDER);
        this.position = buffer.getLong(blockOffset + TopicMulticastDecoder.positionEncodingOffset(), ORDER);
        if (topicId <= 0 || sessionId == 0 || receiverId < 0)
        {
            return reject("invalid TOPIC_MULTICAST topic, session or receiver");
        }
        if (receiverId > 0 && (streamSessionId == 0 || this.position < 0 || logCapacity < MIN_MULTICAST_LOG ||
            (logCapacity & (logCapacity - 1)) != 0))
        {
            return reject("TOPIC_MULTICAST needs a stream session, a position of at least 0 and a log capacity that " +
                "is a power of two of at least " + MIN_MULTICAST_LOG);
        }
        final int after = readMetadataAndData(position, end);
        if (after >= 0 && receiverId > 0 && (metadataLength < 1 || metadataLength > MAX_MULTICAST_GROUP_LENGTH ||
            dataLength < 1 || dataLength > MAX_DATAGRAM_ADDRESS_LENGTH))
        {
            return reject("TOPIC_MULTICAST group must be 1 to " + MAX_MULTICAST_GROUP_LENGTH + " bytes and its source 1 " +
                "to " + MAX_DATAGRAM_ADDRESS_LENGTH);
        }
        return after;
    }

    private int readTopicMulticastLeft(final int position, final int end)
    {
        topicId = buffer.getInt(blockOffset + TopicMulticastLeftDecoder.topicIdEncodingOffset(), ORDER);
        sessionId = buffer.getInt(blockOffset + TopicMulticastLeftDecoder.sessionIdEncodingOffset(), ORDER);
        receiverId = buffer.getInt(blockOffset + TopicMulticastLeftDecoder.receiverIdEncodingOffset(), ORDER);
        this.position = buffer.getLong(blockOffset + TopicMulticastLeftDecoder.positionEncodingOffset(), ORDER);
        if (topicId <= 0 || sessionId == 0 || receiverId <= 0 || this.position < 0)
        {
            return reject("invalid TOPIC_MULTICAST_LEFT field");
        }
        final int after = readData(position, end);
        if (after >= 0 && dataLength > MAX_DATAGRAM_ADDRESS_LENGTH)
        {
            return reject("TOPIC_MULTICAST_LEFT reason must be at most " + MAX_DATAGRAM_ADDRESS_LENGTH + " bytes");
        }
        return after;
    }

    /** READ names a length and carries no data; WRITE carries exactly its length; atomics are 8 bytes, no data. */
    private boolean regionOpShapeValid()
    {
        switch (op)
        {
            case REGION_OP_READ:
                return dataLength == 0;
            case REGION_OP_WRITE:
                return dataLength == opLength;
            default:
                return opLength == Long.BYTES && dataLength == 0;
        }
    }

    private int readMetadataAndData(final int position, final int end)
    {
        final int afterMetadata = readVar(position, end);
        if (afterMetadata < 0)
        {
            return -1;
        }
        metadataOffset = position + VAR_LENGTH_FIELD;
        metadataLength = afterMetadata - metadataOffset;
        return readData(afterMetadata, end);
    }

    private int readData(final int position, final int end)
    {
        final int afterData = readVar(position, end);
        if (afterData < 0)
        {
            return -1;
        }
        dataOffset = position + VAR_LENGTH_FIELD;
        dataLength = afterData - dataOffset;
        return afterData;
    }

    /** A topic name or pattern: 1 to {@link #MAX_TOPIC_LENGTH} bytes, kept in the data accessors. */
    private int readTopicName(final int position, final int end)
    {
        final int after = readData(position, end);
        if (after >= 0 && (dataLength < 1 || dataLength > MAX_TOPIC_LENGTH))
        {
            return reject("topic name or pattern must be 1 to " + MAX_TOPIC_LENGTH + " bytes");
        }
        return after;
    }

    /** @return the position after the var-data field, or -1 when its length runs past {@code end}. */
    private int readVar(final int position, final int end)
    {
        if (end - position < VAR_LENGTH_FIELD)
        {
            return reject("var-data length field beyond the end of the frame");
        }
        final long length = buffer.getInt(position, ORDER) & 0xFFFF_FFFFL;
        if (length > end - position - VAR_LENGTH_FIELD)
        {
            return reject("var-data length beyond the end of the frame");
        }
        return position + VAR_LENGTH_FIELD + (int)length;
    }

    private boolean fail(final String reason)
    {
        error = reason;
        return false;
    }

    /** {@link #fail} for the position-returning readers: -1 means the frame is rejected. */
    private int reject(final String reason)
    {
        error = reason;
        return -1;
    }

    private static int minBlockLength(final int templateId)
    {
        switch (templateId)
        {
            case FrameType.SETUP: return SetupDecoder.BLOCK_LENGTH;
            case FrameType.REQUEST_FNF:
            case FrameType.REQUEST_RESPONSE:
            case FrameType.PAYLOAD: return PayloadDecoder.BLOCK_LENGTH;
            case FrameType.REQUEST_STREAM:
            case FrameType.REQUEST_CHANNEL: return RequestStreamDecoder.BLOCK_LENGTH;
            case FrameType.REQUEST_N: return RequestNDecoder.BLOCK_LENGTH;
            case FrameType.CANCEL: return CancelDecoder.BLOCK_LENGTH;
            case FrameType.ERROR: return ErrorDecoder.BLOCK_LENGTH;
            case FrameType.KEEPALIVE: return KeepaliveDecoder.BLOCK_LENGTH;
            case FrameType.CLOSE: return CloseDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_DATA: return TopicDataDecoder.BLOCK_LENGTH;
            case FrameType.SUBSCRIBE: return SubscribeDecoder.BLOCK_LENGTH;
            case FrameType.UNSUBSCRIBE: return UnsubscribeDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_STATUS: return TopicStatusDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_ATTACH: return TopicAttachDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_SNAPSHOT: return TopicSnapshotDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_GAP: return TopicGapDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_HEARTBEAT: return TopicHeartbeatDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_DETACH: return TopicDetachDecoder.BLOCK_LENGTH;
            case FrameType.REGION_LOOKUP: return RegionLookupDecoder.BLOCK_LENGTH;
            case FrameType.REGION_INFO: return RegionInfoDecoder.BLOCK_LENGTH;
            case FrameType.REGION_ERROR: return RegionErrorDecoder.BLOCK_LENGTH;
            case FrameType.REGION_REVOKED: return RegionRevokedDecoder.BLOCK_LENGTH;
            case FrameType.REGION_OP: return RegionOpDecoder.BLOCK_LENGTH;
            case FrameType.REGION_OP_RESULT: return RegionOpResultDecoder.BLOCK_LENGTH;
            case FrameType.DATAGRAM_OFFER: return DatagramOfferDecoder.BLOCK_LENGTH;
            case FrameType.MULTICAST_OFFER: return MulticastOfferDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_MULTICAST: return TopicMulticastDecoder.BLOCK_LENGTH;
            case FrameType.TOPIC_MULTICAST_LEFT: return TopicMulticastLeftDecoder.BLOCK_LENGTH;
            default: return -1;
        }
    }

    /** @return why the last {@link #wrap} failed, or null after a successful one. */
    public String error()
    {
        return error;
    }

    public DirectBuffer buffer()
    {
        return buffer;
    }

    public int frameOffset()
    {
        return frameOffset;
    }

    public int frameLength()
    {
        return frameLength;
    }

    /** @return a {@link FrameType} constant. */
    public int frameType()
    {
        return frameType;
    }

    public int streamId()
    {
        return streamId;
    }

    /** @return {@link FrameFlags} bits of a request or payload frame. */
    public byte flags()
    {
        return flags;
    }

    public boolean hasFlag(final byte bit)
    {
        return (flags & bit) != 0;
    }

    public int initialRequestN()
    {
        return initialRequestN;
    }

    public int requestN()
    {
        return requestN;
    }

    /** @return the raw error code of an ERROR or CLOSE frame, or the region error code (1..7) of REGION_ERROR. */
    public int errorCode()
    {
        return errorCode;
    }

    public boolean respond()
    {
        return respond;
    }

    public long timestampNs()
    {
        return timestampNs;
    }

    public int protocolVersion()
    {
        return protocolVersion;
    }

    public int keepaliveIntervalMs()
    {
        return keepaliveIntervalMs;
    }

    public int keepaliveTimeoutMs()
    {
        return keepaliveTimeoutMs;
    }

    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    public int metadataOffset()
    {
        return metadataOffset;
    }

    public int metadataLength()
    {
        return metadataLength;
    }

    /** @return offset of the data, or of the UTF-8 message of an ERROR / CLOSE frame. */
    public int dataOffset()
    {
        return dataOffset;
    }

    public int dataLength()
    {
        return dataLength;
    }

    // ------------------------------------------------------------------------------------ topic frames

    /** @return the topic id of TOPIC_DATA, TOPIC_STATUS, TOPIC_ATTACH, TOPIC_SNAPSHOT, TOPIC_GAP, TOPIC_HEARTBEAT, TOPIC_DETACH (positive). */
    public int topicId()
    {
        return topicId;
    }

    /** @return the publication session of a topic frame, or the datagram session of DATAGRAM_OFFER (not 0). */
    public int sessionId()
    {
        return sessionId;
    }

    /**
     * @return the sequence of TOPIC_DATA / TOPIC_SNAPSHOT (positive), the snapshot sequence of TOPIC_ATTACH,
     * the highest published sequence of TOPIC_HEARTBEAT and the last sequence of TOPIC_DETACH (not negative).
     */
    public long sequence()
    {
        return sequence;
    }

    /** @return the conflation key of TOPIC_DATA and TOPIC_SNAPSHOT. */
    public long key()
    {
        return key;
    }

    /** @return the subscription of SUBSCRIBE, UNSUBSCRIBE, TOPIC_ATTACH (positive) or TOPIC_SNAPSHOT (0 = catch-up). */
    public int subscriptionId()
    {
        return subscriptionId;
    }

    /** @return the initial credits of SUBSCRIBE or the credits of TOPIC_STATUS (not negative). */
    public int credits()
    {
        return credits;
    }

    /** @return the {@code TopicPolicy} value of TOPIC_ATTACH (0..2). */
    public int policy()
    {
        return policy;
    }

    /** @return the snapshot count of TOPIC_ATTACH or the catch-up entries of TOPIC_GAP (not negative). */
    public int count()
    {
        return count;
    }

    /** @return the first missing sequence of TOPIC_GAP. */
    public long fromSequence()
    {
        return fromSequence;
    }

    /** @return the last missing sequence of TOPIC_GAP (at least {@link #fromSequence()}). */
    public long toSequence()
    {
        return toSequence;
    }

    /** @return the {@code GapReason} of TOPIC_GAP or the {@code DetachReason} of TOPIC_DETACH. */
    public int reason()
    {
        return reason;
    }

    /**
     * @return the UTF-8 text of an ERROR or CLOSE frame, the pattern of SUBSCRIBE, the topic of TOPIC_ATTACH,
     * the message of TOPIC_DETACH, the address of DATAGRAM_OFFER and MULTICAST_OFFER, the source of TOPIC_MULTICAST and
     * the reason of TOPIC_MULTICAST_LEFT (allocates; control path only).
     */
    public String text()
    {
        return buffer.getStringWithoutLengthUtf8(dataOffset, dataLength);
    }

    // ----------------------------------------------------------------------------------- region frames

    /** @return the correlation id of REGION_LOOKUP, REGION_INFO, REGION_ERROR, REGION_OP, REGION_OP_RESULT (positive). */
    public long requestId()
    {
        return requestId;
    }

    /** @return the region id of REGION_INFO, REGION_REVOKED and REGION_OP (positive). */
    public int regionId()
    {
        return regionId;
    }

    /** @return the remote key of REGION_INFO and REGION_OP. */
    public int rkey()
    {
        return rkey;
    }

    /** @return the region's address in the target's memory (REGION_INFO; meaningful over RDMA only). */
    public long address()
    {
        return address;
    }

    /** @return the region's length of REGION_INFO (1 .. Integer.MAX_VALUE). */
    public long regionLength()
    {
        return regionLength;
    }

    /** @return the access bits of REGION_INFO (non-empty subset of READ 1, WRITE 2, ATOMIC 4). */
    public int access()
    {
        return access;
    }

    /** @return the operation of REGION_OP (1..4, see the REGION_OP_ constants). */
    public int op()
    {
        return op;
    }

    /** @return the byte offset into the region of REGION_OP (not negative). */
    public long regionOffset()
    {
        return regionOffset;
    }

    /** @return the length of REGION_OP: bytes to read or written, 8 for atomics (positive). */
    public int opLength()
    {
        return opLength;
    }

    /** @return the compare value of a COMPARE_AND_SWAP or the delta of a FETCH_AND_ADD. */
    public long compareAdd()
    {
        return compareAdd;
    }

    /** @return the new value of a COMPARE_AND_SWAP. */
    public long swap()
    {
        return swap;
    }

    /** @return the previous value an atomic found, in REGION_OP_RESULT. */
    public long value()
    {
        return value;
    }

    // ---------------------------------------------------------------------------------- datagram offer

    // ------------------------------------------------------------------------------- topic multicast

    /** @return the receiving node's tag (MULTICAST_OFFER). */
    public long tag()
    {
        return tag;
    }

    /** @return the receiver id of TOPIC_MULTICAST (0: back on the connection) and TOPIC_MULTICAST_LEFT (positive). */
    public int receiverId()
    {
        return receiverId;
    }

    /** @return the multicast stream's session of TOPIC_MULTICAST. */
    public int streamSessionId()
    {
        return streamSessionId;
    }

    /** @return the log capacity of TOPIC_MULTICAST (a power of two) or the max image of MULTICAST_OFFER. */
    public int logCapacity()
    {
        return logCapacity;
    }

    /** @return the stream position of TOPIC_MULTICAST and TOPIC_MULTICAST_LEFT (not negative). */
    public long position()
    {
        return position;
    }

    /** @return the group of TOPIC_MULTICAST (allocates; control path only). */
    public String groupText()
    {
        return buffer.getStringWithoutLengthUtf8(metadataOffset, metadataLength);
    }

    /** @return the first sequence the offering side expects on its datagram session (DATAGRAM_OFFER; any value). */
    public int initialSequence()
    {
        return initialSequence;
    }

    /**
     * @return the largest datagram payload the offering side receives (DATAGRAM_OFFER;
     * {@link #MIN_DATAGRAM_PAYLOAD} to {@link #MAX_DATAGRAM_PAYLOAD}).
     */
    public int maxPayload()
    {
        return maxPayload;
    }

    /** @return the receive window of DATAGRAM_OFFER in datagrams (a power of two, 1 to {@link #MAX_DATAGRAM_WINDOW}). */
    public int window()
    {
        return window;
    }
}
