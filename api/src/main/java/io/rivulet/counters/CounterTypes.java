package io.rivulet.counters;

/**
 * The public type ids of Rivulet's counters, stored in each counter's metadata so that a reader (the
 * {@code rivulet stat} tool, the Micrometer binder) can tell what a counter measures without parsing its label.
 *
 * <p>Ids are stable across releases: a new counter takes a new id, an id is never reused. Each counter also
 * carries an owner id (a connection id, or {@link #NO_OWNER}) and a tag in its key (a remote address, a topic
 * name, a UD path, an exception class), see {@link CounterFactory}.
 *
 * <p>Two kinds: totals only grow (Micrometer {@code FunctionCounter}); levels go up and down (a {@code Gauge}),
 * see {@link #isLevel(int)}.
 */
public final class CounterTypes
{
    /** Owner id of counters that belong to no connection. */
    public static final long NO_OWNER = -1;

    // ----------------------------------------------------------------------------------- node (1..99)

    /** Level: epoch milliseconds of the conductor's last duty cycle, at most ~100 ms old on a live node. */
    public static final int NODE_HEARTBEAT = 1;
    /** Total: frames written to links. */
    public static final int NODE_FRAMES_SENT = 2;
    /** Total: bytes of frames written to links. */
    public static final int NODE_BYTES_SENT = 3;
    /** Total: frames read from links. */
    public static final int NODE_FRAMES_RECEIVED = 4;
    /** Total: bytes of frames read from links. */
    public static final int NODE_BYTES_RECEIVED = 5;
    /** Total: fire-and-forget messages handed to a responder. */
    public static final int NODE_FNF_RECEIVED = 6;
    /** Total: times a producer used up the credits its peer had granted. */
    public static final int NODE_CREDIT_STALLS = 7;
    /** Total: writes that found an outbound ring full. */
    public static final int NODE_BACK_PRESSURE = 8;
    /** Total: connections closed for a protocol violation or a rejected set-up. */
    public static final int NODE_PROTOCOL_ERRORS = 9;
    /** Total: connections lost to I/O errors or keepalive timeouts. */
    public static final int NODE_CONNECTIONS_LOST = 10;
    /** Total: connections opened, either side. */
    public static final int NODE_CONNECTIONS_OPENED = 11;
    /** Total: connections fully closed, either side. */
    public static final int NODE_CONNECTIONS_CLOSED = 12;
    /** Total: errors passed to the error handler (all types). */
    public static final int NODE_ERRORS = 13;
    /** Total: errors of one exception class; the tag is the class's simple name. */
    public static final int ERRORS_BY_TYPE = 14;
    /** Total: connections refused by the authenticator at SETUP. */
    public static final int NODE_SETUPS_REJECTED = 15;
    /** Total: accepted connections closed for sending no SETUP in time. */
    public static final int NODE_SETUP_TIMEOUTS = 16;
    /** Total: connections, streams or sends refused for crossing a configured limit. */
    public static final int NODE_LIMIT_REJECTIONS = 17;
    /** Total: accepted links dropped before they came up, such as a failed TLS handshake. */
    public static final int NODE_LINKS_REJECTED = 18;
    /** Total: region operations this node's engine applied for peers (TCP emulation; never on RDMA). */
    public static final int NODE_REGION_OPS_EMULATED = 19;
    /** Total: one-sided region operations this node posted to peers' memory. */
    public static final int NODE_REGION_OPS_POSTED = 20;
    /** Total: times the engine (or a caller running its cycle) slept in the transport's selector, idle. */
    public static final int NODE_ENGINE_SLEEPS = 21;
    /** Total: times the sleeping engine lent its duty cycle to a caller blocked on a reply (EngineLoan). */
    public static final int NODE_ENGINE_LOANS = 22;

    // ---------------------------------------------------------------------- per connection (100..199)

