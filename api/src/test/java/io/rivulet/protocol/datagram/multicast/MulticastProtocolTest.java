package io.rivulet.protocol.datagram.multicast;

import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The multicast protocol's rules, stepped by hand over a simulated network: one send per byte whatever the audience,
 * NAK suppression, unicast and group repairs, late join, leaving, dying and stalling receivers, the flow control
 * policies, and the log wrapping under a repair.
 */
class MulticastProtocolTest
{
    private static MulticastHarness harness(final LossyDatagramNetwork network, final MulticastSettings settings)
    {
        return new MulticastHarness(network, settings, 1 << 20);
    }

    private static LossyDatagramNetwork network(final int endpoints)
    {
        // The inbox of each endpoint: enough for a window of datagrams, kept small so 64 receivers fit in memory.
        return new LossyDatagramNetwork(11, 1500, endpoints > 16 ? 1024 : 4096);
    }

    @ParameterizedTest(name = "{0} receivers")
    @ValueSource(ints = {1, 8, 64})
    void shouldSendEveryByteToTheGroupOnceWhateverTheNumberOfReceivers(final int receivers)
    {
        final MulticastHarness harness = harness(network(receivers), new MulticastSettings());
        for (int i = 0; i < receivers; i++)
        {
            harness.addReceiver();
        }
        harness.publishAndDrain(20_000, 2_000_000);

        for (final MulticastHarness.Node node : harness.nodes)
        {
            assertThat(node.delivered).isEqualTo(20_000);
        }
        // One stream of bytes to the group: as many bytes as the log holds, each sent once, and no repairs.
        assertThat(harness.sender.bytesSent()).isEqualTo(harness.log.available());
        assertThat(harness.sender.repairDatagrams()).isZero();
        // At least as many bytes per datagram as a quarter of the payload on average: runs, not a send per record.
        assertThat(harness.sender.datagramsSent()).isLessThan(4 * harness.log.available() / harness.sender.maxPayload());
    }

    @Test
    void shouldNakALossEveryReceiverSawAboutOnce()
    {
        // Loss before the fabric copies (the group drop): all eight receivers miss the same datagram.
        final LossyDatagramNetwork network = network(9).groupDrop(0.05);
        final MulticastSettings settings = new MulticastSettings().nakBackoffNs(TimeUnit.MILLISECONDS.toNanos(1));
        final MulticastHarness harness = harness(network, settings);
        for (int i = 0; i < 8; i++)
        {
            harness.addReceiver();
        }
        harness.publishAndDrain(50_000, 5_000_000);

        final long losses = network.groupDrops;
        final MulticastSender sender = harness.sender;
        System.out.printf("group drops %,d: NAKs received %,d, repair datagrams %,d (%,d ranges to the group, %,d to one " +
            "receiver), NAK timers suppressed %,d%n", losses, sender.naksReceived(), sender.repairDatagrams(),
            sender.repairsToGroup(), sender.repairsToReceiver(), harness.nodes.stream()
            .mapToLong(node -> node.image.naksSuppressed()).sum());
        assertThat(losses).isGreaterThan(100);
        for (final MulticastHarness.Node node : harness.nodes)
        {
            assertThat(node.delivered).isEqualTo(50_000);
        }
        // Eight receivers lost each of them; with suppression far fewer than eight NAKs reach the publisher per loss.
        assertThat(sender.naksReceived()).isLessThan(2 * losses);
        assertThat(sender.repairsToGroup()).isGreaterThan(sender.repairsToReceiver());
    }

