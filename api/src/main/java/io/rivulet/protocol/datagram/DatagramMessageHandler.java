package io.rivulet.protocol.datagram;

import org.agrona.DirectBuffer;

/** Receives a path's messages exactly once and in order; the buffer is valid only during the call. */
@FunctionalInterface
public interface DatagramMessageHandler
{
    /**
     * @param sessionId the path the message came on.
     * @param buffer    holding the message.
     * @param offset    of the message.
     * @param length    of the message.
     */
    void onMessage(int sessionId, DirectBuffer buffer, int offset, int length);
}
