package io.rivulet.codec;

import io.rivulet.codec.wire.CancelDecoder;
import io.rivulet.codec.wire.CloseDecoder;
import io.rivulet.codec.wire.DatagramOfferDecoder;
import io.rivulet.codec.wire.ErrorDecoder;
import io.rivulet.codec.wire.KeepaliveDecoder;
import io.rivulet.codec.wire.PayloadDecoder;
import io.rivulet.codec.wire.RequestChannelDecoder;
import io.rivulet.codec.wire.RequestFnfDecoder;
import io.rivulet.codec.wire.RequestNDecoder;
import io.rivulet.codec.wire.RequestResponseDecoder;
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

/**
 * Template ids of the wire protocol, as constants so that the engine can {@code switch} on them
 * without allocating. They mirror the ids in {@code rivulet-protocol.xml}; a test keeps them equal.
 */
public final class FrameType
{
    public static final int SETUP = SetupDecoder.TEMPLATE_ID;
    public static final int REQUEST_FNF = RequestFnfDecoder.TEMPLATE_ID;
    public static final int REQUEST_RESPONSE = RequestResponseDecoder.TEMPLATE_ID;
    public static final int REQUEST_STREAM = RequestStreamDecoder.TEMPLATE_ID;
    public static final int REQUEST_CHANNEL = RequestChannelDecoder.TEMPLATE_ID;
    public static final int REQUEST_N = RequestNDecoder.TEMPLATE_ID;
    public static final int CANCEL = CancelDecoder.TEMPLATE_ID;
    public static final int PAYLOAD = PayloadDecoder.TEMPLATE_ID;
    public static final int ERROR = ErrorDecoder.TEMPLATE_ID;
    public static final int KEEPALIVE = KeepaliveDecoder.TEMPLATE_ID;
    public static final int CLOSE = CloseDecoder.TEMPLATE_ID;

    // Fan-out topics: connection-level frames (no stream id), see the schema's topic section.
    /** A topic message, encoded once into the publisher's log and sent from there to every subscriber. */
    public static final int TOPIC_DATA = TopicDataDecoder.TEMPLATE_ID;
    public static final int SUBSCRIBE = SubscribeDecoder.TEMPLATE_ID;
    public static final int UNSUBSCRIBE = UnsubscribeDecoder.TEMPLATE_ID;
    /** Subscriber to publisher: credits for one topic and proof that the subscriber is alive. */
    public static final int TOPIC_STATUS = TopicStatusDecoder.TEMPLATE_ID;
    public static final int TOPIC_ATTACH = TopicAttachDecoder.TEMPLATE_ID;
    public static final int TOPIC_SNAPSHOT = TopicSnapshotDecoder.TEMPLATE_ID;
    public static final int TOPIC_GAP = TopicGapDecoder.TEMPLATE_ID;
    public static final int TOPIC_HEARTBEAT = TopicHeartbeatDecoder.TEMPLATE_ID;
    public static final int TOPIC_DETACH = TopicDetachDecoder.TEMPLATE_ID;

    // One-sided remote memory: connection-level frames (no stream id), see the schema's region section.
    public static final int REGION_LOOKUP = RegionLookupDecoder.TEMPLATE_ID;
    public static final int REGION_INFO = RegionInfoDecoder.TEMPLATE_ID;
    public static final int REGION_ERROR = RegionErrorDecoder.TEMPLATE_ID;
    public static final int REGION_REVOKED = RegionRevokedDecoder.TEMPLATE_ID;
    public static final int REGION_OP = RegionOpDecoder.TEMPLATE_ID;
    public static final int REGION_OP_RESULT = RegionOpResultDecoder.TEMPLATE_ID;

    // Reliable datagrams: a connection-level frame (no stream id), see the schema's datagram section.
    /** Either side: send this connection's topic data to me as reliable datagrams at this address and session. */
    public static final int DATAGRAM_OFFER = DatagramOfferDecoder.TEMPLATE_ID;

    private FrameType()
    {
    }

    /**
     * Name of a template id for logs and error messages.
     *
     * @param templateId from a frame header.
     * @return the frame type's name, or {@code "UNKNOWN"}.
     */
    public static String name(final int templateId)
    {
        switch (templateId)
        {
            case 1: return "SETUP";
            case 2: return "REQUEST_FNF";
            case 3: return "REQUEST_RESPONSE";
            case 4: return "REQUEST_STREAM";
            case 5: return "REQUEST_CHANNEL";
            case 6: return "REQUEST_N";
            case 7: return "CANCEL";
            case 8: return "PAYLOAD";
            case 9: return "ERROR";
            case 10: return "KEEPALIVE";
            case 11: return "CLOSE";
            case 12: return "TOPIC_DATA";
            case 13: return "SUBSCRIBE";
            case 14: return "UNSUBSCRIBE";
            case 15: return "TOPIC_STATUS";
            case 16: return "TOPIC_ATTACH";
            case 17: return "TOPIC_SNAPSHOT";
            case 18: return "TOPIC_GAP";
            case 19: return "TOPIC_HEARTBEAT";
            case 20: return "TOPIC_DETACH";
            case 21: return "REGION_LOOKUP";
            case 22: return "REGION_INFO";
            case 23: return "REGION_ERROR";
            case 24: return "REGION_REVOKED";
            case 25: return "REGION_OP";
            case 26: return "REGION_OP_RESULT";
            case 27: return "DATAGRAM_OFFER";
            default: return "UNKNOWN";
        }
    }

    /**
     * Whether frames of this type carry metadata and data (request and payload frames).
     *
     * @param templateId from a frame header.
     * @return true for REQUEST_* (but REQUEST_N) and PAYLOAD.
     */
    public static boolean carriesPayload(final int templateId)
    {
        return templateId == REQUEST_FNF || templateId == REQUEST_RESPONSE || templateId == REQUEST_STREAM ||
            templateId == REQUEST_CHANNEL || templateId == PAYLOAD;
    }

    /**
     * Whether frames of this type belong to fan-out topics (TOPIC_DATA .. TOPIC_DETACH).
     *
     * @param templateId from a frame header.
     * @return true for the topic frames.
     */
    public static boolean isTopic(final int templateId)
    {
        return templateId >= TOPIC_DATA && templateId <= TOPIC_DETACH;
    }

    /** @return true for the one-sided remote memory frames (REGION_LOOKUP .. REGION_OP_RESULT). */
    public static boolean isRegion(final int templateId)
    {
        return templateId >= REGION_LOOKUP && templateId <= REGION_OP_RESULT;
    }
}
