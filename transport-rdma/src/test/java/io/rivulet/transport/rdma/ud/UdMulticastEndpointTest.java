package io.rivulet.transport.rdma.ud;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.ForwardingVerbsContext;
import io.rivulet.transport.rdma.jni.Gid;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftFaults;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import io.rivulet.transport.rdma.verbs.MulticastMembership;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import io.rivulet.transport.rdma.verbs.VerbsException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The multicast endpoint on the soft provider, in process: joins answered on the next poll, one send reaching every
 * attached queue pair of every device but the sender's own, each receiver's own faults, failed joins as GROUP_FAILED
 * with their reason, leave and close. Real time, every wait bounded.
 */
class UdMulticastEndpointTest
{
    private static final String GROUP = "239.1.2.3";
    private static final long TIMEOUT_NS = TestTime.nanos(30, TimeUnit.SECONDS);

    private final SoftFabric fabric = new SoftFabric();
    private final SoftVerbsProvider provider = new SoftVerbsProvider(fabric);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
    }

    private SoftVerbsContext device() throws IOException
    {
        final SoftVerbsContext context = provider.open(InetAddress.getLoopbackAddress());
        resources.add(context);
        return context;
    }

    private UdMulticastEndpoint endpoint(final VerbsContext context) throws IOException
    {
        final UdMulticastEndpoint endpoint = new UdMulticastEndpoint(context, 256, 1024, 16, Runnable::run, false);
        resources.add(endpoint);
        return endpoint;
    }

    /** Counts what a poll delivered, by the peer handle it named, and remembers the first bytes of each. */
    private static final class Counting implements DatagramEndpoint.DatagramHandler
    {
        int datagrams;
        int fromExpected;
        int expectedPeer = DatagramEndpoint.UNKNOWN_PEER;
        final List<Integer> firstBytes = new ArrayList<>();

        @Override
        public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            datagrams++;
            if (peer == expectedPeer)
            {
                fromExpected++;
            }
            if (firstBytes.size() < 10_000)
            {
                firstBytes.add(buffer.getInt(offset));
            }
        }
    }

    private static void awaitPolling(final List<UdMulticastEndpoint> endpoints, final List<Counting> handlers,
        final BooleanSupplier condition, final String what)
    {
        Await.until(Duration.ofNanos(TIMEOUT_NS), () ->
        {
            int work = 0;
            for (int i = 0; i < endpoints.size(); i++)
            {
                work += endpoints.get(i).poll(handlers.get(i), 64);
            }
            return work;
        }, condition::getAsBoolean, () -> what);
    }

    private static void awaitJoined(final UdMulticastEndpoint endpoint, final int group)
    {
        final Counting ignored = new Counting();
        Await.until(Duration.ofNanos(TIMEOUT_NS), () -> endpoint.poll(ignored, 64),
            () -> endpoint.groupState(group) != MulticastEndpoint.GROUP_JOINING,
            () -> "the join of " + endpoint + " to be answered");
        assertThat(endpoint.groupState(group)).as(() -> "joined: " + endpoint.groupFailure(group))
            .isEqualTo(MulticastEndpoint.GROUP_JOINED);
    }

    /** Sends {@code count} datagrams numbered from {@code first} to the group, polling while the send queue is full. */
    private void sendNumbered(final UdMulticastEndpoint sender, final int group, final int first, final int count)
    {
        final Counting ownDelivery = new Counting();
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        for (int i = 0; i < count; i++)
        {
            message.putInt(0, first + i);
            while (!sender.send(group, message, 0, 64))
            {
                sender.poll(ownDelivery, 16);
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new AssertionError("the sender back-pressured for " + TIMEOUT_NS + " ns at datagram " + i);
                }
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void shouldAnswerAJoinOnTheNextPollAndDeliverOneSendToEveryAttachedQueuePairButTheSendersOwn() throws IOException
    {
        final SoftVerbsContext senderDevice = device();
        final UdMulticastEndpoint sender = endpoint(senderDevice);
        // Another queue pair of the sender's own device receives, as rxe delivers to another QP of the same device.
        final UdMulticastEndpoint sameDevice = endpoint(senderDevice);
        final List<UdMulticastEndpoint> receivers = new ArrayList<>(List.of(sameDevice, endpoint(device()),
            endpoint(device()), endpoint(device())));
        final int senderGroup = sender.joinGroup(GROUP, true);
        assertThat(sender.groupState(senderGroup)).as("answered on a poll, never in the call")
            .isEqualTo(MulticastEndpoint.GROUP_JOINING);
        assertThat(sender.send(senderGroup, message, 0, 8)).as("no sending before the join").isFalse();
        awaitJoined(sender, senderGroup);
        assertThat(sender.groupFailure(senderGroup)).isNull();
        final List<Counting> handlers = new ArrayList<>();
        for (final UdMulticastEndpoint receiver : receivers)
        {
            final int group = receiver.joinGroup(GROUP, true);
            awaitJoined(receiver, group);
            final Counting handler = new Counting();
            handler.expectedPeer = receiver.resolve(sender.localAddress()); // the sender, named as for unicast
            handlers.add(handler);
        }
        assertThat(fabric.multicastGroupCount()).isEqualTo(1);

        sendNumbered(sender, senderGroup, 0, 100);
        awaitPolling(receivers, handlers, () -> handlers.stream().allMatch(h -> h.datagrams >= 100),
            "every receiver to get 100 datagrams");
        final Counting senderHandler = new Counting();
        for (int i = 0; i < 20; i++) // bounded: anything late would arrive within these polls
        {
            sender.poll(senderHandler, 64);
            for (int r = 0; r < receivers.size(); r++)
            {
                receivers.get(r).poll(handlers.get(r), 64);
            }
        }
        for (final Counting handler : handlers)
        {
            assertThat(handler.datagrams).as("one copy each").isEqualTo(100);
            assertThat(handler.fromExpected).as("named by the sender's GID and QP number").isEqualTo(100);
            assertThat(handler.firstBytes).startsWith(0, 1, 2).endsWith(98, 99);
        }
        assertThat(senderHandler.datagrams).as("not back to the sending queue pair").isZero();
        assertThat(sender.ownDatagrams()).as("the soft device never loops a group send back to its sender").isZero();
    }

    @Test
    void shouldApplyEachReceivingDevicesOwnFaults() throws IOException
    {
        final UdMulticastEndpoint sender = endpoint(device());
        final SoftVerbsContext lossy = device().faults(SoftFaults.seeded(7).drop(0.5));
        final SoftVerbsContext doubling = device().faults(SoftFaults.seeded(11).duplicate(1.0));
        final SoftVerbsContext clean = device();
        final List<UdMulticastEndpoint> receivers = List.of(endpoint(lossy), endpoint(doubling), endpoint(clean));
        final List<Counting> handlers = List.of(new Counting(), new Counting(), new Counting());
        final int group = sender.joinGroup(GROUP, false); // a sender need not receive
        awaitJoined(sender, group);
        for (final UdMulticastEndpoint receiver : receivers)
        {
            awaitJoined(receiver, receiver.joinGroup(GROUP, true));
        }

        sendNumbered(sender, group, 0, 400);
        awaitPolling(receivers, handlers, () -> handlers.get(0).datagrams + lossy.faultDrops() >= 400 &&
            handlers.get(1).datagrams >= 800 && handlers.get(2).datagrams >= 400, "every copy to arrive or be dropped");

        assertThat(lossy.faultDrops()).as("dropped at the lossy receiver only").isBetween(100L, 300L);
        assertThat(handlers.get(0).datagrams + lossy.faultDrops()).isEqualTo(400);
        assertThat(handlers.get(1).datagrams).as("each copy duplicated at its receiver").isEqualTo(800);
        assertThat(doubling.faultDuplicates()).isEqualTo(400);
        assertThat(handlers.get(2).datagrams).as("the clean receiver loses nothing").isEqualTo(400);
        assertThat(clean.faultDrops() + clean.faultDuplicates()).isZero();
    }

    @Test
    void shouldRefuseAGroupThatIsNotAMulticastAddressLiteral() throws IOException
    {
        final SoftVerbsContext device = device();
        final UdMulticastEndpoint endpoint = endpoint(device);
        for (final String bad : new String[] {"10.0.0.1", "127.0.0.1", "239.1.2", "239.1.2.3.4", "239.1.2.256",
            "239.1.2.3:4567", "group.example", "", "fe80::1", "::ffff:239.1.2.3", "239.1.2.-3", "2391.2.3.4"})
        {
            assertThatThrownBy(() -> endpoint.joinGroup(bad, true)).as(bad)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a multicast group");
        }
        assertThatThrownBy(() -> endpoint.joinGroup(null, true)).isInstanceOf(IllegalArgumentException.class);
        assertThat(endpoint.groupCount()).isZero();
        assertThatThrownBy(() -> device.joinMulticast(InetAddress.getByName("10.1.2.3")))
            .isInstanceOf(VerbsException.class).hasMessageContaining("not a multicast group address");
        final int ipv6 = endpoint.joinGroup("ff0e::1:2", true);
        awaitJoined(endpoint, ipv6);
        assertThatThrownBy(() -> endpoint.groupState(ipv6 + 100)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldReportAFailedJoinAsGroupFailedWithItsReason() throws IOException
    {
        fabric.maxMulticastGroups(1);
        final UdMulticastEndpoint endpoint = endpoint(device());
        final int first = endpoint.joinGroup("239.1.1.1", true);
        final int second = endpoint.joinGroup("239.1.1.2", true);
        awaitJoined(endpoint, first);
        assertThat(endpoint.groupState(second)).isEqualTo(MulticastEndpoint.GROUP_FAILED);
        assertThat(endpoint.groupFailure(second)).contains("239.1.1.2").contains("at most 1 multicast group");
        assertThat(endpoint.send(second, message, 0, 8)).as("a failed group takes no datagram").isFalse();
        endpoint.leaveGroup(second);
        assertThatThrownBy(() -> endpoint.send(second, message, 0, 8)).isInstanceOf(IllegalArgumentException.class);

        // Across processes the soft device runs on UDP sockets: no groups there, and the join says so.
        final SoftVerbsContext sockets = new SoftVerbsProvider().open(InetAddress.getLoopbackAddress());
        resources.add(sockets);
        final UdMulticastEndpoint overSockets = endpoint(sockets);
        final int group = overSockets.joinGroup(GROUP, true);
        final Counting ignored = new Counting();
        Await.until(Duration.ofNanos(TIMEOUT_NS), () -> overSockets.poll(ignored, 16),
            () -> overSockets.groupState(group) != MulticastEndpoint.GROUP_JOINING, () -> "the join to be answered");
        assertThat(overSockets.groupState(group)).isEqualTo(MulticastEndpoint.GROUP_FAILED);
        assertThat(overSockets.groupFailure(group)).contains("soft multicast works within one process");
    }

    @Test
    void shouldFailAGroupWhoseQkeyIsNotTheQueuePairs() throws IOException
    {
        final SoftVerbsContext device = device();
        // A fabric whose groups carry another Q_Key than RDMA CM's UDP one: the device would drop every datagram.
        final VerbsContext otherQkey = new ForwardingVerbsContext(device)
        {
            @Override
            public MulticastMembership joinMulticast(final InetAddress group) throws IOException
            {
                final MulticastMembership real = delegate.joinMulticast(group);
                return new MulticastMembership()
                {
                    @Override
                    public InetAddress group()
                    {
                        return real.group();
                    }

                    @Override
                    public State state()
                    {
                        return real.state();
                    }

                    @Override
                    public String failure()
                    {
                        return real.failure();
                    }

                    @Override
                    public Gid gid()
                    {
                        return real.gid();
                    }

                    @Override
                    public int qkey()
                    {
                        return 0x1111;
                    }

                    @Override
                    public UdAddress destination()
                    {
                        return real.destination();
                    }

                    @Override
                    public void close()
                    {
                        real.close();
                    }
                };
            }

            @Override
            public void close()
            {
                // the device is closed by the test
            }
        };
        final UdMulticastEndpoint endpoint = endpoint(otherQkey);
        final int group = endpoint.joinGroup(GROUP, true);
        final Counting ignored = new Counting();
        Await.until(Duration.ofNanos(TIMEOUT_NS), () -> endpoint.poll(ignored, 16),
            () -> endpoint.groupState(group) != MulticastEndpoint.GROUP_JOINING, () -> "the join to be answered");
        assertThat(endpoint.groupState(group)).isEqualTo(MulticastEndpoint.GROUP_FAILED);
        assertThat(endpoint.groupFailure(group)).contains("Q_Key 0x1111").contains("0x1234567");
        assertThat(device.multicastMemberships()).as("the membership was left").isZero();
    }

    @Test
    void shouldStopDeliveringToAReceiverThatLeft() throws IOException
    {
        final UdMulticastEndpoint sender = endpoint(device());
        final UdMulticastEndpoint staying = endpoint(device());
        final UdMulticastEndpoint leaving = endpoint(device());
        final int group = sender.joinGroup(GROUP, false);
        awaitJoined(sender, group);
        awaitJoined(staying, staying.joinGroup(GROUP, true));
        final int left = leaving.joinGroup(GROUP, true);
        awaitJoined(leaving, left);
        final List<UdMulticastEndpoint> receivers = List.of(staying, leaving);
        final List<Counting> handlers = List.of(new Counting(), new Counting());
        sendNumbered(sender, group, 0, 10);
        awaitPolling(receivers, handlers, () -> handlers.get(0).datagrams == 10 && handlers.get(1).datagrams == 10,
            "both receivers to get the first 10");

        leaving.leaveGroup(left);
        leaving.leaveGroup(left); // unknown or left handles are ignored
        assertThatThrownBy(() -> leaving.groupState(left)).isInstanceOf(IllegalArgumentException.class);
        sendNumbered(sender, group, 10, 10);
        awaitPolling(receivers, handlers, () -> handlers.get(0).datagrams == 20, "the staying receiver to get 20");
        for (int i = 0; i < 20; i++)
        {
            leaving.poll(handlers.get(1), 64);
        }
        assertThat(handlers.get(1).datagrams).as("nothing after the leave").isEqualTo(10);

        sender.leaveGroup(group);
        assertThatThrownBy(() -> sender.send(group, message, 0, 8)).isInstanceOf(IllegalArgumentException.class);
        staying.close();
        assertThat(fabric.multicastGroupCount()).as("the group is gone with its last member").isZero();
    }

    @Test
    void shouldReleaseRegistrationsMembershipsAndGroupsOnClose() throws IOException
    {
        final SoftVerbsContext device = device();
        final UdMulticastEndpoint endpoint = endpoint(device);
        final int a = endpoint.joinGroup("239.1.1.1", true);
        final int b = endpoint.joinGroup("239.1.1.2", false);
        awaitJoined(endpoint, a);
        awaitJoined(endpoint, b);
        assertThat(device.registrations()).as("receive and send regions").isEqualTo(2);
        assertThat(device.multicastMemberships()).isEqualTo(2);
        assertThat(fabric.multicastGroupCount()).isEqualTo(2);

        endpoint.close();
        endpoint.close();
        assertThat(device.registrations()).isZero();
        assertThat(device.multicastMemberships()).isZero();
        assertThat(fabric.multicastGroupCount()).isZero();
        assertThatThrownBy(() -> endpoint.joinGroup(GROUP, true)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldNotAllocateOnWarmSendsToAGroupAndTheirPolls() throws IOException
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        final UdMulticastEndpoint sender = endpoint(device());
        final UdMulticastEndpoint receiver = endpoint(device());
        final int group = sender.joinGroup(GROUP, true);
        awaitJoined(sender, group);
        awaitJoined(receiver, receiver.joinGroup(GROUP, true));
        final int[] received = new int[1];
        final DatagramEndpoint.DatagramHandler counter = (peer, buffer, offset, length) -> received[0]++;
        final long deadlineNs = System.nanoTime() + TestTime.nanos(120, TimeUnit.SECONDS);
        final long[] allocatedPerRound = new long[3];
        for (int round = 0; round <= allocatedPerRound.length; round++) // warm up, then measure three rounds
        {
            final int datagrams = round == 0 ? 5_000 : 2_000;
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < datagrams; i++)
            {
                while (!sender.send(group, message, 0, 64))
                {
                    sender.poll(counter, 16);
                }
                final int target = received[0] + 1;
                while (received[0] < target)
                {
                    receiver.poll(counter, 16);
                    sender.poll(counter, 16);
                    if (System.nanoTime() - deadlineNs > 0)
                    {
                        throw new AssertionError("timed out at datagram " + i + " of round " + round);
                    }
                    Thread.onSpinWait();
                }
            }
            final long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            if (round > 0)
            {
                allocatedPerRound[round - 1] = allocated;
            }
        }
        // A cost per datagram shows in every round (16 bytes a send would be 32,000); a JIT recompilation that
        // materialises a scalar-replaced object now and then shows as a few dozen bytes in one round.
        assertThat(java.util.Arrays.stream(allocatedPerRound).min().orElseThrow())
            .as("bytes allocated by 2,000 sends to a group and the polls that took them, per round: %s",
                java.util.Arrays.toString(allocatedPerRound)).isZero();
        assertThat(java.util.Arrays.stream(allocatedPerRound).max().orElseThrow()).isLessThan(2_000);
        assertThat(received[0]).isEqualTo(11_000);
    }
}
