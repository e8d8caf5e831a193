package io.rivulet.transport.udp;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.tck.Await;
import io.rivulet.tck.ResourceSnapshot;
import io.rivulet.tck.TestTime;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The UDP endpoint on 127.0.0.1, unicast only (multicast runs in a network namespace: {@link UdpMulticastTest}):
 * round trips, many datagrams over many polls, sources named, wildcard offers, strict addresses, oversize and empty
 * datagrams dropped, bad sends refused, close, and no allocation once warm.
 */
class UdpEndpointTest
{
    static final Duration TIMEOUT = TestTime.seconds(30);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[2048]);

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
    }

    static UdpSettings loopback()
    {
        return new UdpSettings().bindAddress("127.0.0.1:0").validate();
    }

    private UdpEndpoint endpoint(final int maxDatagramLength) throws IOException
    {
        final UdpEndpoint endpoint = new UdpEndpoint(loopback(), maxDatagramLength);
        resources.add(endpoint);
        return endpoint;
    }

    private DatagramChannel rawSocket() throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.bind(new InetSocketAddress("127.0.0.1", 0));
        resources.add(channel);
        return channel;
    }

    /** Remembers what polls delivered. */
    static final class Received implements DatagramEndpoint.DatagramHandler
    {
        final List<Integer> peers = new ArrayList<>();
        final List<byte[]> payloads = new ArrayList<>();

        @Override
        public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            peers.add(peer);
            payloads.add(bytes);
        }
    }

    static void pollUntil(final UdpEndpoint endpoint, final DatagramEndpoint.DatagramHandler handler,
        final BooleanSupplier condition, final String what)
    {
        Await.until(TIMEOUT, () -> endpoint.poll(handler, 64), condition::getAsBoolean, () -> what);
    }

    private byte[] fill(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed + i * 7);
        }
        message.putBytes(0, bytes);
        return bytes;
    }

    @Test
    void shouldReportItsAddressAsBound() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        assertThat(a.localAddress()).isEqualTo("127.0.0.1:" + a.boundAddress().getPort());
        assertThat(a.boundAddress().getPort()).isPositive();
        assertThat(a.maxDatagramLength()).isEqualTo(256);
        assertThatThrownBy(() -> new UdpEndpoint(loopback(), 1473)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("1473").hasMessageContaining("rivulet.udp.maxDatagram");
    }

    @Test
    void shouldRoundTripBothWaysNamingEachSource() throws IOException
    {
        final UdpEndpoint a = endpoint(1472);
        final UdpEndpoint b = endpoint(1472);
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());

        final byte[] toB = fill(1472, 3);
        assertThat(a.send(bAtA, message, 0, 1472)).isTrue();
        final Received atB = new Received();
        pollUntil(b, atB, () -> atB.payloads.size() == 1, "a's datagram at b");
        assertThat(atB.payloads.get(0)).isEqualTo(toB);
        assertThat(atB.peers).containsExactly(aAtB);

        final byte[] toA = fill(1, 9);
        assertThat(b.send(aAtB, message, 0, 1)).isTrue();
        final Received atA = new Received();
        pollUntil(a, atA, () -> atA.payloads.size() == 1, "b's datagram at a");
        assertThat(atA.payloads.get(0)).isEqualTo(toA);
        assertThat(atA.peers).containsExactly(bAtA);

        assertThat(a.datagramsSent()).isEqualTo(1);
        assertThat(a.datagramsReceived()).isEqualTo(1);
        assertThat(b.unknownPeerDatagrams()).isZero();
        assertThat(a.sendsPosted()).isEqualTo(1).isEqualTo(a.sendsCompleted());
    }

    @Test
    void shouldDeliverManyMoreDatagramsThanOnePollTakes() throws IOException
    {
        final UdpEndpoint a = endpoint(512);
        final UdpEndpoint b = endpoint(512);
        final int peer = a.resolve(b.localAddress());
        final Received atB = new Received();
        final int rounds = 10;
        final int perRound = 100; // a burst well inside even a default-sized receive buffer
        final int limit = 8;
        int fullPolls = 0;
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < perRound; i++)
            {
                message.putInt(0, round * perRound + i);
                assertThat(a.send(peer, message, 0, 64 + i)).isTrue();
            }
            final int expected = (round + 1) * perRound;
            final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
            while (atB.payloads.size() < expected)
            {
                final int delivered = b.poll(atB, limit);
                assertThat(delivered).isBetween(0, limit);
                fullPolls += delivered == limit ? 1 : 0;
                assertThat(System.nanoTime() - deadlineNs).as("round %d timed out", round).isNegative();
                if (delivered == 0)
                {
                    Thread.onSpinWait();
                }
            }
        }
        assertThat(fullPolls).as("polls that took their whole limit").isGreaterThanOrEqualTo(rounds * (perRound / limit));
        assertThat(atB.payloads).hasSize(rounds * perRound);
        for (int i = 0; i < atB.payloads.size(); i++)
        {
            // One socket on loopback: in order, each whole.
            assertThat(new UnsafeBuffer(atB.payloads.get(i)).getInt(0)).isEqualTo(i);
            assertThat(atB.payloads.get(i)).hasSize(64 + i % perRound);
        }
    }

    @Test
    void shouldNameAnUnresolvedSourceUnknown() throws IOException
    {
        final UdpEndpoint b = endpoint(256);
        final DatagramChannel stranger = rawSocket();
        stranger.send(ByteBuffer.wrap(new byte[]{1, 2, 3}), b.boundAddress());
        final Received atB = new Received();
        pollUntil(b, atB, () -> atB.payloads.size() == 1, "the stranger's datagram");
        assertThat(atB.peers).containsExactly(DatagramEndpoint.UNKNOWN_PEER);
        assertThat(b.unknownPeerDatagrams()).isEqualTo(1);

        // Once resolved, the same source is named.
        final int strangerHandle = b.resolve(UdpAddresses.format((InetSocketAddress)stranger.getLocalAddress()));
        stranger.send(ByteBuffer.wrap(new byte[]{4}), b.boundAddress());
        pollUntil(b, atB, () -> atB.payloads.size() == 2, "the stranger's second datagram");
        assertThat(atB.peers.get(1)).isEqualTo(strangerHandle);
        assertThat(b.unknownPeerDatagrams()).isEqualTo(1);
    }

    @Test
    void shouldGiveOneAddressOneHandle() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        final int first = a.resolve("127.0.0.1:4000");
        assertThat(a.resolve("127.0.0.1:4000")).isEqualTo(first);
        assertThat(a.resolve("localhost:4000")).isEqualTo(first);
        assertThat(a.resolve("[::ffff:127.0.0.1]:4000")).isEqualTo(first);
        final int other = a.resolve("127.0.0.1:4001");
        assertThat(other).isNotEqualTo(first);
        assertThat(first).isBetween(0, 15);
        assertThat(other).isBetween(0, 15);
    }

    @Test
    void shouldPutTheConnectionsHostInPlaceOfAWildcard() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        final UdpEndpoint b = endpoint(256);
        final int port = a.boundAddress().getPort();
        final int resolved = b.resolve("127.0.0.1:" + port);
        // What an endpoint bound to every interface offers: the connection's remote host stands in for it.
        assertThat(b.resolve("0.0.0.0:" + port, "127.0.0.1")).isEqualTo(resolved);
        assertThat(b.resolve("0.0.0.0:" + port, "[::ffff:127.0.0.1]")).isEqualTo(resolved);
        assertThat(b.resolve("0.0.0.0:" + port, "localhost")).isEqualTo(resolved);
        assertThat(b.resolve("0.0.0.0:" + port, null)).as("no remote host: this host").isEqualTo(resolved);
        assertThat(b.resolve("0.0.0.0:" + port, "::1")).as("a connection over IPv6 loopback: this host")
            .isEqualTo(resolved);
        assertThat(b.resolve("0.0.0.0:" + port)).isEqualTo(resolved);
        assertThat(b.resolve("127.0.0.1:" + port, "10.1.2.3")).as("a specific host is kept").isEqualTo(resolved);

        fill(100, 5);
        assertThat(b.send(b.resolve("0.0.0.0:" + port, "127.0.0.1"), message, 0, 100)).isTrue();
        final Received atA = new Received();
        pollUntil(a, atA, () -> atA.payloads.size() == 1, "the datagram sent to a wildcard offer");

        for (final String badHost : new String[]{"example.com", "0.0.0.0", "239.1.2.3", "[fd00::1]", "10.0.0.1 ", ""})
        {
            assertThatThrownBy(() -> b.resolve("0.0.0.0:" + port, badHost)).as(badHost)
                .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldRefuseMalformedAddressesFromTheNetwork() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        final String[][] cases = {
            {"", "expected host:port"}, {"127.0.0.1", "expected host:port"}, {"127.0.0.1:0", "port 0"},
            {"127.0.0.1:65536", "over 65535"}, {"127.0.0.1:x", "port"}, {"300.0.0.1:80", "IPv4 literal"},
            {"example.com:80", "names are not looked up"}, {"rivulet.invalid:80", "names are not looked up"},
            {"[::1]:80", "cannot reach"}, {"239.1.2.3:80", "multicast group is not a peer"},
            {"::1:80", "brackets"}, {"127.0.0.1:80/1", "port"}, {"1.2.3.4:80\u0000", "control"},
        };
        for (final String[] bad : cases)
        {
            assertThatThrownBy(() -> a.resolve(bad[0])).as(bad[0]).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(bad[1]);
        }
        assertThatThrownBy(() -> a.resolve(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldDropOversizeAndEmptyDatagramsAndCountThem() throws IOException
    {
        final UdpEndpoint b = endpoint(256);
        final DatagramChannel forger = rawSocket();
        forger.send(ByteBuffer.allocate(0), b.boundAddress());
        forger.send(ByteBuffer.allocate(257), b.boundAddress()); // fills the buffer: truncated by the kernel
        forger.send(ByteBuffer.allocate(4000), b.boundAddress());
        final ByteBuffer exact = ByteBuffer.allocate(256);
        exact.put(0, (byte)42);
        forger.send(exact, b.boundAddress());
        final Received atB = new Received();
        pollUntil(b, atB, () -> atB.payloads.size() == 1, "the datagram of exactly the longest length");
        assertThat(atB.payloads.get(0)).hasSize(256).startsWith(42);
        assertThat(b.emptyDatagrams()).isEqualTo(1);
        assertThat(b.oversizeDatagrams()).isEqualTo(2);
        assertThat(b.datagramsReceived()).isEqualTo(1);
    }

    @Test
    void shouldNotLetAFloodOfJunkHoldAPoll() throws IOException
    {
        final UdpEndpoint b = endpoint(256);
        final DatagramChannel forger = rawSocket();
        for (int i = 0; i < 50; i++)
        {
            forger.send(ByteBuffer.allocate(0), b.boundAddress());
        }
        forger.send(ByteBuffer.wrap(new byte[]{7}), b.boundAddress());
        // Loopback queues a datagram before send returns: all 51 wait. A poll reads at most its limit, junk or not.
        final Received atB = new Received();
        assertThat(b.poll(atB, 4)).isZero();
        assertThat(b.emptyDatagrams()).isEqualTo(4);
        int polls = 1;
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (atB.payloads.isEmpty() && System.nanoTime() - deadlineNs < 0)
        {
            b.poll(atB, 4);
            polls++;
        }
        assertThat(atB.payloads).hasSize(1);
        assertThat(b.emptyDatagrams()).isEqualTo(50);
        assertThat(polls).isEqualTo(13);
    }

    @Test
    void shouldLetAHandlerCloseTheEndpointMidPoll() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        final UdpEndpoint b = endpoint(256);
        final int peer = a.resolve(b.localAddress());
        for (int i = 0; i < 5; i++)
        {
            assertThat(a.send(peer, message, 0, 8)).isTrue();
        }
        final int[] seen = new int[1];
        Await.until(TIMEOUT, () -> 0, () -> b.isClosed() || b.poll((p, buffer, offset, length) ->
        {
            seen[0]++;
            b.close();
        }, 64) > 0, () -> "a datagram that closes its endpoint");
        assertThat(seen[0]).isEqualTo(1);
        assertThat(b.receiveErrors()).as("no receive on the closed socket").isZero();
    }

    @Test
    void shouldRefuseBadSends() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        final int peer = a.resolve("127.0.0.1:9");
        assertThatThrownBy(() -> a.send(peer, message, 0, 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("datagram length 0 not in 1..256");
        assertThatThrownBy(() -> a.send(peer, message, 0, 257)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(99, message, 0, 1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("unknown peer handle 99");
        assertThatThrownBy(() -> a.send(-1, message, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.groupState(peer)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("not a group");
        a.leaveGroup(peer); // a peer, not a group: ignored
        a.leaveGroup(1234);
        assertThat(a.send(peer, message, 0, 1)).isTrue();
        assertThat(a.datagramsSent()).isEqualTo(1);
    }

    @Test
    void shouldRefuseGroupsNotInUdpForm() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        for (final String bad : new String[]{"10.0.0.1:40456", "239.1.2.3", "239.1.2.3:0", "localhost:40456",
            "ff15::1:40456", "group:1"})
        {
            assertThatThrownBy(() -> a.joinGroup(bad, true)).as(bad).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a multicast group");
        }
        assertThat(a.groupCount()).isZero();
    }

    @Test
    void shouldCloseIdempotentlyAndReleaseTheSocket() throws Exception
    {
        final long fdsBefore = ResourceSnapshot.take(Map.of()).values().get(ResourceSnapshot.FILE_DESCRIPTORS);
        final UdpEndpoint a = new UdpEndpoint(loopback(), 256);
        final InetSocketAddress bound = a.boundAddress();
        assertThat(ResourceSnapshot.take(Map.of()).values().get(ResourceSnapshot.FILE_DESCRIPTORS))
            .isGreaterThan(fdsBefore);
        a.close();
        a.close();
        assertThat(a.isClosed()).isTrue();
        assertThat(ResourceSnapshot.take(Map.of()).values().get(ResourceSnapshot.FILE_DESCRIPTORS))
            .isEqualTo(fdsBefore);
        // The port is free again: nothing holds it.
        try (DatagramChannel again = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            again.bind(bound);
            assertThat(again.getLocalAddress()).isEqualTo(bound);
        }
        assertThatThrownBy(() -> a.send(0, message, 0, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.poll(new Received(), 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.resolve("127.0.0.1:1")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.joinGroup("239.1.2.3:1", true)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldRefuseABindAddressInUse() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        assertThatThrownBy(() -> new UdpEndpoint(new UdpSettings().bindAddress(a.localAddress()), 256))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("cannot open a UDP socket on " + a.localAddress());
    }

    @Test
    void shouldNotAllocateOnSendOrPollOnceWarm() throws IOException
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        final UdpEndpoint a = endpoint(1472);
        final UdpEndpoint b = endpoint(1472);
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());
        final long[] count = new long[2];
        final DatagramEndpoint.DatagramHandler counter = (peer, buffer, offset, length) ->
        {
            count[0] += buffer.getByte(offset);
            count[1] += peer;
        };
        fill(1024, 0);
        message.putByte(0, (byte)1);
        for (int round = 0; round < 2; round++) // warm up, then measure
        {
            final int datagrams = round == 0 ? 10_000 : 2_000;
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            exchange(a, b, bAtA, counter, count, datagrams);
            exchange(b, a, aAtB, counter, count, datagrams);
            final long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            if (round == 1)
            {
                assertThat(allocated).as("bytes allocated by 2,000 sends and polls each way").isZero();
            }
        }
        assertThat(count[0]).isEqualTo(24_000);
        assertThat(count[1]).as("every datagram named by its sender").isEqualTo(12_000L * aAtB + 12_000L * bAtA);
    }

    /** One datagram at a time from one endpoint to the other, polled until it arrived; allocates nothing itself. */
    private void exchange(final UdpEndpoint from, final UdpEndpoint to, final int peer,
        final DatagramEndpoint.DatagramHandler counter, final long[] count, final int datagrams)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        for (int i = 0; i < datagrams; i++)
        {
            while (!from.send(peer, message, 0, 1024))
            {
                Thread.onSpinWait();
            }
            final long target = count[0] + 1;
            while (count[0] < target)
            {
                to.poll(counter, 16);
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new AssertionError("timed out at datagram " + i + " (a loopback datagram lost?)");
                }
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void shouldGrantSomeSocketBuffer() throws IOException
    {
        final UdpEndpoint a = endpoint(256);
        // The kernel may cap what was asked (net.core.rmem_max); it never grants nothing.
        assertThat(a.socketReceiveBufferLength()).isPositive();
        assertThat(a.socketSendBufferLength()).isPositive();
    }
}
