package io.rivulet.spi;

import org.agrona.DirectBuffer;

/** Receives one inbound frame; the bytes are valid only during the call. */
@FunctionalInterface
public interface FrameHandler
{
    void onFrame(DirectBuffer buffer, int offset, int length);
}
