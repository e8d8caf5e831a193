package io.rivulet.codec;

import io.rivulet.codec.TestFrames.Sample;
import io.rivulet.codec.wire.MulticastOfferDecoder;
import io.rivulet.codec.wire.TopicMulticastDecoder;
import io.rivulet.codec.wire.TopicMulticastLeftDecoder;
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
 * The topic multicast frames (28 MULTICAST_OFFER, 29 TOPIC_MULTICAST, 30 TOPIC_MULTICAST_LEFT): round trips at the
 * bounds, every range rule, truncation, lying block and var-data lengths, trailing bytes, and mutation fuzzing. A
 * TOPIC_MULTICAST sizes the subscriber's image, so its capacity must be a power of two and its strings bounded.
 */
class MulticastFrameCodecTest
{
    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);

    static List<Sample> samples()
    {
        final FrameWriter writer = new FrameWriter();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[1024]);
        final List<Sample> samples = new ArrayList<>();
        samples.add(sample("MULTICAST_OFFER", FrameType.MULTICAST_OFFER, scratch,
            writer.writeMulticastOffer(scratch, 0, 7, 1 << 26, utf8("10.0.0.7:40123"))));
        samples.add(sample("MULTICAST_OFFER bounds", FrameType.MULTICAST_OFFER, scratch,
            writer.writeMulticastOffer(scratch, 0, Long.MIN_VALUE, FrameReader.MIN_MULTICAST_LOG,
                bytes(FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH))));
        samples.add(sample("TOPIC_MULTICAST", FrameType.TOPIC_MULTICAST, scratch,
            writer.writeTopicMulticast(scratch, 0, 3, 0x5E55, 1, 0x51, 1 << 20, 4096, utf8("239.1.2.3:40456"),
                utf8("10.0.0.1:40000"))));
        samples.add(sample("TOPIC_MULTICAST bounds", FrameType.TOPIC_MULTICAST, scratch,
            writer.writeTopicMulticast(scratch, 0, Integer.MAX_VALUE, -1, Integer.MAX_VALUE, -1, 1 << 30,
                Long.MAX_VALUE, bytes(FrameReader.MAX_MULTICAST_GROUP_LENGTH), bytes(FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH))));
        samples.add(sample("TOPIC_MULTICAST back to the connection", FrameType.TOPIC_MULTICAST, scratch,
            writer.writeTopicMulticast(scratch, 0, 3, 0x5E55, 0, 0, 0, 0, new byte[0], new byte[0])));
        samples.add(sample("TOPIC_MULTICAST_LEFT", FrameType.TOPIC_MULTICAST_LEFT, scratch,
            writer.writeTopicMulticastLeft(scratch, 0, 3, 0x5E55, 1, 123_456, utf8("cannot join 239.1.2.3"))));
        samples.add(sample("TOPIC_MULTICAST_LEFT no reason", FrameType.TOPIC_MULTICAST_LEFT, scratch,
            writer.writeTopicMulticastLeft(scratch, 0, 1, 1, 1, 0, new byte[0])));
        return samples;
    }

    @Test
    void shouldKeepTheTemplateIdsAndNames()
    {
        assertThat(FrameType.MULTICAST_OFFER).isEqualTo(MulticastOfferDecoder.TEMPLATE_ID).isEqualTo(28);
        assertThat(FrameType.TOPIC_MULTICAST).isEqualTo(TopicMulticastDecoder.TEMPLATE_ID).isEqualTo(29);
        assertThat(FrameType.TOPIC_MULTICAST_LEFT).isEqualTo(TopicMulticastLeftDecoder.TEMPLATE_ID).isEqualTo(30);
        assertThat(FrameType.name(FrameType.TOPIC_MULTICAST)).isEqualTo("TOPIC_MULTICAST");
        assertThat(FrameType.carriesPayload(FrameType.TOPIC_MULTICAST)).isFalse();
    }

    @Test
    void shouldRoundTripEveryField()
    {
        int length = writer.writeMulticastOffer(scratch, 3, -5, 1 << 24, utf8("[::1]:7"));
        assertThat(length).isEqualTo(FrameWriter.multicastOfferLength(7));
        assertThat(reader.wrap(scratch, 3, length)).as("%s", reader.error()).isTrue();
        assertThat(reader.tag()).isEqualTo(-5);
        assertThat(reader.logCapacity()).isEqualTo(1 << 24);
        assertThat(reader.text()).isEqualTo("[::1]:7");

        length = writer.writeTopicMulticast(scratch, 5, 9, -9, 4, 77, 1 << 16, 1L << 40, utf8("239.9.9.9:1"),
            utf8("caf\u00e9:2"));
        assertThat(length).isEqualTo(FrameWriter.topicMulticastLength(11, 7));
        assertThat(reader.wrap(scratch, 5, length)).as("%s", reader.error()).isTrue();
        assertThat(reader.topicId()).isEqualTo(9);
        assertThat(reader.sessionId()).isEqualTo(-9);
        assertThat(reader.receiverId()).isEqualTo(4);
        assertThat(reader.streamSessionId()).isEqualTo(77);
        assertThat(reader.logCapacity()).isEqualTo(1 << 16);
        assertThat(reader.position()).isEqualTo(1L << 40);
        assertThat(reader.groupText()).isEqualTo("239.9.9.9:1");
        assertThat(reader.text()).isEqualTo("caf\u00e9:2");

        length = writer.writeTopicMulticastLeft(scratch, 0, 9, -9, 4, 99, utf8("silent"));
        assertThat(length).isEqualTo(FrameWriter.topicMulticastLeftLength(6));
        assertThat(reader.wrap(scratch, 0, length)).as("%s", reader.error()).isTrue();
        assertThat(reader.receiverId()).isEqualTo(4);
        assertThat(reader.position()).isEqualTo(99);
        assertThat(reader.text()).isEqualTo("silent");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4095, 4097, 6000, (1 << 20) + 1, -4096, Integer.MIN_VALUE})
    void shouldRejectALogCapacityThatIsNotAPowerOfTwoOfAtLeast4k(final int capacity)
    {
        final int length = writer.writeTopicMulticast(scratch, 0, 3, 5, 1, 7, capacity, 0, utf8("g"), utf8("s"));
        assertRejected(written(length), "capacity " + capacity, "power of two of at least 4096");
    }

    @Test
    void shouldRejectEachFieldOutOfRange()
    {
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 0, 5, 1, 7, 4096, 0, utf8("g"), utf8("s"))),
            "topic 0", "invalid TOPIC_MULTICAST");
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 3, 0, 1, 7, 4096, 0, utf8("g"), utf8("s"))),
            "session 0", "invalid TOPIC_MULTICAST");
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 3, 5, -1, 7, 4096, 0, utf8("g"), utf8("s"))),
            "receiver -1", "invalid TOPIC_MULTICAST");
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 3, 5, 1, 0, 4096, 0, utf8("g"), utf8("s"))),
            "stream session 0", "needs a stream session");
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 3, 5, 1, 7, 4096, -1, utf8("g"), utf8("s"))),
            "position -1", "needs a stream session");
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 3, 5, 1, 7, 4096, 0, new byte[0], utf8("s"))),
            "empty group", "group must be 1 to 100 bytes");
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 3, 5, 1, 7, 4096, 0,
            bytes(FrameReader.MAX_MULTICAST_GROUP_LENGTH + 1), utf8("s"))), "long group", "group must be 1 to 100");
        assertRejected(written(writer.writeTopicMulticast(scratch, 0, 3, 5, 1, 7, 4096, 0, utf8("g"),
            bytes(FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH + 1))), "long source", "its source 1 to 200");
        assertRejected(written(writer.writeMulticastOffer(scratch, 0, 1, 4095, utf8("a"))), "small image",
            "max image must be at least 4096");
        assertRejected(written(writer.writeMulticastOffer(scratch, 0, 1, 4096, new byte[0])), "no address",
            "address must be 1 to 200 bytes");
        assertRejected(written(writer.writeTopicMulticastLeft(scratch, 0, 3, 5, 0, 0, utf8("x"))), "receiver 0",
            "invalid TOPIC_MULTICAST_LEFT");
        assertRejected(written(writer.writeTopicMulticastLeft(scratch, 0, 3, 5, 1, -1, utf8("x"))), "position -1",
            "invalid TOPIC_MULTICAST_LEFT");
        assertRejected(written(writer.writeTopicMulticastLeft(scratch, 0, 3, 5, 1, 0,
            bytes(FrameReader.MAX_DATAGRAM_ADDRESS_LENGTH + 1))), "long reason", "reason must be at most 200");
    }

    @ParameterizedTest
    @MethodSource("samples")
    void shouldRejectEveryTruncationTrailingBytesAndLyingLengths(final Sample sample)
    {
        for (int length = 0; length < sample.length(); length++)
        {
            assertRejected(Arrays.copyOf(sample.bytes(), length), sample + " truncated to " + length, null);
        }
        assertRejected(Arrays.copyOf(sample.bytes(), sample.length() + 3), "trailing bytes",
            "frame length does not match its contents");
        for (final int blockLength : new int[] {0, 1, 7, sample.length(), 0xFFFF})
        {
            final byte[] frame = sample.copy();
            putShort(frame, 0, blockLength);
            assertRejected(frame, sample + " block length " + blockLength, null);
        }
        final int blockLength = blockLengthOf(sample.frameType());
        for (final int varLength : new int[] {0xFFFF_FFFF, 0x7FFF_FFFF, sample.length()})
        {
            final byte[] frame = sample.copy();
            putInt(frame, HEADER + blockLength, varLength);
            assertRejected(frame, sample + " var length 0x" + Integer.toHexString(varLength), null);
        }
        assertThat(reader.wrap(new UnsafeBuffer(sample.bytes()), 0, sample.length())).as("%s", reader.error()).isTrue();
    }

    @Test
    void shouldNeverThrowNorAcceptAnOutOfRangeFrameWhenMutated()
    {
        final List<Sample> samples = samples();
        final SplittableRandom random = new SplittableRandom(0x3C57);
        int accepted = 0;
        for (int i = 0; i < 100_000; i++)
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
                continue;
            }
            accepted++;
            if ((long)reader.dataOffset() + reader.dataLength() > frame.length)
            {
                fail("accepted frame's data escapes it on mutation %d of %s", i, sample);
            }
            if (reader.frameType() == FrameType.TOPIC_MULTICAST && reader.receiverId() > 0 &&
                (Integer.bitCount(reader.logCapacity()) != 1 || reader.logCapacity() < FrameReader.MIN_MULTICAST_LOG ||
                reader.position() < 0 || reader.metadataLength() < 1 ||
                reader.metadataLength() > FrameReader.MAX_MULTICAST_GROUP_LENGTH))
            {
                fail("accepted an out-of-range TOPIC_MULTICAST on mutation %d of %s", i, sample);
            }
        }
        assertThat(accepted).isPositive().isLessThan(100_000);
    }

    private static int blockLengthOf(final int type)
    {
        return type == FrameType.MULTICAST_OFFER ? MulticastOfferDecoder.BLOCK_LENGTH :
            type == FrameType.TOPIC_MULTICAST ? TopicMulticastDecoder.BLOCK_LENGTH : TopicMulticastLeftDecoder.BLOCK_LENGTH;
    }

    private static Sample sample(final String name, final int type, final UnsafeBuffer scratch, final int length)
    {
        final byte[] bytes = new byte[length];
        scratch.getBytes(0, bytes);
        return new Sample(name, type, bytes);
    }

    private static byte[] utf8(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(final int length)
    {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte)'m');
        return bytes;
    }

    private byte[] written(final int length)
    {
        return Arrays.copyOf(scratch.byteArray(), length);
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
