package io.rivulet.protocol;

import java.util.concurrent.TimeUnit;

/**
 * The limits and timings the protocol runs with, taken from the node's context.
 *
 * @param maxFrameLength      longest frame sent or accepted.
 * @param maxMessageLength    longest message (metadata + data) sent or reassembled.
 * @param streamWindow        most credits a receiving stream keeps granted at once.
 * @param keepaliveIntervalNs how often a KEEPALIVE is sent.
 * @param keepaliveTimeoutNs  silence after which the peer is declared lost.
 * @param frameLimit          frames read from one link per duty cycle (fairness between links).
 * @param setupTimeoutNs      how long an accepted connection may take to send SETUP, and a client waits
 *                            for the server to accept its SETUP.
 * @param maxStreams          streams the peer may have open at once on one connection; a request beyond it
 *                            is refused with ERROR (REJECTED) on its stream.
 * @param maxPendingRequests  requests this side may have open at once on one connection; one beyond it
 *                            fails locally with {@link io.rivulet.LimitExceededException}.
 * @param maxParkedBytes      bytes of fire-and-forget messages that may wait for room in a connection's
 *                            outbound ring; beyond it {@code fireAndForget} fails fast.
 * @param maxConnections      connections a node holds at once (both directions); an extra one is refused.
 * @param maxConnectionMemory bytes one connection may hold for its peer (unfinished messages, open requests,
 *                            frames parked for ring space); over it the connection closes with an error.
 * @param maxNodeMemory       bytes all connections of the node may hold together; over it the connection holding
 *                            the most closes.
 * @param maxKeepaliveTimeoutNs the longest keepalive timeout a server grants; a client's SETUP asking more is
 *                            clamped to it (and its interval below it), and told so in the server's answer.
 * @param idleTimeoutNs       a server closes an accepted connection with no stream open and no frame but
 *                            KEEPALIVE for this long; 0 never.
 * @param maxPendingSetupsPerAddress accepted connections from one address (its host) that may wait for SETUP at
 *                            once; one more from there is closed at once.
 */
public record ProtocolSettings(
    int maxFrameLength,
    int maxMessageLength,
    int streamWindow,
    long keepaliveIntervalNs,
    long keepaliveTimeoutNs,
    int frameLimit,
    long setupTimeoutNs,
    int maxStreams,
    int maxPendingRequests,
    long maxParkedBytes,
    int maxConnections,
    long maxConnectionMemory,
    long maxNodeMemory,
    long maxKeepaliveTimeoutNs,
    long idleTimeoutNs,
    int maxPendingSetupsPerAddress)
{
    /** Default {@link #setupTimeoutNs()}: 2 s, short, because a connection before SETUP is anyone's. */
    public static final long DEFAULT_SETUP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);
    /** Default {@link #maxStreams()}. */
    public static final int DEFAULT_MAX_STREAMS = 4096;
    /** Default {@link #maxPendingRequests()}. */
    public static final int DEFAULT_MAX_PENDING_REQUESTS = 65536;
    /** Default {@link #maxParkedBytes()}: 64 MiB. */
    public static final long DEFAULT_MAX_PARKED_BYTES = 64L * 1024 * 1024;
    /** Default {@link #maxConnections()}. */
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    /** Default {@link #maxConnectionMemory()}: 128 MiB, room for the parked bound and a whole message or more. */
    public static final long DEFAULT_MAX_CONNECTION_MEMORY = 128L * 1024 * 1024;
    /** Default {@link #maxKeepaliveTimeoutNs()}: 60 s. */
    public static final long DEFAULT_MAX_KEEPALIVE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);
    /** Default {@link #idleTimeoutNs()}: 5 minutes. */
    public static final long DEFAULT_IDLE_TIMEOUT_NS = TimeUnit.MINUTES.toNanos(5);
    /**
     * Default {@link #maxPendingSetupsPerAddress()}: 256. The conductor takes a listener's whole backlog (up to 1,024
     * links) in one duty cycle, before it reads their SETUPs, so an honest host's burst of connects counts as waiting
     * all at once; 256 lets a quarter of the backlog come from one host, while one address holds at most a 16th of
     * the default {@link #maxConnections()}.
     */
    public static final int DEFAULT_MAX_PENDING_SETUPS_PER_ADDRESS = 256;

    /** @return the default {@link #maxNodeMemory()}: a quarter of the heap the JVM may grow to. */
    public static long defaultMaxNodeMemory()
    {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    /** Settings with the default limits and set-up timeout. */
    public ProtocolSettings(
        final int maxFrameLength,
        final int maxMessageLength,
        final int streamWindow,
        final long keepaliveIntervalNs,
        final long keepaliveTimeoutNs,
        final int frameLimit)
    {
        this(maxFrameLength, maxMessageLength, streamWindow, keepaliveIntervalNs, keepaliveTimeoutNs, frameLimit,
            DEFAULT_SETUP_TIMEOUT_NS, DEFAULT_MAX_STREAMS, DEFAULT_MAX_PENDING_REQUESTS, DEFAULT_MAX_PARKED_BYTES,
            DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTION_MEMORY, defaultMaxNodeMemory(),
            DEFAULT_MAX_KEEPALIVE_TIMEOUT_NS, DEFAULT_IDLE_TIMEOUT_NS, DEFAULT_MAX_PENDING_SETUPS_PER_ADDRESS);
    }

    /** @return a copy with other limits (tests and the context). */
    public ProtocolSettings withLimits(
        final long setupTimeoutNs,
        final int maxStreams,
        final int maxPendingRequests,
        final long maxParkedBytes,
        final int maxConnections)
    {
        return new ProtocolSettings(maxFrameLength, maxMessageLength, streamWindow, keepaliveIntervalNs,
            keepaliveTimeoutNs, frameLimit, setupTimeoutNs, maxStreams, maxPendingRequests, maxParkedBytes,
            maxConnections, maxConnectionMemory, maxNodeMemory, maxKeepaliveTimeoutNs, idleTimeoutNs,
            maxPendingSetupsPerAddress);
    }

    /** @return a copy with other memory limits. */
    public ProtocolSettings withMemory(final long maxConnectionMemory, final long maxNodeMemory)
    {
        return new ProtocolSettings(maxFrameLength, maxMessageLength, streamWindow, keepaliveIntervalNs,
            keepaliveTimeoutNs, frameLimit, setupTimeoutNs, maxStreams, maxPendingRequests, maxParkedBytes,
            maxConnections, maxConnectionMemory, maxNodeMemory, maxKeepaliveTimeoutNs, idleTimeoutNs,
            maxPendingSetupsPerAddress);
    }

    /** @return a copy with another keepalive policy for the clients of this node's servers. */
    public ProtocolSettings withKeepalivePolicy(final long maxKeepaliveTimeoutNs, final long idleTimeoutNs)
    {
        return new ProtocolSettings(maxFrameLength, maxMessageLength, streamWindow, keepaliveIntervalNs,
            keepaliveTimeoutNs, frameLimit, setupTimeoutNs, maxStreams, maxPendingRequests, maxParkedBytes,
            maxConnections, maxConnectionMemory, maxNodeMemory, maxKeepaliveTimeoutNs, idleTimeoutNs,
            maxPendingSetupsPerAddress);
    }
}
