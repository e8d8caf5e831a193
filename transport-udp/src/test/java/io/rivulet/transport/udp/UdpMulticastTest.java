package io.rivulet.transport.udp;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.MulticastEndpoint;
import io.rivulet.tck.NetworkNamespace;
import io.rivulet.tck.ScaledTimeout;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.util.ArrayList;
import java.util.List;

import static io.rivulet.transport.udp.UdpEndpointTest.Received;
import static io.rivulet.transport.udp.UdpEndpointTest.pollUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * UDP multicast, run only inside network namespaces of their own ({@link NetworkNamespace}: loopback with multicast
 * and a 224.0.0.0/4 route, plus a veth pair {@code v0}/{@code v1} with IPv4 and IPv6 addresses), never on the host's
 * interfaces; skipped where namespaces cannot be made. {@link InNamespace}: every receiver gets every datagram named
 * as from the sender's unicast address, send-only joins, groups kept apart by port and by address, leave, loopback
 * off, IPv6, the default interface, wildcard binds, failed joins with their reasons, send errors.
 * {@link BackPressureInNamespace}: a send buffer held full by a slow queueing discipline makes sends return false.
 */
class UdpMulticastTest
{
    private static final List<String> VETH = List.of(
        // The peer is made first: v0 gets the lower index, so it is the first real link.
        "ip link add v1 type veth peer name v0",
        "ip addr add 10.9.9.1/24 dev v0", "ip addr add 10.9.9.2/24 dev v1",
        "ip -6 addr add fd00:9::1/64 dev v0 nodad", "ip -6 addr add fd00:9::2/64 dev v1 nodad",
        "ip link set v0 up", "ip link set v1 up",
        // A pair left down, for a join on an interface that is down.
        "ip link add v2 type veth peer name v3", "ip addr add 10.9.8.1/24 dev v2");

    @Test
    @ScaledTimeout(180)
    void shouldPassTheMulticastTestsInANamespace() throws Exception
    {
        final NetworkNamespace.Result result = NetworkNamespace.runTests(InNamespace.class, VETH,
            TestTime.seconds(150));
        assertThat(result.passed()).as(result.describe()).isTrue();
        assertThat(result.output()).doesNotContain("ABORTED", "SKIPPED");
    }

    @Test
    @ScaledTimeout(120)
    void shouldReportBackPressureInANamespace() throws Exception
    {
        // A token bucket of 1 kB/s on loopback keeps sent datagrams queued, charged to their socket's send buffer.
        final NetworkNamespace.Result result = NetworkNamespace.runTests(BackPressureInNamespace.class,
            List.of("tc qdisc add dev lo root tbf rate 8kbit burst 1600 limit 1000000"), TestTime.seconds(90));
        assertThat(result.passed()).as(result.describe()).isTrue();
        assertThat(result.output()).doesNotContain("ABORTED", "SKIPPED");
    }

    /** Endpoints made by a test, closed after it. */
    abstract static class Endpoints
    {
        final List<UdpEndpoint> endpoints = new ArrayList<>();
        final UnsafeBuffer message = new UnsafeBuffer(new byte[1472]);

        @BeforeEach
        void inside()
        {
            NetworkNamespace.assumeInside();
        }

        @AfterEach
        void closeAll()
        {
            endpoints.forEach(UdpEndpoint::close);
        }

        UdpEndpoint endpoint(final UdpSettings settings) throws IOException
        {
            final UdpEndpoint endpoint = new UdpEndpoint(settings.validate(), 1472);
            endpoints.add(endpoint);
            return endpoint;
        }

        UdpEndpoint onLoopback() throws IOException
        {
            return endpoint(new UdpSettings().bindAddress("127.0.0.1:0").multicastInterface("lo"));
        }

        int sendInt(final UdpEndpoint from, final int to, final int value, final int length)
        {
            message.putInt(0, value);
            assertThat(from.send(to, message, 0, length)).as("send " + value).isTrue();
            return value;
        }
    }

