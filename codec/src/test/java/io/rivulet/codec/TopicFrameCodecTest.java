package io.rivulet.codec;

import io.rivulet.codec.wire.DetachReason;
import io.rivulet.codec.wire.GapReason;
import io.rivulet.codec.wire.MessageHeaderDecoder;
import io.rivulet.codec.wire.SubscribeDecoder;
import io.rivulet.codec.wire.TopicAttachDecoder;
import io.rivulet.codec.wire.TopicDataDecoder;
import io.rivulet.codec.wire.TopicDataEncoder;
import io.rivulet.codec.wire.TopicDetachDecoder;
import io.rivulet.codec.wire.TopicGapDecoder;
import io.rivulet.codec.wire.TopicHeartbeatDecoder;
import io.rivulet.codec.wire.TopicPolicy;
import io.rivulet.codec.wire.TopicSnapshotDecoder;
import io.rivulet.codec.wire.TopicStatusDecoder;
import io.rivulet.codec.wire.UnsubscribeDecoder;
import io.rivulet.codec.wire.MessageHeaderEncoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.rivulet.codec.TestFrames.pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fan-out topic frames (12..20): FrameWriter and FrameReader round trips, agreement with the
 * generated SBE codecs, and the in-place TOPIC_DATA layout a publisher's log relies on.
 */
class TopicFrameCodecTest
{
    private static final int OFFSET = 29;

    private final FrameWriter writer = new FrameWriter();
    private final FrameReader reader = new FrameReader();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();

    @BeforeEach
    void fillWithGarbage()
    {
        buffer.setMemory(0, buffer.capacity(), (byte)0xA5);
    }

