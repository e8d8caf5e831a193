package io.rivulet.protocol.datagram.multicast;

import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The multicast protocol under seeded loss of data, NAKs and status messages (the same rate for every copy, and
 * half of it again for the whole group at once), 2 % duplication and 5 % reordering: every receiver gets every
 * record once, in order, with its bytes, and the publisher sent each new byte to the group once.
 */
class ReliableMulticastFaultTest
{
    private static final long MESSAGES = Long.getLong("rivulet.test.multicastMessages", 1_000_000);

    @ParameterizedTest(name = "{0} loss")
    @ValueSource(doubles = {0, 0.01, 0.05, 0.20})
    void shouldDeliverEveryRecordOnceInOrderToEightReceivers(final double loss)
    {
        final LossyDatagramNetwork network = new LossyDatagramNetwork(7, 1500, 8192)
            .faults(loss, 0.02, 0.05).groupDrop(loss / 2);
        final MulticastHarness harness = new MulticastHarness(network, new MulticastSettings(), 1 << 20);
        for (int i = 0; i < 8; i++)
        {
            harness.addReceiver();
        }
        final long steps = harness.publishAndDrain(MESSAGES, 50_000_000);

        for (final MulticastHarness.Node node : harness.nodes)
        {
            assertThat(node.corrupt).isNull();
            assertThat(node.losses).as("losses reported to " + node.image).isZero();
            assertThat(node.delivered).as(node.image.toString()).isEqualTo(MESSAGES);
        }
        final MulticastSender sender = harness.sender;
        final long drops = network.dataDrops + network.groupDrops;
        System.out.printf("loss %.2f: %,d records in %,d steps (%.1f ms simulated), %,d datagrams to the group, " +
            "%,d data copies lost, %,d repair datagrams (%.2f per loss; %,d to the group, %,d to one receiver), " +
            "%,d NAKs received, %,d lingered, %,d NAK timers suppressed, window %.1f%n",
            loss, MESSAGES, steps, steps * harness.stepNs / 1e6, sender.datagramsSent() - sender.repairDatagrams(), drops,
            sender.repairDatagrams(), drops == 0 ? 0.0 : (double)sender.repairDatagrams() / drops,
            sender.repairsToGroup(), sender.repairsToReceiver(), sender.naksReceived(), sender.naksLingered(),
            harness.nodes.stream().mapToLong(node -> node.image.naksSuppressed()).sum(), sender.congestionWindow());
        if (loss == 0)
        {
            assertThat(sender.repairDatagrams()).isZero();
        }
        else
        {
            // Each lost copy costs about one repair datagram, however many receivers there are (bound: 2 per loss).
            assertThat(sender.repairDatagrams()).isLessThanOrEqualTo(2 * drops + 64);
        }
    }
}