    /** The multicast tests proper. */
    static class InNamespace extends Endpoints
    {
        private static final String GROUP = "239.1.2.3:40456";

        @Test
        void shouldPutEveryReceivingSocketInTheWatchNowAndAsGroupsAreJoined() throws IOException
        {
            final UdpEndpoint receiver = onLoopback();
            final List<SelectableChannel> watched = new ArrayList<>();

            assertThat(receiver.wakeWhenReadable(watched::add)).isTrue();
            assertThat(watched).as("the unicast socket").hasSize(1);
            final int sendOnly = receiver.joinGroup("239.1.2.4:40456", false);
            assertThat(receiver.groupState(sendOnly)).isEqualTo(MulticastEndpoint.GROUP_JOINED);
            assertThat(watched).as("a group only sent to has no socket of its own").hasSize(1);
            final int group = receiver.joinGroup(GROUP, true);
            assertThat(receiver.groupState(group)).isEqualTo(MulticastEndpoint.GROUP_JOINED);

            assertThat(watched).as("and the group's socket").hasSize(2).doesNotHaveDuplicates();
            assertThat(watched).allMatch(SelectableChannel::isOpen);
            receiver.leaveGroup(group);
            assertThat(watched.get(1).isOpen()).as("left: its socket closed, which ends its watch").isFalse();
        }

        @Test
        void shouldDeliverEveryDatagramToEveryReceiverNamedAsTheSender() throws IOException
        {
            final UdpEndpoint sender = onLoopback();
            final int group = sender.joinGroup(GROUP, false);
            assertThat(sender.groupState(group)).isEqualTo(MulticastEndpoint.GROUP_JOINED);
            assertThat(sender.groupFailure(group)).isNull();
            assertThat(sender.multicastInterface().getName()).isEqualTo("lo");

            final List<UdpEndpoint> receivers = new ArrayList<>();
            final List<Received> received = new ArrayList<>();
            final int[] senderHandles = new int[3];
            for (int i = 0; i < 3; i++)
            {
                final UdpEndpoint receiver = onLoopback();
                assertThat(receiver.groupState(receiver.joinGroup(GROUP, true))).isEqualTo(MulticastEndpoint.GROUP_JOINED);
                // The third does not know the sender: its datagrams come from an unknown peer there.
                senderHandles[i] = i < 2 ? receiver.resolve(sender.localAddress()) : DatagramEndpoint.UNKNOWN_PEER;
                receivers.add(receiver);
                received.add(new Received());
            }
            final int count = 300;
            for (int i = 0; i < count; i++)
            {
                sendInt(sender, group, i, 100 + i);
            }
            for (int r = 0; r < 3; r++)
            {
                final Received at = received.get(r);
                pollUntil(receivers.get(r), at, () -> at.payloads.size() == count, "every datagram at receiver " + r);
                for (int i = 0; i < count; i++)
                {
                    assertThat(new UnsafeBuffer(at.payloads.get(i)).getInt(0)).isEqualTo(i);
                    assertThat(at.payloads.get(i)).hasSize(100 + i);
                    assertThat(at.peers.get(i)).isEqualTo(senderHandles[r]);
                }
                assertThat(receivers.get(r).groupsJoined()).isEqualTo(1);
            }
            assertThat(receivers.get(2).unknownPeerDatagrams()).isEqualTo(count);
            assertThat(sender.datagramsSent()).isEqualTo(count);
        }

