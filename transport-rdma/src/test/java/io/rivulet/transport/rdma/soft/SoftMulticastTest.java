package io.rivulet.transport.rdma.soft;

import io.rivulet.transport.rdma.soft.SoftTestSupport.Device;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.ReceiveWorkRequest;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.VerbsException;
import io.rivulet.transport.rdma.verbs.WcStatus;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import static io.rivulet.transport.rdma.soft.SoftTestSupport.assertNoCompletion;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.await;
import static io.rivulet.transport.rdma.soft.SoftTestSupport.pollOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Multicast in the soft provider at the verbs level: a membership answered on the owner's next
 * {@code pollConnectionEvents}, with what a RoCE v2 join gives (IPv4-mapped MGID, MLID 0, RDMA_UDP_QKEY, QP number
 * 0xffffff); attach and detach refused where hardware refuses them; a group datagram delivered to an attached queue
 * pair of the right Q_Key only; closing a device leaves its groups.
 */
class SoftMulticastTest
{
    private static final int GRH = 40;

    private final SoftFabric fabric = new SoftFabric();
    private final SoftVerbsProvider provider = new SoftVerbsProvider(fabric);

    private static MulticastMembership joined(final Device device, final String group) throws IOException
    {
        final MulticastMembership membership = device.context.joinMulticast(InetAddress.getByName(group));
        assertThat(membership.state()).as("answered by the next poll, never in the call")
            .isEqualTo(MulticastMembership.State.JOINING);
        assertThat(device.context.pollConnectionEvents()).isEqualTo(1);
        assertThat(membership.state()).isEqualTo(MulticastMembership.State.JOINED);
        return membership;
    }

    @Test
    void shouldAnswerAJoinOnTheNextPollWithWhatARoceV2JoinGives() throws IOException
    {
        try (Device device = new Device(provider, 16))
        {
            final MulticastMembership membership = device.context.joinMulticast(InetAddress.getByName("239.1.2.3"));
            assertThatThrownBy(membership::gid).isInstanceOf(IllegalStateException.class).hasMessageContaining("JOINING");
            assertThat(device.context.pollConnectionEvents()).isEqualTo(1);
            assertThat(device.context.pollConnectionEvents()).isZero();
            assertThat(membership.state()).isEqualTo(MulticastMembership.State.JOINED);
            assertThat(membership.failure()).isNull();
            assertThat(membership.gid().format()).isEqualTo("0000:0000:0000:0000:0000:ffff:ef01:0203/0");
            assertThat(membership.qkey()).isEqualTo(MulticastMembership.RDMA_UDP_QKEY);
            assertThat(membership.destination().qpNumber()).isEqualTo(0xFFFFFF);
            assertThat(membership.destination().qkey()).isEqualTo(MulticastMembership.RDMA_UDP_QKEY);
            assertThat(device.context.multicastMemberships()).isEqualTo(1);
            membership.close();
            membership.close();
            assertThat(membership.state()).isEqualTo(MulticastMembership.State.LEFT);
            assertThat(fabric.multicastGroupCount()).isZero();
        }
    }