    /** Total: frames read on one connection (owner: connection id; tag: remote address). */
    public static final int CONNECTION_FRAMES_IN = 100;
    /** Total: bytes of frames read on one connection. */
    public static final int CONNECTION_BYTES_IN = 101;
    /** Total: whole messages (last or only fragment of a request or payload) read on one connection. */
    public static final int CONNECTION_MESSAGES_IN = 102;
    /** Total: frames written to one connection's link. */
    public static final int CONNECTION_FRAMES_OUT = 103;
    /** Total: bytes of frames written to one connection's link. */
    public static final int CONNECTION_BYTES_OUT = 104;
    /** Total: whole messages written to one connection's link. */
    public static final int CONNECTION_MESSAGES_OUT = 105;
    /** Total: credit stalls of producers on one connection. */
    public static final int CONNECTION_CREDIT_STALLS = 106;
    /** Total: writes that found this connection's outbound ring full. */
    public static final int CONNECTION_BACK_PRESSURE = 107;

    // ---------------------------------------------------------------------------- per topic (200..299)

    /** Total: messages a publication accepted, i.e. its last sequence (tag: topic name). Sampled every ~100 ms. */
    public static final int TOPIC_PUBLISHED = 200;
    /** Total: offers a publication answered with BACK_PRESSURED. Sampled. */
    public static final int TOPIC_BACK_PRESSURE = 201;
    /** Level: subscribers attached to a publication now. Sampled. */
    public static final int TOPIC_SUBSCRIBERS = 202;
    /** Total: slow-consumer events of a publication (subscribers dropped, conflated or cut off). Sampled. */
    public static final int TOPIC_DROPS = 203;
    /**
     * Total: bytes a publication appended to its log: each message's data with its record and frame headers (and the
     * padding at the log's wrap). Sampled; {@code rivulet stat} prints it per second as the topic's byte rate.
     */
    public static final int TOPIC_LOG_BYTES = 204;

    // ---------------------------------------------------------- per UD path (300..399), reliable UD (NAK, cwnd)

    /** Total: NAKs sent on a UD path (tag: the path, e.g. remote QPN and address). */
    public static final int UD_NAKS_SENT = 300;
    /** Total: NAKs received on a UD path. */
    public static final int UD_NAKS_RECEIVED = 301;
    /** Total: datagrams retransmitted on a UD path. */
    public static final int UD_RETRANSMISSIONS = 302;
    /** Level: the smoothed round-trip time estimate of a UD path, in nanoseconds. */
    public static final int UD_RTT_NS = 303;
    /** Level: the congestion window of a UD path, in datagrams. */
    public static final int UD_CWND = 304;

    // ------------------------------------------------------------------------------- RDMA (400..499)

    /** Level: memory regions registered with the RDMA device now (tag: the provider). */
    public static final int RDMA_REGISTRATIONS = 400;
    /** Level: bytes of memory registered with the RDMA device now. */
    public static final int RDMA_REGISTERED_BYTES = 401;

    // ------------------------------------------------- multicast (500..599), per endpoint of a node's planes

    /** Total: datagrams a publishing endpoint sent to its groups and receivers, repairs and heartbeats included. */
    public static final int MULTICAST_DATAGRAMS_SENT = 500;
    /** Total: bytes of those datagrams. */
    public static final int MULTICAST_BYTES_SENT = 501;
    /** Total: NAKs the publishing endpoint's streams received. */
    public static final int MULTICAST_NAKS_RECEIVED = 502;
    /** Total: repairs sent to the whole group (several receivers asked, or the gap was the group's). */
    public static final int MULTICAST_REPAIRS_TO_GROUP = 503;
    /** Total: repairs sent by unicast to the one receiver that asked. */
    public static final int MULTICAST_REPAIRS_TO_RECEIVER = 504;
    /** Total: datagrams sent as repairs. */
    public static final int MULTICAST_REPAIR_DATAGRAMS = 505;
    /** Total: LOST notices sent, for bytes the publisher's log no longer held. */
    public static final int MULTICAST_LOST_SENT = 506;
    /** Level: streams the publishing endpoint sends now. */
    public static final int MULTICAST_STREAMS = 507;
    /** Level: receivers those streams' flow control follows now. */
    public static final int MULTICAST_RECEIVERS = 508;
    /** Level: the smallest congestion window among the streams, in datagrams (0 without congestion control). */
    public static final int MULTICAST_CWND = 509;
    /** Total: datagrams the receiving endpoint took for its images. */
    public static final int MULTICAST_DATAGRAMS_RECEIVED = 520;
    /** Total: bytes of those datagrams. */
    public static final int MULTICAST_BYTES_RECEIVED = 521;
    /** Total: NAKs the receiving endpoint's images sent. */
    public static final int MULTICAST_NAKS_SENT = 522;
    /** Total: gaps that closed before their NAK was due (another receiver's NAK, or reordering, filled them). */
    public static final int MULTICAST_NAKS_SUPPRESSED = 523;
    /** Total: repair datagrams received. */
    public static final int MULTICAST_REPAIRS_RECEIVED = 524;
    /** Total: datagrams that brought nothing new. */
    public static final int MULTICAST_DUPLICATES = 525;
    /** Total: bytes the publisher said it could no longer repair (LOST). */
    public static final int MULTICAST_LOST_BYTES = 526;
    /** Level: images (streams taken) on the receiving endpoint now. */
    public static final int MULTICAST_IMAGES = 527;
    /** Total: datagrams either plane refused: malformed, or not from the stream's publisher. */
    public static final int MULTICAST_REFUSED = 528;