        @Test
        void shouldReceiveNothingOnASendOnlyJoin() throws IOException
        {
            final UdpEndpoint sender = onLoopback();
            final int group = sender.joinGroup(GROUP, false);
            final UdpEndpoint sendOnly = onLoopback();
            final int sendOnlyGroup = sendOnly.joinGroup(GROUP, false);
            final UdpEndpoint receiver = onLoopback();
            receiver.joinGroup(GROUP, true);

            for (int i = 0; i < 20; i++)
            {
                sendInt(sender, group, i, 64);
            }
            final Received atReceiver = new Received();
            pollUntil(receiver, atReceiver, () -> atReceiver.payloads.size() == 20, "the receiver's 20");
            // Loopback delivers to every member as the datagram is sent: had the send-only join got any, it has them.
            final Received atSendOnly = new Received();
            assertThat(sendOnly.poll(atSendOnly, 64)).isZero();
            assertThat(sendOnly.datagramsReceived()).isZero();
            assertThat(sendOnly.groupState(sendOnlyGroup)).isEqualTo(MulticastEndpoint.GROUP_JOINED);

            // It sends all the same.
            sendInt(sendOnly, sendOnlyGroup, 99, 64);
            pollUntil(receiver, atReceiver, () -> atReceiver.payloads.size() == 21, "the send-only join's datagram");
        }

        @Test
        void shouldKeepGroupsApartByPortAndByAddress() throws IOException
        {
            final String[] groups = {"239.1.2.3:40457", "239.1.2.3:40458", "239.1.2.4:40457"};
            final UdpEndpoint sender = onLoopback();
            final UdpEndpoint[] receivers = new UdpEndpoint[groups.length];
            final int[] handles = new int[groups.length];
            for (int g = 0; g < groups.length; g++)
            {
                handles[g] = sender.joinGroup(groups[g], false);
                receivers[g] = onLoopback();
                receivers[g].joinGroup(groups[g], true);
            }
            // One endpoint in the first two groups gets both, on two sockets.
            final UdpEndpoint both = onLoopback();
            both.joinGroup(groups[0], true);
            both.joinGroup(groups[1], true);
            // Unicast to a group's port does not reach its receivers either.
            final int unicastToGroupPort = sender.resolve("127.0.0.1:40457");
            sendInt(sender, unicastToGroupPort, -1, 8);
            for (int round = 0; round < 10; round++)
            {
                for (int g = 0; g < groups.length; g++)
                {
                    sendInt(sender, handles[g], g, 8);
                }
            }
            for (int g = 0; g < groups.length; g++)
            {
                final Received at = new Received();
                pollUntil(receivers[g], at, () -> at.payloads.size() >= 10, "group " + groups[g]);
                assertThat(receivers[g].poll(at, 64)).isZero();
                assertThat(at.payloads).hasSize(10);
                for (final byte[] payload : at.payloads)
                {
                    assertThat(new UnsafeBuffer(payload).getInt(0)).as("at " + groups[g]).isEqualTo(g);
                }
            }
            final Received atBoth = new Received();
            pollUntil(both, atBoth, () -> atBoth.payloads.size() >= 20, "both groups at one endpoint");
            assertThat(both.poll(atBoth, 64)).isZero();
            assertThat(atBoth.payloads).hasSize(20)
                .allMatch(payload -> new UnsafeBuffer(payload).getInt(0) == 0 || new UnsafeBuffer(payload).getInt(0) == 1);
            assertThat(both.groupCount()).isEqualTo(2);
        }

        @Test
        void shouldStopDeliveryWhenAReceiverLeaves() throws IOException
        {
            final UdpEndpoint sender = onLoopback();
            final int group = sender.joinGroup(GROUP, false);
            final UdpEndpoint leaving = onLoopback();
            final int joined = leaving.joinGroup(GROUP, true);
            final UdpEndpoint staying = onLoopback();
            staying.joinGroup(GROUP, true);

            sendInt(sender, group, 1, 16);
            final Received atLeaving = new Received();
            final Received atStaying = new Received();
            pollUntil(leaving, atLeaving, () -> atLeaving.payloads.size() == 1, "before leaving");
            pollUntil(staying, atStaying, () -> atStaying.payloads.size() == 1, "the first at the other");

            leaving.leaveGroup(joined);
            leaving.leaveGroup(joined); // already left: ignored
            assertThat(leaving.groupCount()).isZero();
            assertThatThrownBy(() -> leaving.groupState(joined)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> leaving.send(joined, message, 0, 1)).isInstanceOf(IllegalArgumentException.class);

            sendInt(sender, group, 2, 16);
            pollUntil(staying, atStaying, () -> atStaying.payloads.size() == 2, "the second at the other");
            assertThat(leaving.poll(atLeaving, 64)).isZero();
            assertThat(atLeaving.payloads).hasSize(1);
        }

