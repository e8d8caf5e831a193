package io.rivulet.topic;

import io.rivulet.ConfigurationException;
import io.rivulet.Message;
import io.rivulet.MessageTooLargeException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The publication's log on its own: sequences, back-pressure as a result, the ring's wrap-around,
 * in-place claims, the key limit and the bound on buffered bytes.
 */
class TopicPublicationTest
{
    static final KeyExtractor KEY = (buffer, offset, length) -> buffer.getLong(offset);

    private final TopicHarness harness = new TopicHarness();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);

    @Test
    void shouldAssignConsecutiveSequencesFromOne()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block());
        for (int i = 1; i <= 100; i++)
        {
            assertThat(publication.offer(message, 0, 16)).isEqualTo(i);
        }
        assertThat(publication.sequence()).isEqualTo(100);
        assertThat(publication.sessionId()).isNotZero();
    }

    @Test
    void shouldReportBackPressureAsAResultUntilTheEngineCatchesUp()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block().logCapacity(4096));
        int accepted = 0;
        long result;
        while ((result = publication.offer(message, 0, 40)) > 0)
        {
            accepted++;
        }
        assertThat(result).isEqualTo(Publication.BACK_PRESSURED);
        final int record = LogRecords.recordLength(40);
        assertThat(accepted).isEqualTo(4096 / record);
        assertThat(publication.backPressureEvents()).isEqualTo(1);

        harness.step(); // the keeper reads them: with no subscriber nothing holds the log
        assertThat(publication.offer(message, 0, 40)).isEqualTo(accepted + 1);
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(publication.capacity());
    }

    @Test
    void shouldDeliverEveryMessageAcrossManyLapsOfTheRing()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block().logCapacity(4096));
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("t.a").subscribe(collector);
        harness.settle();

        final int count = 5_000; // ~37 laps of a 4 KiB log with 29-byte messages (odd sizes: padding at the end)
        int sent = 0;
        for (int step = 0; step < 1_000_000 && sent < count; step++)
        {
            message.putInt(0, sent + 1);
            final long result = publication.offer(message, 0, 29);
            if (result > 0)
            {
                sent++;
            }
            else
            {
                assertThat(result).isEqualTo(Publication.BACK_PRESSURED);
                harness.step();
            }
        }
        harness.stepUntil("all delivered", () -> collector.dataSequences().size() == count);

        final List<TopicMessage> data = collector.ofKind(TopicMessage.Kind.DATA);
        for (int i = 0; i < count; i++)
        {
            assertThat(data.get(i).sequence()).isEqualTo(i + 1);
            assertThat(data.get(i).data().getInt(0)).isEqualTo(i + 1);
            assertThat(data.get(i).dataLength()).isEqualTo(29);
        }
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(4096);
    }

    @Test
    void shouldPublishClaimedSlotsAndSkipAbortedOnes()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block().keyOf(KEY));
        final TopicHarness.Collector collector = new TopicHarness.Collector(Long.MAX_VALUE);
        harness.connect().connection().subscribe("t.a").subscribe(collector);
        harness.settle();
        final TopicClaim claim = new TopicClaim();

        assertThat(publication.tryClaim(16, claim)).isEqualTo(1);
        claim.buffer().putLong(claim.offset(), 7);
        claim.buffer().putLong(claim.offset() + 8, 70);
        assertThatThrownBy(() -> publication.offer(message, 0, 8)).isInstanceOf(IllegalStateException.class);
        assertThat(claim.commit()).isEqualTo(1);

        assertThat(publication.tryClaim(16, claim)).isEqualTo(2);
        claim.abort();
        assertThat(publication.tryClaim(16, claim)).isEqualTo(2);
        claim.buffer().putLong(claim.offset(), 8);
        claim.buffer().putLong(claim.offset() + 8, 80);
        assertThat(claim.commit()).isEqualTo(2);
        assertThatThrownBy(claim::commit).isInstanceOf(IllegalStateException.class);
        harness.settle();

        final List<TopicMessage> data = collector.ofKind(TopicMessage.Kind.DATA);
        assertThat(data).extracting(TopicMessage::sequence).containsExactly(1L, 2L);
        assertThat(data).extracting(TopicMessage::key).containsExactly(7L, 8L);
        assertThat(data.get(1).data().getLong(8)).isEqualTo(80);
    }

    @Test
    void shouldRefuseANewKeyBeyondTheLimit()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.conflate(KEY).maxKeys(2));
        message.putLong(0, 1);
        assertThat(publication.offer(message, 0, 16)).isEqualTo(1);
        message.putLong(0, 2);
        assertThat(publication.offer(message, 0, 16)).isEqualTo(2);
        message.putLong(0, 3);
        assertThat(publication.offer(message, 0, 16)).isEqualTo(Publication.KEY_LIMIT_EXCEEDED);
        message.putLong(0, 1);
        assertThat(publication.offer(message, 0, 16)).isEqualTo(3);

        final TopicClaim claim = new TopicClaim();
        assertThat(publication.tryClaim(16, claim)).isEqualTo(4);
        claim.buffer().putLong(claim.offset(), 9);
        assertThat(claim.commit()).isEqualTo(Publication.KEY_LIMIT_EXCEEDED);
        harness.settle();
        assertThat(publication.retainedBytes()).isEqualTo(2 * 16);
    }

    @Test
    void shouldRejectMessagesLongerThanTheTopicAllows()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block().maxMessageLength(32));
        assertThatThrownBy(() -> publication.offer(message, 0, 33)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maxMessageLength");
        assertThat(publication.offer(message, 0, 32)).isEqualTo(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        publication.publish(Flux.just(Message.of(new byte[33]))).subscribe(null, failure::set);
        assertThat(failure.get()).isInstanceOf(MessageTooLargeException.class);
    }

    @Test
    void shouldValidateNamesAndOptions()
    {
        harness.publisher.publication("t.a", TopicOptions.block());
        assertThatThrownBy(() -> harness.publisher.publication("t.a", TopicOptions.block()))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("already publishes");
        assertThatThrownBy(() -> harness.publisher.publication("t.*", TopicOptions.block()))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> harness.publisher.publication("t.b", TopicOptions.block().logCapacity(5000)))
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("logCapacity");
        assertThatThrownBy(() -> harness.publisher.publication("t.b", TopicOptions.block().maxKeys(0)))
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("maxKeys");
        assertThatThrownBy(() -> harness.publisher.publication("t.b",
            TopicOptions.block().maxMessageLength(TopicHarness.MAX_FRAME_LENGTH)))
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("maxMessageLength");
        assertThatThrownBy(() -> TopicOptions.conflate(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TopicOptions.conflate(KEY).keyOf(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRefuseOffersOnceClosedAndAllowTheNameAgain()
    {
        final Publication first = harness.publisher.publication("t.a", TopicOptions.block());
        first.close();
        assertThat(first.offer(message, 0, 8)).isEqualTo(Publication.CLOSED);
        final Publication second = harness.publisher.publication("t.a", TopicOptions.block());
        assertThat(second.sessionId()).isNotEqualTo(first.sessionId());
        assertThat(second.offer(message, 0, 8)).isEqualTo(1);
    }

    @Test
    void shouldPublishAFluxRequestingOnlyWhatTheLogTakes()
    {
        final Publication publication = harness.publisher.publication("t.a", TopicOptions.block().logCapacity(4096));
        final TopicHarness.Collector slow = new TopicHarness.Collector(0);
        harness.connect().connection().subscribe("t.a").subscribe(slow);
        harness.settle();
        final List<Long> requested = new ArrayList<>();
        final AtomicReference<Boolean> done = new AtomicReference<>(false);
        final int count = 1_000;
        publication.publish(Flux.range(1, count).doOnRequest(requested::add).map(i -> Message.of(new byte[24])))
            .subscribe(null, error -> { throw new AssertionError(error); }, () -> done.set(true));
        harness.settle();

        // BLOCK, and the only subscriber asks for nothing: the flux waits, its source is not asked for more.
        assertThat(done.get()).isFalse();
        assertThat(requested.stream().mapToLong(Long::longValue).sum()).isLessThan(count);
        assertThat(requested).allMatch(n -> n == 1);
        assertThat(publication.maxBufferedBytes()).isLessThanOrEqualTo(4096);

        slow.request(Long.MAX_VALUE);
        harness.stepUntil("the flux published", done::get);
        harness.stepUntil("all delivered", () -> slow.dataSequences().size() == count);
        assertThat(slow.dataSequences()).isSorted().doesNotHaveDuplicates().hasSize(count);
    }

    @Test
    void shouldNotAllocateOnTheOfferPath()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        if (!threads.isThreadAllocatedMemorySupported())
        {
            return;
        }
        threads.setThreadAllocatedMemoryEnabled(true);
        final Publication publication = harness.publisher.publication("t.a",
            TopicOptions.conflate(KEY).logCapacity(64 * 1024));
        long allocated = 0;
        long offers = 0;
        for (int round = 0; round < 400; round++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 500; i++)
            {
                message.putLong(0, i & 63);
                if (publication.offer(message, 0, 48) > 0)
                {
                    offers++;
                }
            }
            final long used = threads.getCurrentThreadAllocatedBytes() - before;
            if (round >= 100)
            {
                allocated += used; // measured after warm-up; the engine's steps below are not measured
            }
            harness.step();
        }
        assertThat(offers).isGreaterThan(100_000);
        assertThat(allocated).as("bytes allocated by offers").isLessThan(16 * 1024);
    }
}
