package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SwiftSettings;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Four subscriber paths share a publisher's egress link with a rate limit and a queue (simulated time).
 * Swift should fill the link while holding its queueing delay near the target: the windows settle and
 * the queue neither grows without bound nor overflows. Figures are logged; only stable behaviour is
 * asserted (no speed: everything is in simulated time).
 */
class SwiftBottleneckSimulationTest
{
    private static final int SUBSCRIBERS = 4;
    private static final int PAYLOAD = 1000;
    private static final long ONE_WAY_NS = 10_000;
    private static final long TICK_NS = 1_000;

    /**
     * A 1 GB/s link (1 us per datagram, windows of tens), 100 MB/s (windows of a few datagrams) and 4 MB/s
     * (256 us per datagram: the windows swing around one datagram, pacing below it). The target must exceed
     * the unloaded RTT, which
     * includes a datagram's own serialisation time. Flow scaling (extra target for small windows) is what
     * lets a path squeezed to a tiny window grow back, so the paths share the link.
     */
    @ParameterizedTest(name = "{0} bytes/s, target {1} ns")
    @CsvSource({"1000000000, 60000, 40000000", "100000000, 100000, 100000000", "4000000, 800000, 1000000000"})
    void windowSettlesAndQueueingDelayStaysNearTarget(
        final long bytesPerSecond, final long targetNs, final long durationNs)
    {
        final DatagramSettings settings = new DatagramSettings()
            .window(1024)
            .ringLength(4096)
            .maxPayload(PAYLOAD)
            .ackEvery(8)
            .ackIntervalNs(20_000)
            .nakDelayNs(15_000)
            .nakRetryNs(100_000)
            .rtoInitialNs(1_000_000)
            .rtoMinNs(200_000)
            .rtoMaxNs(50_000_000)
            .swift(new SwiftSettings().targetDelayNs(targetNs).flowScalingRangeNs(targetNs).maxWindow(256).initialWindow(8).minWindow(0.01))
            .validate();
        final LossyDatagramNetwork network = new LossyDatagramNetwork(11, settings.maxDatagramLength(), 8192);
        network.oneWayDelayNs = ONE_WAY_NS;
        network.egressBytesPerSecond = bytesPerSecond;
        network.egressQueueLimitNs = 10_000_000;
        final LossyDatagramNetwork.Endpoint publisherEndpoint = network.newEndpoint();
        final DatagramPublisher publisher = new DatagramPublisher(settings, publisherEndpoint);
        final DatagramSubscriber[] subscribers = new DatagramSubscriber[SUBSCRIBERS];
        final long[] delivered = new long[SUBSCRIBERS];
        for (int i = 0; i < SUBSCRIBERS; i++)
        {
            final int index = i;
            final LossyDatagramNetwork.Endpoint endpoint = network.newEndpoint();
            subscribers[i] = new DatagramSubscriber(settings, endpoint, (session, buffer, offset, length) -> delivered[index]++);
            subscribers[i].addPublisher(publisherEndpoint.index, i, 0);
            publisher.addSubscriber(endpoint.index, i, 0);
        }

        final UnsafeBuffer message = new UnsafeBuffer(new byte[PAYLOAD]);
        final long halfNs = durationNs / 2;
        final double[] minWindow = new double[SUBSCRIBERS];
        final double[] maxWindow = new double[SUBSCRIBERS];
        long deliveredAtHalf = 0;
        long dropsAtHalf = 0;
        network.nowNs = 1_000_000;
        final long endNs = network.nowNs + durationNs;
        final long measureFromNs = network.nowNs + halfNs;
        boolean measuring = false;
        while (network.nowNs < endNs)
        {
            while (publisher.offer(message, 0, PAYLOAD) >= 0)
            {
                // keep the ring full: the link, not the application, is the limit
            }
            publisher.doWork(network.nowNs);
            for (final DatagramSubscriber subscriber : subscribers)
            {
                subscriber.doWork(network.nowNs);
            }
            if (!measuring && network.nowNs >= measureFromNs)
            {
                measuring = true;
                publisherEndpoint.resetQueueStatistics();
                deliveredAtHalf = sum(delivered);
                dropsAtHalf = network.bottleneckDrops;
                for (int i = 0; i < SUBSCRIBERS; i++)
                {
                    minWindow[i] = Double.MAX_VALUE;
                }
            }
            if (measuring)
            {
                for (int i = 0; i < SUBSCRIBERS; i++)
                {
                    final double window = publisher.subscriber(i).window();
                    minWindow[i] = Math.min(minWindow[i], window);
                    maxWindow[i] = Math.max(maxWindow[i], window);
                }
            }
            network.nowNs += TICK_NS;
        }

        final double linkDatagramsPerSecondHalf =
            (double)bytesPerSecond / settings.maxDatagramLength() * halfNs / 1e9;
        final double utilisation = (sum(delivered) - deliveredAtHalf) / linkDatagramsPerSecondHalf;
        final double averageQueueNs = publisherEndpoint.averageQueueDelayNs();
        final StringBuilder windows = new StringBuilder();
        for (int i = 0; i < SUBSCRIBERS; i++)
        {
            final ReliableSender sender = publisher.subscriber(i);
            windows.append(String.format(" path %d cwnd %.2f..%.2f srtt %,d ns;", i, minWindow[i], maxWindow[i],
                sender.srttNs()));
        }
        System.out.printf(
            "swift bottleneck %,d B/s, target %,d ns, base RTT %,d ns: second half queue delay mean %,.0f ns max %,d ns, " +
            "link utilisation %.2f, bottleneck drops %d (all run %d), retransmits %d;%s%n",
            bytesPerSecond, targetNs, 2 * ONE_WAY_NS, averageQueueNs, publisherEndpoint.maxQueueDelayNs, utilisation,
            network.bottleneckDrops - dropsAtHalf, network.bottleneckDrops, retransmits(publisher), windows);

        assertEquals(0, network.bottleneckDrops - dropsAtHalf, "the queue overflowed after settling");
        // The delay measured is the RTT: base + serialisation + queue + ACK hold; flow scaling lets small windows
        // aim higher. Queueing stays within that, not unbounded.
        final long ceilingNs = targetNs + settings.swift().flowScalingRangeNs();
        assertTrue(averageQueueNs < ceilingNs, "mean queueing delay " + averageQueueNs);
        assertTrue(publisherEndpoint.maxQueueDelayNs < 4 * ceilingNs, "max queueing delay " +
            publisherEndpoint.maxQueueDelayNs);
        assertTrue(utilisation > 0.7, "the link is kept busy: " + utilisation);
        for (int i = 0; i < SUBSCRIBERS; i++)
        {
            assertEquals(sum(delivered) / (double)SUBSCRIBERS, delivered[i], sum(delivered) * 0.1,
                "paths share the link fairly");
            assertTrue(maxWindow[i] < settings.swift().maxWindow(), "the window is set by delay, not by its cap");
            assertTrue(minWindow[i] > settings.swift().minWindow(), "and not collapsed to its floor");
        }
    }

    private static long sum(final long[] values)
    {
        long sum = 0;
        for (final long value : values)
        {
            sum += value;
        }
        return sum;
    }

    private static long retransmits(final DatagramPublisher publisher)
    {
        long retransmits = 0;
        for (int i = 0; i < publisher.subscriberCount(); i++)
        {
            retransmits += publisher.subscriber(i).retransmits();
        }
        return retransmits;
    }
}