        @Test
        void shouldLetAHandlerLeaveTheGroupMidPoll() throws IOException
        {
            final UdpEndpoint sender = onLoopback();
            final int group = sender.joinGroup(GROUP, false);
            final UdpEndpoint receiver = onLoopback();
            final int joined = receiver.joinGroup(GROUP, true);
            for (int i = 0; i < 3; i++)
            {
                sendInt(sender, group, i, 16);
            }
            final int[] seen = new int[1];
            pollUntil(receiver, (peer, buffer, offset, length) ->
            {
                seen[0]++;
                receiver.leaveGroup(joined);
            }, () -> seen[0] > 0, "the first datagram");
            assertThat(receiver.poll((peer, buffer, offset, length) -> seen[0]++, 64)).isZero();
            assertThat(seen[0]).as("the others went with the group's socket").isEqualTo(1);
            assertThat(receiver.receiveErrors()).isZero();
        }

        @Test
        void shouldNotDeliverOnTheSendingHostWithLoopbackOff() throws IOException
        {
            // v0 is a real link (a veth): with IP_MULTICAST_LOOP off the kernel keeps no copy for this host.
            final String group = "239.7.7.7:40470";
            final UdpSettings onV0 = new UdpSettings().bindAddress("10.9.9.1:0").multicastInterface("v0");
            final UdpEndpoint quiet = endpoint(onV0.copy().multicastLoopback(false));
            final UdpEndpoint loud = endpoint(onV0.copy().multicastLoopback(true));
            final UdpEndpoint receiver = endpoint(onV0);
            receiver.joinGroup(group, true);
            final int quietGroup = quiet.joinGroup(group, false);
            final int loudGroup = loud.joinGroup(group, false);

            sendInt(quiet, quietGroup, 1, 16);
            sendInt(loud, loudGroup, 2, 16);
            final Received at = new Received();
            pollUntil(receiver, at, () -> at.payloads.size() >= 1, "the looped-back datagram");
            assertThat(receiver.poll(at, 64)).isZero();
            assertThat(at.payloads).hasSize(1);
            assertThat(new UnsafeBuffer(at.payloads.get(0)).getInt(0)).as("only the loud sender's").isEqualTo(2);
            assertThat(quiet.datagramsSent()).isEqualTo(1);
        }

        @Test
        void shouldDeliverOnLoopbackInterfaceEvenWithLoopbackOff() throws IOException
        {
            // Found out, not chosen: on Linux, lo's every datagram comes back in, so IP_MULTICAST_LOOP does not stop
            // delivery there (the option drops only the extra copy made for a real link). Documented on UdpEndpoint.
            final UdpEndpoint quiet = endpoint(new UdpSettings().bindAddress("127.0.0.1:0").multicastInterface("lo")
                .multicastLoopback(false));
            final UdpEndpoint receiver = onLoopback();
            receiver.joinGroup(GROUP, true);
            sendInt(quiet, quiet.joinGroup(GROUP, false), 5, 16);
            final Received at = new Received();
            pollUntil(receiver, at, () -> at.payloads.size() == 1, "the datagram sent on lo with loopback off");
        }