    @Test
    void shouldRefuseAttachmentsHardwareWouldRefuse() throws IOException
    {
        try (Device a = new Device(provider, 16); Device b = new Device(provider, 16))
        {
            final QueuePair queuePair = a.context.createUdQueuePair(a.udConfig(8, MulticastMembership.RDMA_UDP_QKEY));
            final MulticastMembership pending = a.context.joinMulticast(InetAddress.getByName("239.1.2.4"));
            assertThatThrownBy(() -> queuePair.attachMulticast(pending)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("not JOINED");
            assertThatThrownBy(() -> a.context.createAddressHandle(a.pd, pending)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("not JOINED");
            a.context.pollConnectionEvents();
            final MulticastMembership ofB = joined(b, "239.1.2.4");
            assertThatThrownBy(() -> queuePair.attachMulticast(ofB)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("not a multicast membership of this device");
            assertThatThrownBy(() -> queuePair.detachMulticast(pending)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("not attached");
            queuePair.attachMulticast(pending);
            assertThatThrownBy(() -> queuePair.attachMulticast(pending)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("already");
            queuePair.detachMulticast(pending);
            assertThatThrownBy(() -> queuePair.detachMulticast(pending)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("not attached");
        }
    }

    @Test
    void shouldDeliverAGroupDatagramToAttachedQueuePairsOfTheGroupsQkeyOnly() throws IOException
    {
        try (Device a = new Device(provider, 16); Device b = new Device(provider, 16))
        {
            final QueuePair sender = a.context.createUdQueuePair(a.udConfig(8, MulticastMembership.RDMA_UDP_QKEY));
            final QueuePair right = b.context.createUdQueuePair(b.udConfig(8, MulticastMembership.RDMA_UDP_QKEY));
            final QueuePair wrongQkey = b.context.createUdQueuePair(b.udConfig(8, 0x5555));
            final QueuePair notAttached = b.context.createUdQueuePair(b.udConfig(8, MulticastMembership.RDMA_UDP_QKEY));
            final MulticastMembership atA = joined(a, "239.9.9.9");
            final MulticastMembership atB = joined(b, "239.9.9.9");
            right.attachMulticast(atB);
            wrongQkey.attachMulticast(atB);
            final MemoryRegion source = a.register(4096, Access.LOCAL_WRITE);
            final MemoryRegion sink = b.register(3 * 8192, Access.LOCAL_WRITE);
            final ReceiveWorkRequest receive = new ReceiveWorkRequest();
            right.postReceive(receive.set(1, sink.address(), 4096 + GRH, sink.lkey()));
            wrongQkey.postReceive(receive.set(2, sink.address() + 8192, 4096 + GRH, sink.lkey()));
            notAttached.postReceive(receive.set(3, sink.address() + 16384, 4096 + GRH, sink.lkey()));

            final AddressHandle group = a.context.createAddressHandle(a.pd, atA);
            source.buffer().putLong(0, 0x0123_4567_89ABL);
            sender.postSend(new SendWorkRequest().wrId(9).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(source.address(), 64, source.lkey())
                .ud(group, MulticastMembership.QP_NUMBER, atA.qkey()));
            assertThat(pollOne(a.sendCq).status()).isEqualTo(WcStatus.SUCCESS);
            final WorkCompletion received = pollOne(b.receiveCq);
            assertThat(received.wrId()).isEqualTo(1);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.sourceQpNumber()).isEqualTo(sender.qpNumber());
            assertThat(received.byteLength()).isEqualTo(GRH + 64);
            assertThat(sink.buffer().getLong(GRH)).isEqualTo(0x0123_4567_89ABL);
            await(() -> b.context.datagramsDroppedBadQkey() == 1, "the copy for the queue pair of another Q_Key dropped");
            assertNoCompletion(b.receiveCq, TimeUnit.MILLISECONDS.toNanos(20));

            // Closing the device detaches its queue pairs and leaves its groups.
            b.close();
            assertThat(fabric.multicastGroupCount()).as("a's membership still holds the group").isEqualTo(1);
            atA.close();
            assertThat(fabric.multicastGroupCount()).isZero();
        }
    }

    @Test
    void shouldFailAJoinAcrossProcessesAndBeyondTheFabricsGroupLimit() throws IOException
    {
        fabric.maxMulticastGroups(1);
        try (Device device = new Device(provider, 16); Device sockets = new Device(new SoftVerbsProvider(), 16))
        {
            joined(device, "239.1.1.1");
            final MulticastMembership second = device.context.joinMulticast(InetAddress.getByName("239.1.1.2"));
            device.context.pollConnectionEvents();
            assertThat(second.state()).isEqualTo(MulticastMembership.State.FAILED);
            assertThat(second.failure()).contains("at most 1 multicast group");
            final MulticastMembership overUdp = sockets.context.joinMulticast(InetAddress.getByName("239.1.1.1"));
            sockets.context.pollConnectionEvents();
            assertThat(overUdp.state()).isEqualTo(MulticastMembership.State.FAILED);
            assertThat(overUdp.failure()).contains("soft multicast works within one process");
            assertThatThrownBy(() -> device.context.joinMulticast(InetAddress.getByName("127.0.0.1")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("not a multicast group address");
        }
        assertThat(fabric.multicastGroupCount()).as("closing the device left its group").isZero();
    }
}