    @Test
    void shouldRepairALossOnlyOneReceiverSawToThatReceiverAlone()
    {
        // No loss on the network; one receiver's copies are lost by its own inbox rule: a lossy last hop.
        final LossyDatagramNetwork network = network(5);
        final MulticastHarness harness = harness(network, new MulticastSettings());
        for (int i = 0; i < 4; i++)
        {
            harness.addReceiver();
        }
        final MulticastHarness.Node lossy = harness.nodes.get(0);
        final DroppingEndpoint.Rule rule = DroppingEndpoint.everyNth(harness, lossy, 10);
        harness.publishAndDrain(30_000, 3_000_000);

        assertThat(rule.dropped()).isGreaterThan(100);
        for (final MulticastHarness.Node node : harness.nodes)
        {
            assertThat(node.delivered).isEqualTo(30_000);
        }
        // The others had reported those bytes received, so each repair went to the NAKer alone.
        assertThat(harness.sender.repairsToReceiver()).isGreaterThan(harness.sender.repairsToGroup());
        for (int i = 1; i < harness.nodes.size(); i++)
        {
            assertThat(harness.nodes.get(i).image.repairsReceived()).isLessThan(lossy.image.repairsReceived());
        }
        // Loss is not congestion: the window was never cut, so one lossy receiver sets no one's pace but its own.
        assertThat(harness.sender.congestionDecreases()).isZero();
    }

    @Test
    void shouldStartALateReceiverWhereItJoined()
    {
        final MulticastHarness harness = harness(network(3).faults(0.02, 0, 0.02), new MulticastSettings());
        harness.addReceiver();
        harness.publishAndDrain(10_000, 2_000_000);
        final long joinedAt = harness.log.nextSequence();
        final MulticastHarness.Node late = harness.addReceiver();
        harness.publishAndDrain(10_000, 2_000_000);

        assertThat(harness.nodes.get(0).delivered).isEqualTo(20_000);
        assertThat(late.startSequence).isEqualTo(joinedAt);
        assertThat(late.delivered).isEqualTo(10_000); // from where it joined, once, in order (checked as delivered)
    }

    @Test
    void shouldForgetAReceiverThatLeftAndGoOnForTheOthers()
    {
        final MulticastHarness harness = harness(network(4).faults(0.02, 0, 0), new MulticastSettings());
        harness.addReceiver();
        harness.addReceiver();
        final MulticastHarness.Node leaving = harness.addReceiver();
        harness.publishAndDrain(5_000, 1_000_000);
        harness.removeReceiver(leaving);
        harness.publishAndDrain(5_000, 1_000_000);

        assertThat(harness.sender.receiverCount()).isEqualTo(2);
        assertThat(leaving.state.state()).isEqualTo(MulticastReceiverState.REMOVED);
        for (final MulticastHarness.Node node : harness.nodes)
        {
            assertThat(node.delivered).isEqualTo(10_000);
        }
        assertThat(leaving.plane.imageCount()).isZero();
        assertThat(leaving.plane.groupCount()).isZero(); // its last image gone, the node left the group
    }

    @Test
    void shouldStopWaitingForADeadReceiverAfterTheTimeout()
    {
        final MulticastSettings settings = new MulticastSettings().timeoutNs(TimeUnit.MILLISECONDS.toNanos(20));
        final MulticastHarness harness = harness(network(3), settings);
        harness.addReceiver();
        final MulticastHarness.Node dead = harness.addReceiver();
        harness.publishAndDrain(2_000, 1_000_000);
        dead.die();
        dead.holdsLog = false; // its topic cursor would time it out and release the log, as the sender does here
        harness.publishAndDrain(50_000, 2_000_000); // far more than a window: the live one must not wait

        assertThat(dead.state.state()).isEqualTo(MulticastReceiverState.TIMED_OUT);
        assertThat(harness.nodes.get(0).delivered).isEqualTo(52_000);
    }