        @Test
        void shouldCarryIpv6Groups() throws IOException
        {
            final String group = "[ff15::1234]:40480";
            final UdpSettings onV0 = new UdpSettings().bindAddress("[fd00:9::1]:0").multicastInterface("v0");
            final UdpEndpoint sender = endpoint(onV0);
            assertThat(sender.localAddress()).startsWith("[fd00:9:0:0:0:0:0:1]:");
            final int handle = sender.joinGroup(group, false);
            assertThat(sender.groupState(handle)).as(String.valueOf(sender.groupFailure(handle)))
                .isEqualTo(MulticastEndpoint.GROUP_JOINED);
            final UdpEndpoint[] receivers = {endpoint(onV0), endpoint(onV0)};
            final int[] named = new int[2];
            for (int r = 0; r < 2; r++)
            {
                assertThat(receivers[r].groupState(receivers[r].joinGroup(group, true)))
                    .isEqualTo(MulticastEndpoint.GROUP_JOINED);
                named[r] = receivers[r].resolve(sender.localAddress());
            }
            for (int i = 0; i < 50; i++)
            {
                sendInt(sender, handle, i, 200);
            }
            for (int r = 0; r < 2; r++)
            {
                final Received at = new Received();
                pollUntil(receivers[r], at, () -> at.payloads.size() == 50, "IPv6 receiver " + r);
                final int expected = named[r];
                assertThat(at.peers).allMatch(peer -> peer == expected);
            }
            // An IPv4 group needs an IPv4 socket.
            final int v4 = sender.joinGroup(GROUP, true);
            assertThat(sender.groupState(v4)).isEqualTo(MulticastEndpoint.GROUP_FAILED);
            assertThat(sender.groupFailure(v4)).contains("IPv4 group", "rivulet.udp.bind");
        }

        @Test
        void shouldJoinOnTheBindAddressesInterfaceOrTheFirstMulticastOne() throws IOException
        {
            final UdpEndpoint onV0 = endpoint(new UdpSettings().bindAddress("10.9.9.1:0"));
            onV0.joinGroup(GROUP, false);
            assertThat(onV0.multicastInterface().getName()).isEqualTo("v0");

            // Bound to every interface (safe here: the namespace's only): the first real link up with multicast, v0
            // (v2 is down, lo is loopback).
            final UdpEndpoint wildcard = endpoint(new UdpSettings().bindAddress("0.0.0.0:0"));
            assertThat(wildcard.localAddress()).isEqualTo("0.0.0.0:" + wildcard.boundAddress().getPort());
            final int group = wildcard.joinGroup(GROUP, false);
            assertThat(wildcard.multicastInterface().getName()).isEqualTo("v0");

            // A wildcard offer resolved with the connection's host names the datagrams it sends, to the group and
            // unicast: they leave from v0's address.
            final UdpEndpoint receiver = endpoint(new UdpSettings().bindAddress("10.9.9.1:0"));
            receiver.joinGroup(GROUP, true);
            final int named = receiver.resolve(wildcard.localAddress(), "10.9.9.1");
            sendInt(wildcard, group, 7, 32);
            final int unicast = wildcard.resolve(receiver.localAddress());
            sendInt(wildcard, unicast, 8, 32);
            final Received at = new Received();
            pollUntil(receiver, at, () -> at.payloads.size() == 2, "group and unicast datagrams from a wildcard bind");
            assertThat(at.peers).containsExactly(named, named);
        }

        @Test
        void shouldFailAJoinWithTheReason() throws IOException
        {
            final UdpEndpoint missing = endpoint(new UdpSettings().bindAddress("127.0.0.1:0")
                .multicastInterface("rivulet-none0"));
            final int group = missing.joinGroup(GROUP, true);
            assertThat(missing.groupState(group)).isEqualTo(MulticastEndpoint.GROUP_FAILED);
            assertThat(missing.groupFailure(group))
                .contains("rivulet.udp.interface=rivulet-none0", "no such interface", "lo");
            assertThat(missing.send(group, message, 0, 8)).as("a failed group takes no datagrams").isFalse();
            assertThat(missing.groupsFailed()).isEqualTo(1);
            assertThat(missing.groupsJoined()).isZero();

            final UdpEndpoint down = endpoint(new UdpSettings().bindAddress("127.0.0.1:0").multicastInterface("v2"));
            final int onDown = down.joinGroup(GROUP, false);
            assertThat(down.groupState(onDown)).isEqualTo(MulticastEndpoint.GROUP_FAILED);
            assertThat(down.groupFailure(onDown)).contains("v2", "down");

            // Failed joins are held until left, like any other.
            assertThat(missing.groupCount()).isEqualTo(1);
            missing.leaveGroup(group);
            assertThat(missing.groupCount()).isZero();
        }

