package io.rivulet.engine;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameHeader;
import io.rivulet.codec.FrameType;
import io.rivulet.codec.FrameWriter;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which outbound frames end an application message, for the per-connection "messages out" counter. */
class SenderMessageBoundaryTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final FrameWriter writer = new FrameWriter();

    @Test
    void aRequestOrNextPayloadWithoutFollowsEndsAMessage()
    {
        for (final int type : new int[]{FrameType.REQUEST_FNF, FrameType.REQUEST_RESPONSE, FrameType.REQUEST_STREAM,
            FrameType.REQUEST_CHANNEL})
        {
            assertThat(endsMessage(type, (byte)0)).as(FrameType.name(type)).isTrue();
            assertThat(endsMessage(type, FrameFlags.FOLLOWS)).as(FrameType.name(type) + " with FOLLOWS").isFalse();
        }
        assertThat(endsMessage(FrameType.PAYLOAD, FrameFlags.NEXT)).isTrue();
        assertThat(endsMessage(FrameType.PAYLOAD, (byte)(FrameFlags.NEXT | FrameFlags.COMPLETE))).isTrue();
        assertThat(endsMessage(FrameType.PAYLOAD, (byte)(FrameFlags.NEXT | FrameFlags.FOLLOWS))).isFalse();
        assertThat(endsMessage(FrameType.PAYLOAD, FrameFlags.COMPLETE)).as("completion only, no message").isFalse();
    }

    @Test
    void controlFramesAndShortFramesAreNoMessages()
    {
        final int requestN = writer.writeRequestN(buffer, 0, 1, 5);
        assertThat(FrameHeader.endsMessage(buffer, 0, requestN)).isFalse();
        final int cancel = writer.writeCancel(buffer, 0, 1);
        assertThat(FrameHeader.endsMessage(buffer, 0, cancel)).isFalse();
        assertThat(FrameHeader.endsMessage(buffer, 0, 4)).isFalse();
    }

    private boolean endsMessage(final int type, final byte flags)
    {
        final int length = writer.writePayloadFrame(buffer, 16, type, 1, 8, flags, null, 0, 0, buffer, 200, 10);
        return FrameHeader.endsMessage(buffer, 16, length);
    }
}
