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
    int maxConnections)
{
    /** Default {@link #setupTimeoutNs()}: 5 s. */
    public static final long DEFAULT_SETUP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    /** Default {@link #maxStreams()}. */
    public static final int DEFAULT_MAX_STREAMS = 4096;
    /** Default {@link #maxPendingRequests()}. */
    public static final int DEFAULT_MAX_PENDING_REQUESTS = 65536;
    /** Default {@link #maxParkedBytes()}: 64 MiB. */
    public static final long DEFAULT_MAX_PARKED_BYTES = 64L * 1024 * 1024;
    /** Default {@link #maxConnections()}. */
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;

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
            DEFAULT_MAX_CONNECTIONS);
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
            maxConnections);
    }
}