        @Test
        void shouldRefuseABadGroup() throws IOException
        {
            final UdpEndpoint endpoint = onLoopback();
            for (final String bad : new String[]{"127.0.0.1:40456", "239.1.2.3", "239.1.2.3:0", "[ff15::1]",
                "239.1.2.3:40456 ", "all-systems.mcast.net:40456"})
            {
                assertThatThrownBy(() -> endpoint.joinGroup(bad, true)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a multicast group");
            }
            assertThat(endpoint.groupCount()).isZero();
        }

        @Test
        void shouldLoseADatagramTheSocketCannotSendAndCountIt() throws IOException
        {
            // No route to TEST-NET-1 in the namespace: the kernel refuses the send; nothing leaves.
            final UdpEndpoint endpoint = endpoint(new UdpSettings().bindAddress("0.0.0.0:0"));
            final int unreachable = endpoint.resolve("192.0.2.1:9");
            assertThat(endpoint.send(unreachable, message, 0, 8)).as("lost, not back-pressure").isTrue();
            assertThat(endpoint.sendErrors()).isEqualTo(1);
            assertThat(endpoint.datagramsSent()).isZero();
            assertThat(endpoint.sendBackPressure()).isZero();
        }

        @Test
        void shouldCloseEveryGroupSocket() throws IOException
        {
            final UdpEndpoint endpoint = onLoopback();
            final int group = endpoint.joinGroup(GROUP, true);
            endpoint.joinGroup("239.1.2.3:40459", true);
            endpoint.close();
            assertThat(endpoint.isClosed()).isTrue();
            endpoint.leaveGroup(group); // after close: ignored
            // The group's port is free for a socket without SO_REUSEADDR: nothing holds it.
            try (java.nio.channels.DatagramChannel again = java.nio.channels.DatagramChannel.open(
                java.net.StandardProtocolFamily.INET))
            {
                again.bind(new java.net.InetSocketAddress("239.1.2.3", 40456));
                assertThat(again.getLocalAddress()).isNotNull();
            }
        }
    }

    /** Sends refused while the socket's send buffer is full: false, counted, nothing sent. */
    static class BackPressureInNamespace extends Endpoints
    {
        @Test
        void shouldReturnFalseWhenTheSendBufferIsFull() throws IOException
        {
            final UdpEndpoint receiver = onLoopback();
            // The smallest send buffer the kernel grants: a couple of datagrams held by the qdisc fill it.
            final UdpEndpoint sender = endpoint(new UdpSettings().bindAddress("127.0.0.1:0").socketSendBufferLength(1));
            final int peer = sender.resolve(receiver.localAddress());
            int accepted = 0;
            int refused = 0;
            for (int i = 0; i < 100; i++)
            {
                message.putInt(0, i);
                if (sender.send(peer, message, 0, 1000))
                {
                    accepted++;
                }
                else
                {
                    refused++;
                }
            }
            assertThat(refused).as("sends refused").isPositive();
            assertThat(sender.sendBackPressure()).isEqualTo(refused);
            assertThat(sender.datagramsSent()).isEqualTo(accepted);
            assertThat(sender.sendErrors()).isZero();
            final Received at = new Received();
            receiver.poll(at, 200);
            assertThat(at.payloads.size()).as("nothing refused arrives").isLessThanOrEqualTo(accepted);
        }
    }
}
