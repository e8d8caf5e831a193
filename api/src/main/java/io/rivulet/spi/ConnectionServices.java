package io.rivulet.spi;

import org.agrona.DirectBuffer;

/**
 * What a connection offers the {@link ConnectionExtension}s attached to it: an ordered path for control frames,
 * the link's send half for data, the peer's identity, and the way to end the connection when the peer breaks
 * the protocol. Conductor thread unless a method says otherwise.
 */
public interface ConnectionServices extends FrameOutlet
{
    /**
     * Queues one whole control frame on the connection's outbound ring, behind its other frames.
     *
     * @return false when the ring has no room now or the connection is closing: try again later.
     */
    boolean sendControl(DirectBuffer buffer, int offset, int length);

    /**
     * Sender thread only: hands one frame straight to the link's send half ({@link #offerRun} a run of them).
     *
     * @return false when the link has no room now.
     */
    @Override
    boolean offer(DirectBuffer buffer, int offset, int length);

    /** Any thread: true while frames may be offered (the connection is open and not draining to a close). */
    boolean isSending();

    /** @return the longest frame the peer accepts. */
    int maxFrameLength();

    /** @return the peer, for messages. */
    String remoteAddress();

    /** @return the connection's id in the node, which labels its counters and log lines. */
    long connectionId();

    /** @return the connection's keepalive timeout: how long a silent peer is tolerated, in nanoseconds. */
    long keepaliveTimeoutNs();

    /** Counts a frame that reached the connection by another path than the link (a datagram). */
    void countFrameReceived(int length);

    /** @return the connection's link, for extensions that reach the peer's memory over it (one-sided access). */
    ReliableLink link();

    /** @return true once the connection began to close; extensions then stop acting on frames. */
    boolean isClosing();

    /**
     * The peer broke the protocol: the connection answers with ERROR (CONNECTION_ERROR) and closes.
     *
     * @param reason which rule was broken.
     * @param detail which frame broke it, for the error text; it reaches the peer and the error handler.
     */
    void violation(Violation reason, String detail);

    /** The path to the peer failed (it stopped answering): the connection closes as lost, with this reason. */
    void lost(String reason);

    /**
     * @param type an extension type (a class or interface one of the connection's extensions implements).
     * @return the connection's extension of that type, or null when the node runs none.
     */
    <T> T extension(Class<T> type);
}
