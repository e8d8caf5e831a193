package io.rivulet.codec;

import io.rivulet.codec.wire.CancelDecoder;
import io.rivulet.codec.wire.CloseDecoder;
import io.rivulet.codec.wire.DatagramOfferDecoder;
import io.rivulet.codec.wire.MulticastOfferDecoder;
import io.rivulet.codec.wire.TopicMulticastDecoder;
import io.rivulet.codec.wire.TopicMulticastLeftDecoder;
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

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Template ids of the wire protocol, as constants so that the engine can {@code switch} on them
 * without allocating. They mirror the ids in {@code rivulet-protocol.xml}; a test keeps them equal.
 *
 * <p>Every public {@code int} constant of this class is a frame type: {@link #name(int)} is derived from them.
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

    // Topic multicast: the offer is connection-level; the hand-over is a cursor frame; LEFT is a subscriber's control frame.
    /** Subscriber side: this node takes topic data from multicast groups, reachable at this address. */
    public static final int MULTICAST_OFFER = MulticastOfferDecoder.TEMPLATE_ID;
    /** Publisher: a topic's live data now comes from a group's stream (receiver 0: from the connection again). */
    public static final int TOPIC_MULTICAST = TopicMulticastDecoder.TEMPLATE_ID;
    /** Subscriber: it stopped taking a topic from its group; send on the connection again from a position. */
    public static final int TOPIC_MULTICAST_LEFT = TopicMulticastLeftDecoder.TEMPLATE_ID;

    /** Frame type names indexed by template id; null where no frame type has that id. */
    private static final String[] NAMES = namesByTemplateId();

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
        final String name = templateId >= 0 && templateId < NAMES.length ? NAMES[templateId] : null;
        return name != null ? name : "UNKNOWN";
    }

    /**
     * Indexes the constants above by value, named after their fields, so that a new frame type is named by
     * declaring its constant and no second list can drift from the first.
     */
    private static String[] namesByTemplateId()
    {
        final List<Field> constants = new ArrayList<>();
        int maxId = 0;
        for (final Field field : FrameType.class.getDeclaredFields())
        {
            final int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) &&
                field.getType() == int.class)
            {
                constants.add(field);
                maxId = Math.max(maxId, templateId(field));
            }
        }
        final String[] names = new String[maxId + 1];
        for (final Field field : constants)
        {
            final int id = templateId(field);
            if (id < 0 || names[id] != null)
            {
                throw new IllegalStateException("frame type " + field.getName() + " has an invalid or shared id " + id);
            }
            names[id] = field.getName();
        }
        return names;
    }

    private static int templateId(final Field field)
    {
        try
        {
            return field.getInt(null);
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException(ex);
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
