package io.rivulet.bench.harness;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FanOutReceiverTest
{
    private static final Runnable NO_PAUSE = () ->
    {
    };

    @Test
    void shouldRecordEachDeliveryLatencyIntoTheRunsHistogram()
    {
        final FanOutReceiver receiver = new FanOutReceiver("subscriber 0");
        receiver.startRun();
        receiver.onMessage(0, 1_000, 6_000);
        receiver.onMessage(1, 2_000, 9_000);
        final Histogram merged = Histograms.newHistogram();

        receiver.recordInto(merged);

        assertThat(receiver.received()).isEqualTo(2);
        assertThat(merged.getTotalCount()).isEqualTo(2);
        assertThat(merged.getMinValue()).isEqualTo(merged.lowestEquivalentValue(5_000));
        assertThat(merged.getMaxValue()).isEqualTo(merged.highestEquivalentValue(7_000));
    }

    @Test
    void shouldStartEachRunWithAnEmptyHistogramButKeepCountingSequences() throws Exception
    {
        final FanOutReceiver receiver = new FanOutReceiver("subscriber 0");
        receiver.onMessage(0, 0, 10);
        receiver.startRun();
        receiver.onMessage(1, 0, 20);
        final Histogram merged = Histograms.newHistogram();

        receiver.recordInto(merged);
        FanOutReceiver.await(List.of(receiver), 2, 1, new Progress(), NO_PAUSE);

        assertThat(merged.getTotalCount()).isEqualTo(1);
        assertThat(receiver.received()).isEqualTo(2);
    }

    @Test
    void shouldReturnWhenEverySubscriberHasTheTargetAndReportTheSlowest() throws Exception
    {
        final List<FanOutReceiver> receivers = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            receivers.add(new FanOutReceiver("subscriber " + i));
        }
        final Progress progress = new Progress();
        progress.start("fanout", 4);
        // Each look delivers one more message to the subscriber that is furthest behind.
        final Runnable deliverToSlowest = () ->
        {
            FanOutReceiver slowest = receivers.get(0);
            for (final FanOutReceiver receiver : receivers)
            {
                slowest = receiver.received() < slowest.received() ? receiver : slowest;
            }
            slowest.onMessage((int)slowest.received(), 0, 1);
        };

        FanOutReceiver.await(receivers, 4, 4, progress, deliverToSlowest);

        for (final FanOutReceiver receiver : receivers)
        {
            assertThat(receiver.received()).isEqualTo(4);
        }
        assertThat(progress.done()).isEqualTo(4);
    }

    @Test
    void shouldFailNamingTheSubscriberThatMissedAMessage()
    {
        final FanOutReceiver inOrder = new FanOutReceiver("subscriber 0");
        final FanOutReceiver gap = new FanOutReceiver("subscriber 1");
        inOrder.onMessage(0, 0, 1);
        inOrder.onMessage(1, 0, 1);
        gap.onMessage(0, 0, 1);
        gap.onMessage(2, 0, 1);

        assertThatThrownBy(() -> FanOutReceiver.await(List.of(inOrder, gap), 2, 2, new Progress(), NO_PAUSE))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("subscriber 1")
            .hasMessageContaining("expected message 1, got 2");
    }

    @Test
    void shouldFailWhenASubscriptionFailsBeforeTheTarget()
    {
        final FanOutReceiver receiver = new FanOutReceiver("subscriber 3");
        receiver.onError("connection lost");

        assertThatThrownBy(() -> FanOutReceiver.await(List.of(receiver), 10, 10, new Progress(), NO_PAUSE))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("subscriber 3: connection lost");
    }
}