    private CounterTypes()
    {
    }

    /**
     * @param typeId a counter's type id.
     * @return true for levels (gauges), false for totals that only grow.
     */
    public static boolean isLevel(final int typeId)
    {
        return typeId == NODE_HEARTBEAT || typeId == TOPIC_SUBSCRIBERS || typeId == UD_RTT_NS || typeId == UD_CWND ||
            typeId == RDMA_REGISTRATIONS || typeId == RDMA_REGISTERED_BYTES || typeId == MULTICAST_STREAMS ||
            typeId == MULTICAST_RECEIVERS || typeId == MULTICAST_CWND || typeId == MULTICAST_IMAGES;
    }

    /**
     * A dotted metric name for a type id, as the Micrometer binder names meters ({@code rivulet.connection.bytes.in}).
     *
     * @param typeId a counter's type id.
     * @return the name, or {@code rivulet.counter.<id>} for an id this version does not know.
     */
    public static String metricName(final int typeId)
    {
        switch (typeId)
        {
            case NODE_HEARTBEAT: return "rivulet.node.heartbeat";
            case NODE_FRAMES_SENT: return "rivulet.frames.sent";
            case NODE_BYTES_SENT: return "rivulet.bytes.sent";
            case NODE_FRAMES_RECEIVED: return "rivulet.frames.received";
            case NODE_BYTES_RECEIVED: return "rivulet.bytes.received";
            case NODE_FNF_RECEIVED: return "rivulet.fnf.received";
            case NODE_CREDIT_STALLS: return "rivulet.credit.stalls";
            case NODE_BACK_PRESSURE: return "rivulet.back.pressure";
            case NODE_PROTOCOL_ERRORS: return "rivulet.protocol.errors";
            case NODE_CONNECTIONS_LOST: return "rivulet.connections.lost";
            case NODE_CONNECTIONS_OPENED: return "rivulet.connections.opened";
            case NODE_CONNECTIONS_CLOSED: return "rivulet.connections.closed";
            case NODE_ERRORS: return "rivulet.errors";
            case ERRORS_BY_TYPE: return "rivulet.errors.by.type";
            case NODE_SETUPS_REJECTED: return "rivulet.setups.rejected";
            case NODE_SETUP_TIMEOUTS: return "rivulet.setup.timeouts";
            case NODE_LIMIT_REJECTIONS: return "rivulet.limit.rejections";
            case NODE_LINKS_REJECTED: return "rivulet.links.rejected";
            case NODE_REGION_OPS_EMULATED: return "rivulet.region.ops.emulated";
            case NODE_REGION_OPS_POSTED: return "rivulet.region.ops.posted";
            case NODE_ENGINE_SLEEPS: return "rivulet.engine.sleeps";
            case NODE_ENGINE_LOANS: return "rivulet.engine.loans";
            case CONNECTION_FRAMES_IN: return "rivulet.connection.frames.in";
            case CONNECTION_BYTES_IN: return "rivulet.connection.bytes.in";
            case CONNECTION_MESSAGES_IN: return "rivulet.connection.messages.in";
            case CONNECTION_FRAMES_OUT: return "rivulet.connection.frames.out";
            case CONNECTION_BYTES_OUT: return "rivulet.connection.bytes.out";
            case CONNECTION_MESSAGES_OUT: return "rivulet.connection.messages.out";
            case CONNECTION_CREDIT_STALLS: return "rivulet.connection.credit.stalls";
            case CONNECTION_BACK_PRESSURE: return "rivulet.connection.back.pressure";
            case TOPIC_PUBLISHED: return "rivulet.topic.published";
            case TOPIC_BACK_PRESSURE: return "rivulet.topic.back.pressure";
            case TOPIC_SUBSCRIBERS: return "rivulet.topic.subscribers";
            case TOPIC_DROPS: return "rivulet.topic.drops";
            case TOPIC_LOG_BYTES: return "rivulet.topic.log.bytes";
            case UD_NAKS_SENT: return "rivulet.ud.naks.sent";
            case UD_NAKS_RECEIVED: return "rivulet.ud.naks.received";
            case UD_RETRANSMISSIONS: return "rivulet.ud.retransmissions";
            case UD_RTT_NS: return "rivulet.ud.rtt.ns";
            case UD_CWND: return "rivulet.ud.cwnd";
            case RDMA_REGISTRATIONS: return "rivulet.rdma.registrations";
            case RDMA_REGISTERED_BYTES: return "rivulet.rdma.registered.bytes";
            case MULTICAST_DATAGRAMS_SENT: return "rivulet.multicast.datagrams.sent";
            case MULTICAST_BYTES_SENT: return "rivulet.multicast.bytes.sent";
            case MULTICAST_NAKS_RECEIVED: return "rivulet.multicast.naks.received";
            case MULTICAST_REPAIRS_TO_GROUP: return "rivulet.multicast.repairs.to.group";
            case MULTICAST_REPAIRS_TO_RECEIVER: return "rivulet.multicast.repairs.to.receiver";
            case MULTICAST_REPAIR_DATAGRAMS: return "rivulet.multicast.repair.datagrams";
            case MULTICAST_LOST_SENT: return "rivulet.multicast.lost.sent";
            case MULTICAST_STREAMS: return "rivulet.multicast.streams";
            case MULTICAST_RECEIVERS: return "rivulet.multicast.receivers";
            case MULTICAST_CWND: return "rivulet.multicast.cwnd";
            case MULTICAST_DATAGRAMS_RECEIVED: return "rivulet.multicast.datagrams.received";
            case MULTICAST_BYTES_RECEIVED: return "rivulet.multicast.bytes.received";
            case MULTICAST_NAKS_SENT: return "rivulet.multicast.naks.sent";
            case MULTICAST_NAKS_SUPPRESSED: return "rivulet.multicast.naks.suppressed";
            case MULTICAST_REPAIRS_RECEIVED: return "rivulet.multicast.repairs.received";
            case MULTICAST_DUPLICATES: return "rivulet.multicast.duplicates";
            case MULTICAST_LOST_BYTES: return "rivulet.multicast.lost.bytes";
            case MULTICAST_IMAGES: return "rivulet.multicast.images";
            case MULTICAST_REFUSED: return "rivulet.multicast.refused";
            default: return "rivulet.counter." + typeId;
        }
    }

    /**
     * What a counter's tag names, for tools and the Micrometer binder's tag key.
     *
     * @param typeId a counter's type id.
     * @return "remote", "topic", "path", "type", "provider", "endpoint" or "" when the counter has no tag.
     */
    public static String tagKey(final int typeId)
    {
        if (typeId >= 100 && typeId < 200)
        {
            return "remote";
        }
        if (typeId >= 200 && typeId < 300)
        {
            return "topic";
        }
        if (typeId >= 300 && typeId < 400)
        {
            return "path";
        }
        if (typeId >= 400 && typeId < 500)
        {
            return "provider";
        }
        if (typeId >= 500 && typeId < 600)
        {
            return "endpoint";
        }
        return typeId == ERRORS_BY_TYPE ? "type" : "";
    }
}
