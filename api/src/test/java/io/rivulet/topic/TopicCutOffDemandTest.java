package io.rivulet.topic;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A DROP_SLOW cut-off ends the subscription whatever the subscriber requested, deterministically: the error needs
 * no demand, the items its demand covers are handed over first, and the rest are discarded and counted in the
 * {@link SlowConsumerException}.
 */
class TopicCutOffDemandTest
{
    private static final int CAPACITY = 8 * 1024;
    private static final int WINDOW = 64;
    private static final int MESSAGE_LENGTH = 16;
    private static final int MAX_MESSAGES = 100_000;

    private final TopicHarness harness = new TopicHarness(WINDOW);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);
    private Publication publication;
    private long published;

    private TopicHarness.Peer subscribe(final TopicHarness.Collector collector)
    {
        publication = harness.publisher.publication("md.quotes.EURUSD", TopicOptions.dropSlow().logCapacity(CAPACITY));
        final TopicHarness.Peer peer = harness.connect();
        peer.connection().subscribe("md.quotes.EURUSD").subscribe(collector);
        harness.settle();
        return peer;
    }

    /** Publishes, a few messages per duty cycle, until the publication cut a subscriber off. */
    private void publishUntilCutOff()
    {
        for (int i = 0; i < MAX_MESSAGES && publication.slowConsumerEvents() == 0; i++)
        {
            message.putLong(0, published + 1);
            final long result = publication.offer(message, 0, MESSAGE_LENGTH);
            if (result > 0)
            {
                published = result;
            }
            if (result <= 0 || i % 8 == 0)
            {
                harness.step();
            }
        }
        assertThat(publication.slowConsumerEvents()).as("the subscriber was cut off").isEqualTo(1);
        harness.settle();
    }

    @Test
    void shouldFailASubscriberThatRequestedNothing()
    {
        final TopicHarness.Collector slow = new TopicHarness.Collector(0);
        subscribe(slow);

        publishUntilCutOff();

        assertThat(slow.items).isEmpty();
        assertThat(slow.error).as("the cut-off needs no demand").isInstanceOf(SlowConsumerException.class);
        final SlowConsumerException cut = (SlowConsumerException)slow.error;
        assertThat(cut.lastSequence()).isEqualTo(WINDOW); // the window's credits, then it lagged
        assertThat(cut.discardedItems()).as("JOINED and every DATA").isEqualTo(WINDOW + 1);
        assertThat(cut).hasMessageContaining("DROP_SLOW").hasMessageContaining("65 items not requested were discarded");
    }

    @Test
    void shouldHandOverWhatWasRequestedThenFailAtOnce()
    {
        final TopicHarness.Collector slow = new TopicHarness.Collector(3);
        subscribe(slow);

        publishUntilCutOff();

        assertThat(slow.items).extracting(TopicMessage::kind)
            .containsExactly(TopicMessage.Kind.JOINED, TopicMessage.Kind.DATA, TopicMessage.Kind.DATA);
        assertThat(slow.dataSequences()).containsExactly(1L, 2L);
        final SlowConsumerException cut = (SlowConsumerException)slow.error;
        assertThat(cut.lastSequence()).isGreaterThanOrEqualTo(WINDOW); // room it made was granted again
        assertThat(cut.discardedItems()).as("every DATA after the two it took").isEqualTo(cut.lastSequence() - 2);

        // Demand arriving after the end changes nothing.
        slow.request(Long.MAX_VALUE);
        harness.settle();
        assertThat(slow.items).hasSize(3);
    }

    @Test
    void shouldDeliverEverythingBeforeTheCutOffWhenDemandCoversIt()
    {
        final TopicHarness.Collector frozen = new TopicHarness.Collector(Long.MAX_VALUE);
        final TopicHarness.Peer peer = subscribe(frozen);
        peer.frozen = true; // its node reads nothing and grants nothing: its cursor lags and is cut off

        publishUntilCutOff();
        assertThat(frozen.error).isNull();
        peer.frozen = false;
        harness.settle();

        final SlowConsumerException cut = (SlowConsumerException)frozen.error;
        assertThat(cut.discardedItems()).isZero();
        assertThat(cut).hasMessageNotContaining("discarded");
        assertThat(frozen.dataSequences()).hasSize((int)cut.lastSequence());
        for (int i = 0; i < cut.lastSequence(); i++)
        {
            assertThat(frozen.dataSequences().get(i)).isEqualTo(i + 1L);
        }
    }
}
