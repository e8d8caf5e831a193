package io.rivulet.protocol.datagram.multicast;

import io.rivulet.counters.CounterTypes;
import io.rivulet.counters.MulticastReceiveCounters;
import io.rivulet.counters.MulticastSendCounters;
import io.rivulet.counters.NodeCounters;
import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastSettings;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The planes' counters: the publishing plane's totals are its streams' statistics, the receiving plane's its images',
 * copied about every 100 ms; they never go back when an image closes, and they are freed with their plane.
 */
class MulticastCountersTest
{
    private static final long SAMPLE_NS = TimeUnit.MILLISECONDS.toNanos(100);

    @Test
    void shouldCountWhatThePlanesSentAndTook()
    {
        final LossyDatagramNetwork network = new LossyDatagramNetwork(5, 1500, 4096).faults(0.05, 0.0, 0.0);
        final MulticastHarness harness = new MulticastHarness(network, new MulticastSettings(), 1 << 20);
        final NodeCounters publisherNode = new NodeCounters();
        final MulticastSendCounters sendCounters =
            MulticastSendCounters.allocate(publisherNode.factory(), harness.publisherEndpoint.localAddress());
        harness.senders.counters(sendCounters);
        final MulticastHarness.Node staying = harness.addReceiver();
        final MulticastHarness.Node leaving = harness.addReceiver();
        final NodeCounters stayingNode = new NodeCounters();
        final MulticastReceiveCounters stayingCounters =
            MulticastReceiveCounters.allocate(stayingNode.factory(), staying.plane.localAddress());
        staying.plane.counters(stayingCounters);
        final NodeCounters leavingNode = new NodeCounters();
        final MulticastReceiveCounters leavingCounters =
            MulticastReceiveCounters.allocate(leavingNode.factory(), leaving.plane.localAddress());
        leaving.plane.counters(leavingCounters);

        harness.publishAndDrain(20_000, 2_000_000);
        settle(harness);

        final MulticastSender sender = harness.sender;
        assertThat(sender.repairDatagrams()).isPositive();
        assertThat(sendCounters.datagramsSent.get()).isEqualTo(sender.datagramsSent());
        assertThat(sendCounters.bytesSent.get()).isEqualTo(sender.bytesSent());
        assertThat(sendCounters.naksReceived.get()).isEqualTo(sender.naksReceived()).isPositive();
        assertThat(sendCounters.repairDatagrams.get()).isEqualTo(sender.repairDatagrams());
        assertThat(sendCounters.repairsToGroup.get() + sendCounters.repairsToReceiver.get())
            .isEqualTo(sender.repairsToGroup() + sender.repairsToReceiver());
        assertThat(sendCounters.streams.get()).isEqualTo(1);
        assertThat(sendCounters.receivers.get()).isEqualTo(2);
        assertThat(sendCounters.congestionWindow.get()).isPositive();
        assertThat(stayingCounters.datagramsReceived.get()).isEqualTo(staying.image.datagrams()).isPositive();
        assertThat(stayingCounters.bytesReceived.get()).isEqualTo(staying.image.bytes());
        assertThat(stayingCounters.naksSent.get()).isEqualTo(staying.image.naksSent());
        assertThat(stayingCounters.repairsReceived.get()).isEqualTo(staying.image.repairsReceived());
        assertThat(stayingCounters.images.get()).isEqualTo(1);

        // An image that closes keeps its share of the totals; only the level drops.
        final long leftWith = leaving.image.datagrams();
        harness.removeReceiver(leaving);
        leaving.plane.doWork(harness.nowNs + SAMPLE_NS);
        assertThat(leavingCounters.datagramsReceived.get()).isEqualTo(leftWith);
        assertThat(leavingCounters.images.get()).isZero();

        // The counters are the node file's, for tools, and go with their plane.
        assertThat(typeOf(publisherNode.reader(), sendCounters.datagramsSent.id()))
            .isEqualTo(CounterTypes.MULTICAST_DATAGRAMS_SENT);
        assertThat(CounterTypes.tagKey(CounterTypes.MULTICAST_NAKS_SENT)).isEqualTo("endpoint");
        harness.senders.close();
        assertThat(publisherNode.reader().getCounterState(sendCounters.datagramsSent.id()))
            .isNotEqualTo(CountersReader.RECORD_ALLOCATED);
        staying.plane.close();
        assertThat(stayingNode.reader().getCounterState(stayingCounters.naksSent.id()))
            .isNotEqualTo(CountersReader.RECORD_ALLOCATED);
    }

    /** Steps past a sample, so the counters hold what the agents did. */
    private static void settle(final MulticastHarness harness)
    {
        final long until = harness.nowNs + 2 * SAMPLE_NS;
        final long step = harness.stepNs;
        harness.stepNs = SAMPLE_NS / 4;
        while (harness.nowNs < until)
        {
            harness.step();
        }
        harness.stepNs = step;
        // A last sample, with nothing done after it by the sender's agent.
        harness.nowNs += SAMPLE_NS;
        for (final MulticastHarness.Node node : harness.nodes)
        {
            node.plane.doWork(harness.nowNs);
        }
        harness.senders.poll(harness.nowNs);
    }

    private static int typeOf(final CountersReader reader, final int counterId)
    {
        return reader.getCounterTypeId(counterId);
    }
}