    @Test
    void shouldHoldTheStreamAtAStalledReceiversWindowUnderMinFlowControl()
    {
        final MulticastHarness harness = harness(network(3), new MulticastSettings());
        final MulticastHarness.Node fast = harness.addReceiver();
        final MulticastHarness.Node stalled = harness.addReceiver();
        harness.publishAndDrain(1_000, 1_000_000);
        stalled.stalled = true;
        for (int i = 0; i < 20_000; i++)
        {
            harness.write(64);
            harness.step();
        }

        final long window = Math.min(harness.settings.receiverWindow(), harness.log.capacity() / 2);
        assertThat(harness.sender.position() - stalled.state.consumed()).isLessThanOrEqualTo(window);
        assertThat(harness.sender.position()).isGreaterThan(stalled.state.consumed()); // it did send up to the window
        assertThat(fast.image.consumed()).isLessThanOrEqualTo(stalled.state.consumed() + window);
        stalled.stalled = false;
        harness.publishAndDrain(1_000, 3_000_000);
        assertThat(stalled.delivered).isEqualTo(fast.delivered);
    }

    @Test
    void shouldFollowTheFastestReceiverUnderMaxFlowControl()
    {
        final MulticastHarness harness = harness(network(3), new MulticastSettings().flowControl("max"));
        final MulticastHarness.Node fast = harness.addReceiver();
        final MulticastHarness.Node stalled = harness.addReceiver();
        stalled.holdsLog = false; // as under DROP_SLOW, where its cursor would cut it off rather than hold the log
        harness.publishAndDrain(500, 1_000_000);
        stalled.stalled = true;
        harness.publishAndDrain(20_000, 2_000_000);

        final long window = Math.min(harness.settings.receiverWindow(), harness.log.capacity() / 2);
        assertThat(fast.delivered).isEqualTo(20_500);
        assertThat(harness.sender.position() - stalled.state.consumed()).isGreaterThan(window);
    }

    @Test
    void shouldSendNothingUntilTheRequiredTaggedGroupReports()
    {
        final MulticastHarness harness = harness(network(4), new MulticastSettings().flowControl("tagged:7/2"));
        harness.addReceiver(0);
        final MulticastHarness.Node tagged = harness.addReceiver(7);
        harness.write(100);
        harness.run(5_000);
        assertThat(harness.sender.datagramsSent()).isZero(); // one tagged receiver of the two required

        harness.addReceiver(7);
        harness.publishAndDrain(1_000, 1_000_000);
        assertThat(tagged.delivered).isEqualTo(1_100);
        assertThat(harness.sender.flowControlMembers()).isEqualTo(2);
    }

    @Test
    void shouldReportBytesTheLogNoLongerHoldsAsAnExplicitLoss()
    {
        // A receiver that does not hold the log (MAX flow control without a slow-consumer policy) and whose path is
        // cut for a while: when it asks again, its bytes have been overwritten.
        final MulticastHarness harness = harness(network(3), new MulticastSettings().flowControl("max"));
        final MulticastHarness.Node steady = harness.addReceiver();
        final MulticastHarness.Node cut = harness.addReceiver();
        cut.holdsLog = false;
        harness.publishAndDrain(1_000, 1_000_000);
        final DroppingEndpoint.Rule rule = DroppingEndpoint.all(harness, cut);
        harness.publishAndDrain(60_000, 5_000_000); // several laps of the 1 MiB log
        rule.stop();
        harness.publishAndDrain(1_000, 5_000_000);
        harness.run(50_000);
        // Live records after the loss, so that the gap shows at the consumer: the steady receiver, the only one
        // holding the log, may have taken the 1,000 above before the cut one asked, and then they are lost to it too.
        harness.publishAndDrain(100, 1_000_000);

        assertThat(harness.sender.lostSent()).as(harness.describe()).isPositive();
        assertThat(cut.losses).isPositive();
        assertThat(cut.lostSequences).isPositive(); // the gap came as a jump in sequence after onLoss, never silently
        assertThat(cut.image.lostBytes()).isPositive();
        assertThat(cut.expected).isEqualTo(harness.log.nextSequence()); // and it caught up with the live stream
        assertThat(steady.delivered).isEqualTo(62_100);
    }
}
