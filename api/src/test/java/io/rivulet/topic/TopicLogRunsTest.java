package io.rivulet.topic;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The log's records are the link's wire format: cursors hand them to the link in runs, which end at a skip,
 * the end of the ring, the keeper, the credits or what the link takes.
 */
class TopicLogRunsTest
{
    private final TopicHarness harness = new TopicHarness();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);

    @Test
    void shouldHandWhatWasPublishedSinceTheLastCycleToTheLinkAsOneRun()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        final TopicHarness.Peer peer = harness.connect();
        peer.connection().subscribe("t.a").subscribe(collector);
        harness.settle();

        for (int i = 1; i <= 50; i++)
        {
            message.putInt(0, i);
            assertThat(publication.offer(message, 0, 32)).isEqualTo(i);
        }
        harness.settle();

        assertThat(peer.publisherLink.runs).isEqualTo(1);
        assertThat(peer.publisherLink.framesInRuns).isEqualTo(50);
        assertThat(collector.ofKind(TopicMessage.Kind.DATA)).extracting(m -> m.data().getInt(0))
            .containsExactlyElementsOf(() -> IntStream.rangeClosed(1, 50).iterator());
    }

    @Test
    void shouldEndARunAtTheCursorsCredits()
    {
        final TopicHarness small = new TopicHarness(16);
        final Publication publication = small.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        final TopicHarness.Peer peer = small.connect();
        peer.connection().subscribe("t.a").subscribe(collector);
        small.settle();

        for (int i = 1; i <= 40; i++)
        {
            assertThat(publication.offer(message, 0, 8)).isEqualTo(i);
        }
        small.step();

        assertThat(peer.publisherLink.framesInRuns).as("one window's worth in the first cycle").isEqualTo(16);
        small.stepUntil("all delivered", () -> collector.dataSequences().size() == 40);
        assertThat(collector.dataSequences()).containsExactlyElementsOf(
            () -> LongStream.rangeClosed(1, 40).iterator());
    }

    @Test
    void shouldDeliverEveryMessageAcrossEveryKindOfSkipAndLinksThatTakePartOfARun()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block().logCapacity(4096));
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        final TopicHarness.Peer peer = harness.connect(7); // a link that holds 7 frames: runs are taken in part
        peer.connection().subscribe("t.a").subscribe(collector);
        harness.settle();
        final TopicClaim claim = new TopicClaim();
        final Set<Integer> remainders = new TreeSet<>(); // bytes left at the end of the ring when a record did not fit

        final int count = 4_000;
        int sent = 0;
        boolean aborted = false;
        for (int step = 0; step < 1_000_000 && sent < count; step++)
        {
            final int length = length(sent + 1);
            final int index = (int)(publication.published() & publication.mask());
            final int record = LogRecords.recordLength(length);
            final long result;
            if (sent % 5 == 4 && !aborted)
            {
                // A claim aborted before this message goes through a claim: its bytes become a skip.
                result = publication.tryClaim(length, claim);
                if (result > 0)
                {
                    claim.abort();
                    aborted = true;
                    continue;
                }
            }
            else if (sent % 5 == 4)
            {
                result = publication.tryClaim(length, claim);
                if (result > 0)
                {
                    fill(claim.buffer(), claim.offset(), length, sent + 1);
                    assertThat(claim.commit()).isEqualTo(result);
                    aborted = false;
                }
            }
            else
            {
                fill(message, 0, length, sent + 1);
                result = publication.offer(message, 0, length);
            }
            if (result > 0)
            {
                if (index + record > publication.capacity())
                {
                    remainders.add(publication.capacity() - index);
                }
                sent++;
            }
            else
            {
                assertThat(result).isEqualTo(Publication.BACK_PRESSURED);
                harness.step();
            }
        }
        harness.stepUntil("all delivered", () -> collector.dataSequences().size() == count);

        assertThat(remainders).as("remainders too short for a header, and ones that hold a skip")
            .contains(1, 2, 3).anyMatch(remainder -> remainder >= LogRecords.HEADER_LENGTH);
        final List<TopicMessage> data = collector.ofKind(TopicMessage.Kind.DATA);
        for (int i = 0; i < count; i++)
        {
            final int sequence = i + 1;
            assertThat(data.get(i).sequence()).isEqualTo(sequence);
            assertThat(data.get(i).dataLength()).isEqualTo(length(sequence));
            final UnsafeBuffer expected = new UnsafeBuffer(new byte[length(sequence)]);
            fill(expected, 0, length(sequence), sequence);
            assertThat(data.get(i).data().compareTo(expected)).as("message %d", sequence).isZero();
        }
        assertThat(peer.publisherLink.framesInRuns).as("frames were offered in runs, some more than once")
            .isGreaterThan(count);
        assertThat(peer.publisherLink.runs).isLessThan(count);
    }

    @Test
    void shouldFailLoudlyWhenALinkTakesPartOfAFrame()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block());
        final TopicHarness.Peer peer = harness.connect();
        peer.connection().subscribe("t.a").subscribe(new TopicHarness.Collector(Long.MAX_VALUE));
        harness.settle();
        for (int i = 1; i <= 3; i++)
        {
            assertThat(publication.offer(message, 0, 32)).isEqualTo(i);
        }
        peer.publisherLink.brokenRunTake = LogRecords.recordLength(32) + 1; // one frame and a byte of the next

        assertThatThrownBy(harness::step).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("ends inside a frame");
    }

    /** Lengths that walk through every remainder at the end of a 4 KiB ring. */
    private static int length(final int sequence)
    {
        return 4 + (sequence * 7) % 41;
    }

    private static void fill(final MutableDirectBuffer buffer, final int offset, final int length, final int seed)
    {
        buffer.putInt(offset, seed);
        for (int i = 4; i < length; i++)
        {
            buffer.putByte(offset + i, (byte)(seed + i));
        }
    }
}
