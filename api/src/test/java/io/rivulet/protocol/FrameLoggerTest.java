package io.rivulet.protocol;

import io.rivulet.codec.FrameFlags;
import io.rivulet.codec.FrameType;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The frame logger's lines, and its behaviour on hostile frames. The api module's tests run without an SLF4J binding
 * (DEBUG is off), which is also the case checked here: no logger is made, so the hooks format nothing; the lines a
 * live request-response produces with DEBUG on are checked in the tools module, which has a binding.
 */
class FrameLoggerTest
{
    private final FrameLogger logger = new FrameLogger("in  conn 1 a:1 -> b:2 ");

    @Test
    void withDebugOffNoConnectionGetsAFrameLogger()
    {
        final InMemoryLink[] links = InMemoryLink.pair();
        assertThat(FrameLogger.inbound(1, links[0])).isNull();
        assertThat(FrameLogger.outbound(1, links[0])).isNull();
    }

    @Test
    void aLineNamesTypeStreamFlagsAndLengthsAndShowsTheFirstBytes()
    {
        final byte[] frame = ProtocolHarness.payloadFrame(FrameType.REQUEST_RESPONSE, 5, 0, FrameFlags.NEXT,
            "route=greet".getBytes(StandardCharsets.US_ASCII), new byte[] {'A', 'd', 'a', 0x01});
        final String line = logger.format(new UnsafeBuffer(frame), 0, frame.length);
        assertThat(line).isEqualTo("in  conn 1 a:1 -> b:2 REQUEST_RESPONSE stream 5 flags 0x04 [NEXT] length " +
            frame.length + " metadata 11: 72 6f 75 74 65 3d 67 72 65 65 74 |route=greet| data 4: 41 64 61 01 |Ada.|");

        final byte[] reply = ProtocolHarness.payloadFrame(5, (byte)(FrameFlags.NEXT | FrameFlags.COMPLETE),
            new byte[0]);
        assertThat(logger.format(new UnsafeBuffer(reply), 0, reply.length))
            .contains("PAYLOAD stream 5 flags 0x06 [COMPLETE NEXT]").endsWith(" metadata 0 data 0");

        final byte[] requestN = ProtocolHarness.requestNFrame(3, 16);
        assertThat(logger.format(new UnsafeBuffer(requestN), 0, requestN.length))
            .contains("REQUEST_N stream 3 flags 0x00 length " + requestN.length);
    }

    @Test
    void atMostSixtyFourBytesOfAFieldAreShown()
    {
        final byte[] data = new byte[1000];
        Arrays.fill(data, (byte)'x');
        final byte[] frame = ProtocolHarness.payloadFrame(7, FrameFlags.NEXT, data);
        final String line = logger.format(new UnsafeBuffer(frame), 0, frame.length);
        assertThat(line).contains(" data 1000: 78 78").contains(" ... |" + "x".repeat(64) + "|")
            .doesNotContain("x".repeat(65));
    }

    @Test
    void aMalformedFrameIsLoggedWithTheReadersErrorAndNothingPastItsLength()
    {
        final byte[] frame = ProtocolHarness.payloadFrame(7, FrameFlags.NEXT,
            "hello".getBytes(StandardCharsets.US_ASCII));
        // The same bytes cut short, inside a larger buffer whose rest must not be read.
        final byte[] buffer = Arrays.copyOf(frame, frame.length + 100);
        Arrays.fill(buffer, frame.length - 3, buffer.length, (byte)'Z');
        final String line = logger.format(new UnsafeBuffer(buffer), 0, frame.length - 3);
        assertThat(line).startsWith("in  conn 1 a:1 -> b:2 malformed PAYLOAD (")
            .contains("length " + (frame.length - 3))
            .doesNotContain("5a");

        final byte[] garbage = {1, 2, 3};
        assertThat(logger.format(new UnsafeBuffer(garbage), 0, 3)).contains("malformed UNKNOWN (")
            .endsWith(": 01 02 03 |...|");
        assertThat(logger.format(new UnsafeBuffer(garbage), 0, 0)).contains("malformed UNKNOWN (");
        assertThat(logger.format(new UnsafeBuffer(garbage), 2, 5)).contains("out of its buffer's bounds");
        assertThat(logger.format(new UnsafeBuffer(garbage), 0, -1)).contains("out of its buffer's bounds");
    }

    @Test
    void randomBytesNeverMakeItThrow()
    {
        final Random random = new Random(18);
        final byte[] valid = ProtocolHarness.payloadFrame(FrameType.REQUEST_STREAM, 9, 4, FrameFlags.NEXT,
            new byte[] {1, 2}, new byte[] {3, 4, 5});
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] frame;
            if (i % 2 == 0)
            {
                frame = new byte[random.nextInt(80)];
                random.nextBytes(frame);
            }
            else
            {
                frame = valid.clone(); // a valid frame with one byte changed: lengths that lie
                frame[random.nextInt(frame.length)] = (byte)random.nextInt(256);
            }
            final int length = random.nextInt(frame.length + 1);
            assertThatCode(() -> logger.format(new UnsafeBuffer(frame), 0, length)).doesNotThrowAnyException();
        }
    }
}
