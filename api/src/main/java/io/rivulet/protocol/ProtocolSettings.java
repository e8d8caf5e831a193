package io.rivulet.protocol;

/**
 * The limits and timings one connection's protocol runs with, taken from the node's context.
 *
 * @param maxFrameLength      longest frame sent or accepted.
 * @param maxMessageLength    longest message (metadata + data) sent or reassembled.
 * @param streamWindow        most credits a receiving stream keeps granted at once.
 * @param keepaliveIntervalNs how often a KEEPALIVE is sent.
 * @param keepaliveTimeoutNs  silence after which the peer is declared lost.
 * @param frameLimit          frames read from one link per duty cycle (fairness between links).
 */
public record ProtocolSettings(
    int maxFrameLength,
    int maxMessageLength,
    int streamWindow,
    long keepaliveIntervalNs,
    long keepaliveTimeoutNs,
    int frameLimit)
{
}
