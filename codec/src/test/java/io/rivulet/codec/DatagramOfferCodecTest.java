package io.rivulet.codec;

import io.rivulet.codec.TestFrames.Sample;
import io.rivulet.codec.wire.DatagramOfferDecoder;
import io.rivulet.codec.wire.DatagramOfferEncoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static io.rivulet.codec.TestFrames.HEADER;
import static io.rivulet.codec.TestFrames.putInt;
import static io.rivulet.codec.TestFrames.putShort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * DATAGRAM_OFFER (frame 27): every field survives a round trip at its bounds, and as network input the frame gets the
 * same hostile-input discipline as the others: every truncation, block and var-data lengths that lie, trailing
 * bytes, each range rule of its own fields, and mutation fuzzing.
 */
class DatagramOfferCodecTest
{
    private static final long SEED = 0xDA7A_0FFEL;
    private static final int MUTATIONS = 100_000;
    private static final int SESSION_OFFSET = HEADER + DatagramOfferDecoder.sessionIdEncodingOffset();
    private static final int MAX_PAYLOAD_OFFSET = HEADER + DatagramOfferDecoder.maxPayloadEncodingOffset();
    private static final int WINDOW_OFFSET = HEADER + DatagramOfferDecoder.windowEncodingOffset();
    private static final int ADDRESS_LENGTH_OFFSET = HEADER + DatagramOfferDecoder.BLOCK_LENGTH;

    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);

    /** Valid offers: a typical one and both ends of every range. */
    static List<Sample> samples()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);
        final List<Sample> samples = new ArrayList<>();
        samples.add(sample("DATAGRAM_OFFER", scratch,
            writer.writeDatagramOffer(scratch, 0, 0x5E55, 1, 4096, 256, utf8("ud:0x000123:7:0x11111111"))));
        samples.add(sample("DATAGRAM_OFFER lowest bounds", scratch,
            writer.writeDatagramOffer(scratch, 0, Integer.MIN_VALUE, Integer.MIN_VALUE, FrameReader.MIN_DATAGRAM_PAYLOAD,
                1, utf8("a"))));
        samples.add(sample("DATAGRAM_OFFER highest bounds", scratch,
            writer.writeDatagramOffer(scratch, 0, Integer.MAX_VALUE, Integer.MAX_VALUE, FrameReader.MAX_DATAGRAM_PAYLOAD,
                FrameReader.MAX_DATAGRAM_WINDOW, address(FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH))));
        return samples;
    }

    @Test
    void shouldKeepTheTemplateIdLayoutAndName()
    {
        assertThat(FrameType.DATAGRAM_OFFER).isEqualTo(DatagramOfferDecoder.TEMPLATE_ID)
            .isEqualTo(DatagramOfferEncoder.TEMPLATE_ID).isEqualTo(27);
        assertThat(FrameType.name(FrameType.DATAGRAM_OFFER)).isEqualTo("DATAGRAM_OFFER");
        assertThat(DatagramOfferDecoder.BLOCK_LENGTH).as("sessionId, initialSequence, maxPayload, window").isEqualTo(16);
        assertThat(FrameType.isTopic(FrameType.DATAGRAM_OFFER)).isFalse();
        assertThat(FrameType.isRegion(FrameType.DATAGRAM_OFFER)).isFalse();
        assertThat(FrameType.carriesPayload(FrameType.DATAGRAM_OFFER)).isFalse();
        assertThat(FrameWriter.datagramOfferLength(0)).isEqualTo(HEADER + 16 + 4);
    }

    @Test
    void shouldRoundTripEveryFieldAtItsBounds()
    {
        final int[] sessions = { 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE };
        final int[] sequences = { 0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE };
        final int[] payloads = { FrameReader.MIN_DATAGRAM_PAYLOAD, 1500, 4096, FrameReader.MAX_DATAGRAM_PAYLOAD };
        final int[] windows = { 1, 2, 64, 1024, FrameReader.MAX_DATAGRAM_WINDOW };
        final String[] addresses = { "x", "ud:0x0000a1:42:0x2a2a2a2a", "127.0.0.1:40123", "fe80::1%eth0:7000", "caf\u00e9:1",
            "a".repeat(FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH) };
        int checked = 0;
        for (final int session : sessions)
        {
            for (final int sequence : sequences)
            {
                for (final int payload : payloads)
                {
                    for (final int window : windows)
                    {
                        final String address = addresses[checked % addresses.length];
                        final byte[] bytes = utf8(address);
                        final int offset = checked % 13;
                        final int length = writer.writeDatagramOffer(scratch, offset, session, sequence, payload, window,
                            bytes);

                        assertThat(length).isEqualTo(FrameWriter.datagramOfferLength(bytes.length));
                        assertThat(reader.wrap(scratch, offset, length)).as("%s", reader.error()).isTrue();
                        assertThat(reader.frameType()).isEqualTo(FrameType.DATAGRAM_OFFER);
                        assertThat(reader.frameOffset()).isEqualTo(offset);
                        assertThat(reader.frameLength()).isEqualTo(length);
                        assertThat(reader.streamId()).isZero();
                        assertThat(reader.sessionId()).isEqualTo(session);
                        assertThat(reader.initialSequence()).isEqualTo(sequence);
                        assertThat(reader.maxPayload()).isEqualTo(payload);
                        assertThat(reader.window()).isEqualTo(window);
                        assertThat(reader.dataLength()).isEqualTo(bytes.length);
                        assertThat(reader.dataOffset()).isEqualTo(offset + length - bytes.length);
                        assertThat(reader.text()).isEqualTo(address);
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isEqualTo(sessions.length * sequences.length * payloads.length * windows.length);
    }

    @Test
    void shouldAcceptEveryPowerOfTwoWindowAndNothingElseUpToTwiceTheLimit()
    {
        final byte[] frame = samples().get(0).copy();
        int acceptedWindows = 0;
        for (int window = -2; window <= 2 * FrameReader.MAX_DATAGRAM_WINDOW; window++)
        {
            putInt(frame, WINDOW_OFFSET, window);
            final boolean powerOfTwo = window > 0 && Integer.bitCount(window) == 1;
            final boolean expected = powerOfTwo && window <= FrameReader.MAX_DATAGRAM_WINDOW;
            if (reader.wrap(new UnsafeBuffer(frame), 0, frame.length) != expected)
            {
                fail("window %d: expected %s, reader said %s", window, expected ? "accepted" : "rejected", reader.error());
            }
            if (expected)
            {
                acceptedWindows++;
                assertThat(reader.window()).isEqualTo(window);
            }
            else
            {
                assertThat(reader.error()).contains("window must be a power of two");
            }
        }
        assertThat(acceptedWindows).as("1, 2, 4 .. 65536").isEqualTo(17);
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 1, 63, 65537, 131072, -1, -4096, Integer.MIN_VALUE, Integer.MAX_VALUE })
    void shouldRejectAMaxPayloadOutOfRange(final int maxPayload)
    {
        final int length = writer.writeDatagramOffer(scratch, 0, 7, 1, maxPayload, 16, utf8("h:1"));
        assertRejected(written(length), "maxPayload " + maxPayload, "max payload must be 64 to 65536 bytes");
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 3, 6, 100, 65535, 131072, -1, -2, Integer.MIN_VALUE, Integer.MAX_VALUE })
    void shouldRejectAWindowThatIsNotAPowerOfTwoInRange(final int window)
    {
        final int length = writer.writeDatagramOffer(scratch, 0, 7, 1, 1024, window, utf8("h:1"));
        assertRejected(written(length), "window " + window, "window must be a power of two from 1 to 65536");
    }

    @Test
    void shouldRejectSessionZero()
    {
        final int length = writer.writeDatagramOffer(scratch, 0, 0, 1, 1024, 16, utf8("h:1"));
        assertRejected(written(length), "session 0", "session id must not be 0");

        for (final Sample sample : samples())
        {
            final byte[] frame = sample.copy();
            putInt(frame, SESSION_OFFSET, 0);
            assertRejected(frame, sample + " patched to session 0", "session id must not be 0");
        }
    }

    @Test
    void shouldRejectAnEmptyAddressAndOneLongerThanTheLimit()
    {
        int length = writer.writeDatagramOffer(scratch, 0, 7, 1, 1024, 16, new byte[0]);
        assertThat(length).isEqualTo(FrameWriter.datagramOfferLength(0));
        assertRejected(written(length), "empty address", "address must be 1 to 200 bytes");

        for (final int tooLong : new int[] { FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH + 1, 255, 600 })
        {
            length = writer.writeDatagramOffer(scratch, 0, 7, 1, 1024, 16, address(tooLong));
            assertRejected(written(length), tooLong + "-byte address", "address must be 1 to 200 bytes");
        }
    }

    @Test
    void shouldCheckTheFixedFieldsBeforeTheVarData()
    {
        // A bad field is reported as such even when the var data would also be wrong: the block is read first,
        // and no var-data byte is trusted before its length is checked against the frame.
        final byte[] frame = samples().get(0).copy();
        putInt(frame, MAX_PAYLOAD_OFFSET, 63);
        putInt(frame, ADDRESS_LENGTH_OFFSET, 0x7FFF_FFFF);
        assertRejected(frame, "maxPayload 63 and a lying address length", "max payload must be 64 to 65536 bytes");
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectEveryTruncationAndTrailingBytes(final Sample sample)
    {
        for (int length = 0; length < sample.length(); length++)
        {
            assertRejected(Arrays.copyOf(sample.bytes(), length), "truncated to " + length, null);
        }
        final int offset = 5;
        final byte[] inLargerBuffer = new byte[offset + sample.length() + 8];
        System.arraycopy(sample.bytes(), 0, inLargerBuffer, offset, sample.length());
        for (int length = 0; length < sample.length(); length++)
        {
            assertThat(reader.wrap(new UnsafeBuffer(inLargerBuffer), offset, length)).as("truncated to %d", length).isFalse();
        }
        for (final int extra : new int[] { 1, 3, 4, 8 })
        {
            assertRejected(Arrays.copyOf(sample.bytes(), sample.length() + extra), extra + " trailing bytes",
                "frame length does not match its contents");
        }
        assertAccepted(sample.bytes());
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectBlockLengthsThatLie(final Sample sample)
    {
        for (int blockLength = 0; blockLength < DatagramOfferDecoder.BLOCK_LENGTH; blockLength++)
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, blockLength);
            assertRejected(frame, "block length " + blockLength, "block length shorter than the frame type requires");
        }
        final int available = sample.length() - HEADER;
        for (final int blockLength : new int[] { available + 1, 0x8000, 0xFFFF })
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, blockLength);
            assertRejected(frame, "block length " + blockLength, "block length beyond the end of the frame");
        }
        final byte[] longerBlock = sample.copy();
        putShort(longerBlock, 0, DatagramOfferDecoder.BLOCK_LENGTH + 1);
        assertRejected(longerBlock, "block one byte longer, frame unchanged", null);
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectAnAddressLengthThatLies(final Sample sample)
    {
        final int addressLength = sample.length() - ADDRESS_LENGTH_OFFSET - TestFrames.VAR_LENGTH_FIELD;
        for (final int length : new int[] { 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, 0x4000_0001, sample.length(),
            addressLength + 1 })
        {
            final byte[] frame = sample.copy();
            putInt(frame, ADDRESS_LENGTH_OFFSET, length);
            assertRejected(frame, "address length 0x" + Integer.toHexString(length), "var-data length beyond the end");
        }
        final byte[] shorter = sample.copy();
        putInt(shorter, ADDRESS_LENGTH_OFFSET, addressLength - 1);
        assertRejected(shorter, "address length one short", addressLength == 1 ?
            "address must be 1 to 200 bytes" : "frame length does not match its contents");
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldAcceptANewerVersionWithALargerBlock(final Sample sample)
    {
        assertAccepted(sample.bytes());
        final int session = reader.sessionId();
        final String address = reader.text();

        final byte[] extended = TestFrames.withExtendedBlock(sample.bytes(), 2, 9, (byte)0x5A);
        assertAccepted(extended);
        assertThat(reader.sessionId()).isEqualTo(session);
        assertThat(reader.text()).isEqualTo(address);
    }

    @Test
    void shouldNeverThrowNorEscapeTheFrameWhenMutated()
    {
        final List<Sample> samples = samples();
        final SplittableRandom random = new SplittableRandom(SEED);
        int accepted = 0;
        for (int i = 0; i < MUTATIONS; i++)
        {
            final Sample sample = samples.get(random.nextInt(samples.size()));
            final byte[] frame = sample.copy();
            for (int m = 1 + random.nextInt(3); m > 0; m--)
            {
                frame[random.nextInt(frame.length)] = (byte)random.nextInt(256);
            }
            final boolean ok;
            try
            {
                ok = reader.wrap(new UnsafeBuffer(frame), 0, frame.length);
            }
            catch (final Throwable ex)
            {
                throw new AssertionError("wrap threw on mutation " + i + " of " + sample, ex);
            }
            if (!ok)
            {
                assertThat(reader.error()).isNotBlank();
                continue;
            }
            accepted++;
            if ((long)reader.dataOffset() + reader.dataLength() > frame.length || reader.dataOffset() < 0)
            {
                fail("accepted frame's data escapes it on mutation %d of %s", i, sample);
            }
            if (reader.frameType() == FrameType.DATAGRAM_OFFER && (reader.sessionId() == 0 ||
                reader.maxPayload() < FrameReader.MIN_DATAGRAM_PAYLOAD ||
                reader.maxPayload() > FrameReader.MAX_DATAGRAM_PAYLOAD || Integer.bitCount(reader.window()) != 1 ||
                reader.window() > FrameReader.MAX_DATAGRAM_WINDOW || reader.window() < 1 || reader.dataLength() < 1 ||
                reader.dataLength() > FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH))
            {
                fail("accepted an out-of-range DATAGRAM_OFFER on mutation %d of %s", i, sample);
            }
        }
        assertThat(accepted).as("some mutations stay valid").isPositive().isLessThan(MUTATIONS);
    }

    private static Sample sample(final String name, final UnsafeBuffer scratch, final int length)
    {
        final byte[] bytes = new byte[length];
        scratch.getBytes(0, bytes);
        return new Sample(name, FrameType.DATAGRAM_OFFER, bytes);
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] address(final int length)
    {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte)'u');
        return bytes;
    }

    private byte[] written(final int length)
    {
        return Arrays.copyOf(scratch.byteArray(), length);
    }

    private void assertAccepted(final byte[] frame)
    {
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, frame.length)).as("%s", reader.error()).isTrue();
        assertThat(reader.frameType()).isEqualTo(FrameType.DATAGRAM_OFFER);
    }

    private void assertRejected(final byte[] frame, final String what, final String reason)
    {
        assertThat(reader.wrap(new UnsafeBuffer(frame), 0, frame.length)).as(what).isFalse();
        assertThat(reader.error()).as(what).isNotBlank();
        if (reason != null)
        {
            assertThat(reader.error()).as(what).contains(reason);
        }
    }
}