    @Test
    void shouldDefineTopicFrameTypesAsTheGeneratedTemplateIds()
    {
        assertThat(FrameType.TOPIC_DATA).isEqualTo(TopicDataDecoder.TEMPLATE_ID).isEqualTo(12);
        assertThat(FrameType.SUBSCRIBE).isEqualTo(SubscribeDecoder.TEMPLATE_ID).isEqualTo(13);
        assertThat(FrameType.UNSUBSCRIBE).isEqualTo(UnsubscribeDecoder.TEMPLATE_ID).isEqualTo(14);
        assertThat(FrameType.TOPIC_STATUS).isEqualTo(TopicStatusDecoder.TEMPLATE_ID).isEqualTo(15);
        assertThat(FrameType.TOPIC_ATTACH).isEqualTo(TopicAttachDecoder.TEMPLATE_ID).isEqualTo(16);
        assertThat(FrameType.TOPIC_SNAPSHOT).isEqualTo(TopicSnapshotDecoder.TEMPLATE_ID).isEqualTo(17);
        assertThat(FrameType.TOPIC_GAP).isEqualTo(TopicGapDecoder.TEMPLATE_ID).isEqualTo(18);
        assertThat(FrameType.TOPIC_HEARTBEAT).isEqualTo(TopicHeartbeatDecoder.TEMPLATE_ID).isEqualTo(19);
        assertThat(FrameType.TOPIC_DETACH).isEqualTo(TopicDetachDecoder.TEMPLATE_ID).isEqualTo(20);
        for (int type = 0; type <= 22; type++)
        {
            assertThat(FrameType.isTopic(type)).as(FrameType.name(type)).isEqualTo(type >= 12 && type <= 20);
            assertThat(FrameType.carriesPayload(type) && FrameType.isTopic(type)).isFalse();
        }
        assertThat(FrameType.name(FrameType.TOPIC_DATA)).isEqualTo("TOPIC_DATA");
        assertThat(FrameType.name(FrameType.SUBSCRIBE)).isEqualTo("SUBSCRIBE");
        assertThat(FrameType.name(FrameType.TOPIC_DETACH)).isEqualTo("TOPIC_DETACH");
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 1, 17, 300 })
    void shouldRoundTripTopicData(final int dataLength)
    {
        final byte[] data = pattern(dataLength, 3);
        final int length = writer.writeTopicData(buffer, OFFSET, 7, -99, 123_456_789_012L, -5L, new UnsafeBuffer(data), 0,
            dataLength);

        assertThat(length).isEqualTo(FrameWriter.topicDataLength(dataLength));
        assertWrapped(length, FrameType.TOPIC_DATA);
        assertThat(reader.topicId()).isEqualTo(7);
        assertThat(reader.sessionId()).isEqualTo(-99);
        assertThat(reader.sequence()).isEqualTo(123_456_789_012L);
        assertThat(reader.key()).isEqualTo(-5L);
        assertThat(reader.dataOffset()).isEqualTo(OFFSET + FrameWriter.TOPIC_DATA_HEADER_LENGTH);
        assertThat(bytes(reader.dataOffset(), reader.dataLength())).isEqualTo(data);
        assertThat(reader.streamId()).isZero();

        final TopicDataDecoder decoder = new TopicDataDecoder().wrapAndApplyHeader(buffer, OFFSET, header);
        assertThat(decoder.topicId()).isEqualTo(7);
        assertThat(decoder.sequence()).isEqualTo(123_456_789_012L);
        assertThat(decoder.dataLength()).isEqualTo(dataLength);
    }

    @Test
    void shouldEncodeTheTopicDataHeaderAroundBytesWrittenInPlace()
    {
        final byte[] data = pattern(40, 9);
        buffer.putBytes(OFFSET + FrameWriter.TOPIC_DATA_HEADER_LENGTH, data);

        final int length = writer.writeTopicDataHeader(buffer, OFFSET, 3, 4, 5L, 6L, data.length);

        assertWrapped(length, FrameType.TOPIC_DATA);
        assertThat(bytes(reader.dataOffset(), reader.dataLength())).isEqualTo(data);
        assertThat(buffer.getLong(OFFSET + FrameWriter.TOPIC_DATA_SEQUENCE_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN))
            .isEqualTo(5L);
        assertThat(buffer.getLong(OFFSET + FrameWriter.TOPIC_DATA_KEY_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN))
            .isEqualTo(6L);

        final TopicDataEncoder encoder = new TopicDataEncoder();
        final UnsafeBuffer generated = new UnsafeBuffer(new byte[256]);
        encoder.wrapAndApplyHeader(generated, 0, new MessageHeaderEncoder()).topicId(3).sessionId(4).sequence(5L).key(6L)
            .putData(data, 0, data.length);
        assertThat(MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength()).isEqualTo(length);
        assertThat(bytes(OFFSET, length)).isEqualTo(copy(generated, 0, length));
    }

    @Test
    void shouldRoundTripSubscribeAndUnsubscribe()
    {
        final byte[] pattern = "md.quotes.*".getBytes(StandardCharsets.UTF_8);
        int length = writer.writeSubscribe(buffer, OFFSET, 42, 1024, pattern);
        assertThat(length).isEqualTo(FrameWriter.subscribeLength(pattern.length));
        assertWrapped(length, FrameType.SUBSCRIBE);
        assertThat(reader.subscriptionId()).isEqualTo(42);
        assertThat(reader.credits()).isEqualTo(1024);
        assertThat(reader.text()).isEqualTo("md.quotes.*");
        assertThat(new SubscribeDecoder().wrapAndApplyHeader(buffer, OFFSET, header).pattern()).isEqualTo("md.quotes.*");

        length = writer.writeUnsubscribe(buffer, OFFSET, 42);
        assertThat(length).isEqualTo(FrameWriter.unsubscribeLength());
        assertWrapped(length, FrameType.UNSUBSCRIBE);
        assertThat(reader.subscriptionId()).isEqualTo(42);
    }

    @Test
    void shouldRoundTripTopicStatusAndHeartbeat()
    {
        int length = writer.writeTopicStatus(buffer, OFFSET, 9, 77, 0);
        assertThat(length).isEqualTo(FrameWriter.topicStatusLength());
        assertWrapped(length, FrameType.TOPIC_STATUS);
        assertThat(reader.topicId()).isEqualTo(9);
        assertThat(reader.sessionId()).isEqualTo(77);
        assertThat(reader.credits()).isZero();

        length = writer.writeTopicHeartbeat(buffer, OFFSET, 9, 77, 1_000_000L);
        assertThat(length).isEqualTo(FrameWriter.topicHeartbeatLength());
        assertWrapped(length, FrameType.TOPIC_HEARTBEAT);
        assertThat(reader.sequence()).isEqualTo(1_000_000L);
        assertThat(new TopicHeartbeatDecoder().wrapAndApplyHeader(buffer, OFFSET, header).sequence()).isEqualTo(1_000_000L);
    }

    @Test
    void shouldRoundTripAttachAndSnapshot()
    {
        final byte[] topic = "md.quotes.EURUSD".getBytes(StandardCharsets.UTF_8);
        int length = writer.writeTopicAttach(buffer, OFFSET, 3, 11, 12, TopicPolicy.CONFLATE.value(), 500L, 64, topic);
        assertThat(length).isEqualTo(FrameWriter.topicAttachLength(topic.length));
        assertWrapped(length, FrameType.TOPIC_ATTACH);
        assertThat(reader.subscriptionId()).isEqualTo(3);
        assertThat(reader.topicId()).isEqualTo(11);
        assertThat(reader.sessionId()).isEqualTo(12);
        assertThat(reader.policy()).isEqualTo(TopicPolicy.CONFLATE.value());
        assertThat(reader.sequence()).isEqualTo(500L);
        assertThat(reader.count()).isEqualTo(64);
        assertThat(reader.text()).isEqualTo("md.quotes.EURUSD");
        final TopicAttachDecoder attach = new TopicAttachDecoder().wrapAndApplyHeader(buffer, OFFSET, header);
        assertThat(attach.policy()).isEqualTo(TopicPolicy.CONFLATE);
        assertThat(attach.snapshotSequence()).isEqualTo(500L);

        final byte[] data = pattern(13, 4);
        length = writer.writeTopicSnapshot(buffer, OFFSET, 0, 11, 12, 499L, 8L, new UnsafeBuffer(data), 0, data.length);
        assertThat(length).isEqualTo(FrameWriter.topicSnapshotLength(data.length));
        assertWrapped(length, FrameType.TOPIC_SNAPSHOT);
        assertThat(reader.subscriptionId()).isZero();
        assertThat(reader.sequence()).isEqualTo(499L);
        assertThat(reader.key()).isEqualTo(8L);
        assertThat(bytes(reader.dataOffset(), reader.dataLength())).isEqualTo(data);
    }

    @Test
    void shouldRoundTripGapAndDetach()
    {
        int length = writer.writeTopicGap(buffer, OFFSET, 5, 6, 10L, 20L, GapReason.CONFLATED.value(), 3);
        assertThat(length).isEqualTo(FrameWriter.topicGapLength());
        assertWrapped(length, FrameType.TOPIC_GAP);
        assertThat(reader.fromSequence()).isEqualTo(10L);
        assertThat(reader.toSequence()).isEqualTo(20L);
        assertThat(reader.reason()).isEqualTo(GapReason.CONFLATED.value());
        assertThat(reader.count()).isEqualTo(3);
        assertThat(new TopicGapDecoder().wrapAndApplyHeader(buffer, OFFSET, header).reason()).isEqualTo(GapReason.CONFLATED);

        final byte[] message = "fell 1048576 bytes behind".getBytes(StandardCharsets.UTF_8);
        length = writer.writeTopicDetach(buffer, OFFSET, 5, 6, 20L, DetachReason.CUT_OFF.value(), message);
        assertThat(length).isEqualTo(FrameWriter.topicDetachLength(message.length));
        assertWrapped(length, FrameType.TOPIC_DETACH);
        assertThat(reader.sequence()).isEqualTo(20L);
        assertThat(reader.reason()).isEqualTo(DetachReason.CUT_OFF.value());
        assertThat(reader.text()).isEqualTo("fell 1048576 bytes behind");
        assertThat(new TopicDetachDecoder().wrapAndApplyHeader(buffer, OFFSET, header).reason())
            .isEqualTo(DetachReason.CUT_OFF);
    }

    @Test
    void shouldProvideOneValidSampleOfEachTopicFrame()
    {
        final List<TestFrames.Sample> samples = TopicFrameHostileInputTest.samples();
        assertThat(samples).extracting(TestFrames.Sample::frameType)
            .containsExactlyInAnyOrder(12, 13, 14, 15, 16, 17, 18, 19, 20);
        for (final TestFrames.Sample sample : samples)
        {
            assertThat(reader.wrap(new UnsafeBuffer(sample.bytes()), 0, sample.length())).as("%s", reader.error()).isTrue();
        }
    }

    private void assertWrapped(final int length, final int frameType)
    {
        assertThat(reader.wrap(buffer, OFFSET, length)).as("%s", reader.error()).isTrue();
        assertThat(reader.frameType()).isEqualTo(frameType);
        assertThat(reader.error()).isNull();
    }

    private byte[] bytes(final int offset, final int length)
    {
        return copy(buffer, offset, length);
    }

    private static byte[] copy(final UnsafeBuffer source, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        source.getBytes(offset, bytes);
        return bytes;
    }
}
