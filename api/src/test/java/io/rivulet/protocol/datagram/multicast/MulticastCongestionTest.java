package io.rivulet.protocol.datagram.multicast;

import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastSettings;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The congestion window against a bottleneck at the publisher's egress (100 MB/s, a queue of 2 ms before tail drop):
 * with Swift's delay rule on the slowest receiver the queue stays near the target and nothing is dropped; with the
 * window off, the flow control window alone fills the queue and it drops. Simulated time, deterministic.
 */
class MulticastCongestionTest
{
    private static final long TARGET_NS = TimeUnit.MICROSECONDS.toNanos(200);

    private static final class Run
    {
        double meanQueueNs;
        long maxQueueNs;
        long tailDrops;
        long decreases;
        double window;
        double linkUse;
    }

    private static Run run(final boolean congestionControl)
    {
        final LossyDatagramNetwork network = new LossyDatagramNetwork(13, 1500, 8192)
            .egress(100_000_000, TimeUnit.MILLISECONDS.toNanos(2));
        final MulticastSettings settings = new MulticastSettings().congestionControl(congestionControl)
            .targetDelayNs(TARGET_NS).receiverWindow(1 << 19);
        final MulticastHarness harness = new MulticastHarness(network, settings, 1 << 21);
        for (int i = 0; i < 8; i++)
        {
            harness.addReceiver();
        }
        harness.publishAndDrain(100_000, 10_000_000); // settle
        harness.publisherEndpoint.resetQueueStatistics();
        final long dropsBefore = network.bottleneckDrops();
        final long bytesBefore = harness.sender.bytesSent() + harness.sender.repairBytes();
        final long steps = harness.publishAndDrain(200_000, 20_000_000);

        for (final MulticastHarness.Node node : harness.nodes)
        {
            assertThat(node.delivered).isEqualTo(300_000);
        }
        final Run run = new Run();
        run.meanQueueNs = harness.publisherEndpoint.averageQueueDelayNs();
        run.maxQueueNs = harness.publisherEndpoint.maxQueueDelayNs();
        run.tailDrops = network.bottleneckDrops() - dropsBefore;
        run.decreases = harness.sender.congestionDecreases();
        run.window = harness.sender.congestionWindow();
        run.linkUse = (harness.sender.bytesSent() + harness.sender.repairBytes() - bytesBefore) /
            (steps * harness.stepNs / 1e9 * 100_000_000);
        System.out.printf("congestion control %s: queueing mean %.0f us, max %d us, tail drops %,d, window %.1f, " +
            "decreases %,d, link busy %.0f%% (payload bytes)%n", congestionControl, run.meanQueueNs / 1000,
            run.maxQueueNs / 1000, run.tailDrops, run.window, run.decreases, 100 * run.linkUse);
        return run;
    }

    @Test
    void shouldKeepTheBottleneckQueueNearTheTargetDelay()
    {
        final Run swift = run(true);
        assertThat(swift.meanQueueNs).isLessThan(3 * TARGET_NS);
        assertThat(swift.tailDrops).isZero();
        assertThat(swift.decreases).isPositive();
        assertThat(swift.linkUse).isGreaterThan(0.5); // held back by delay, not starved
    }

    @Test
    void shouldKeepTheRateAcrossAGapBetweenDutyCyclesUpToAMillisecond()
    {
        final int datagram = 1_000;
        final MulticastCongestion congestion = new MulticastCongestion(new MulticastSettings().initialWindow(10),
            datagram, 64);
        final long startNs = 1_000_000_000L;
        congestion.onProgress(startNs, 0, -1);
        congestion.onProgress(startNs, datagram, TimeUnit.MICROSECONDS.toNanos(100)); // srtt 100 us
        final double windowBytes = congestion.window() * datagram;
        long nowNs = startNs;
        spend(congestion, congestion.sendable(nowNs, datagram, 0));

        // A cycle 10 us later has earned a tenth of a window; unspent credit does not pile up beyond the larger of a
        // window and what the last gap earned (150 us: one and a half windows, not 1.6).
        nowNs += TimeUnit.MICROSECONDS.toNanos(10);
        assertThat(congestion.sendable(nowNs, datagram, 0)).isBetween((long)(0.09 * windowBytes),
            (long)(0.11 * windowBytes));
        nowNs += TimeUnit.MICROSECONDS.toNanos(150);
        assertThat(congestion.sendable(nowNs, datagram, 0)).isBetween((long)(1.49 * windowBytes),
            (long)(1.51 * windowBytes));
        spend(congestion, congestion.sendable(nowNs, datagram, 0));
        nowNs += TimeUnit.MICROSECONDS.toNanos(20);
        spend(congestion, congestion.sendable(nowNs, datagram, 0));
        nowNs += TimeUnit.MICROSECONDS.toNanos(20);
        assertThat(congestion.sendable(nowNs, datagram, 0)).as("cycles close together: the last gap's earnings")
            .isBetween((long)(0.19 * windowBytes), (long)(0.21 * windowBytes));
        spend(congestion, congestion.sendable(nowNs, datagram, 0));

        // An engine that slept 1 ms may send what the rate earned meanwhile: ten windows, not one.
        nowNs += TimeUnit.MILLISECONDS.toNanos(1);
        assertThat(congestion.sendable(nowNs, datagram, 0)).isBetween((long)(9.9 * windowBytes),
            (long)(10.1 * windowBytes));
        spend(congestion, congestion.sendable(nowNs, datagram, 0));

        // A longer silence earns no more than that: an idle stream does not bank a burst.
        nowNs += TimeUnit.MILLISECONDS.toNanos(50);
        assertThat(congestion.sendable(nowNs, datagram, 0)).isBetween((long)(9.9 * windowBytes),
            (long)(10.1 * windowBytes));
    }

    private static void spend(final MulticastCongestion congestion, final long bytes)
    {
        congestion.onSent((int)bytes);
    }

    @Test
    void shouldFillTheQueueWithoutTheCongestionWindow()
    {
        final Run fixed = run(false);
        assertThat(fixed.meanQueueNs).isGreaterThan(5 * TARGET_NS);
    }
}
