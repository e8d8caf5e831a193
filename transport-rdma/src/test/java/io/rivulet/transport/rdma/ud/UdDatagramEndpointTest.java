package io.rivulet.transport.rdma.ud;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.tck.Await;
import io.rivulet.tck.TestTime;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import io.rivulet.transport.rdma.verbs.Access;
import io.rivulet.transport.rdma.verbs.AddressHandle;
import io.rivulet.transport.rdma.verbs.CompletionQueue;
import io.rivulet.transport.rdma.verbs.MemoryRegion;
import io.rivulet.transport.rdma.verbs.Opcode;
import io.rivulet.transport.rdma.verbs.ProtectionDomain;
import io.rivulet.transport.rdma.verbs.QueuePair;
import io.rivulet.transport.rdma.verbs.QueuePairConfig;
import io.rivulet.transport.rdma.verbs.SendWorkRequest;
import io.rivulet.transport.rdma.verbs.UdAddress;
import io.rivulet.transport.rdma.verbs.WorkCompletion;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The UD endpoint on the soft provider (in-process fabric): delivery, peers named by (GID, QP number), back-pressure,
 * limits, MTU-sized receive slots, recovery from error completions, address handles made off the caller, close.
 */
class UdDatagramEndpointTest
{
    static final int QKEY = 0x5D5D;
    static final long TIMEOUT_NS = TestTime.nanos(30, TimeUnit.SECONDS);
    /** For thousands of round trips one at a time, each a few wake-ups of two soft NIC threads on a busy machine. */
    static final long EXCHANGE_TIMEOUT_NS = TestTime.nanos(120, TimeUnit.SECONDS);

    private final SoftFabric fabric = new SoftFabric();
    private final SoftVerbsProvider provider = new SoftVerbsProvider(fabric);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[8192]);
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    /** Runs address handle tasks only when the test says so. */
    private final Executor later = queued::add;

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
    }

    private SoftVerbsContext context() throws IOException
    {
        return context(provider, "127.0.0.1");
    }

    private SoftVerbsContext context(final SoftVerbsProvider provider, final String address) throws IOException
    {
        final SoftVerbsContext context = provider.open(InetAddress.getByName(address));
        resources.add(context);
        return context;
    }

    private UdDatagramEndpoint endpoint(final SoftVerbsContext context, final int receiveSlots, final int sendSlots)
        throws IOException
    {
        return endpoint(context, 256, receiveSlots, sendSlots, Runnable::run);
    }

    private UdDatagramEndpoint endpoint(
        final io.rivulet.transport.rdma.verbs.VerbsContext context,
        final int maxDatagramLength,
        final int receiveSlots,
        final int sendSlots,
        final Executor executor) throws IOException
    {
        final UdDatagramEndpoint endpoint =
            new UdDatagramEndpoint(context, maxDatagramLength, receiveSlots, sendSlots, QKEY, executor);
        resources.add(endpoint);
        return endpoint;
    }

    static void await(final BooleanSupplier condition, final String what)
    {
        Await.until(Duration.ofNanos(TIMEOUT_NS), condition::getAsBoolean, () -> what);
    }

    private void runQueued()
    {
        Runnable task;
        while (null != (task = queued.poll()))
        {
            task.run();
        }
    }

    /** Remembers the datagrams a poll delivered. */
    static final class Received implements DatagramEndpoint.DatagramHandler
    {
        final List<Integer> peers = new ArrayList<>();
        final List<byte[]> payloads = new ArrayList<>();

        @Override
        public void onDatagram(final int peer, final org.agrona.DirectBuffer buffer, final int offset, final int length)
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            peers.add(peer);
            payloads.add(bytes);
        }
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

    /** Sends one datagram from {@code from} and polls both ends until {@code at} delivered it; returns its sender. */
    private int roundTrip(
        final UdDatagramEndpoint from, final int peer, final UdDatagramEndpoint at, final int length, final int seed)
    {
        final byte[] sent = fill(length, seed);
        assertThat(from.send(peer, message, 0, length)).isTrue();
        final Received received = new Received();
        await(() ->
        {
            from.poll(new Received(), 16);
            at.poll(received, 16);
            return !received.payloads.isEmpty();
        }, "a datagram of " + length + " bytes");
        assertThat(received.payloads).hasSize(1);
        assertThat(received.payloads.get(0)).isEqualTo(sent);
        return received.peers.get(0);
    }

    @Test
    void shouldDeliverBothWaysWithThePeerHandleAndKeepReceivesPosted() throws IOException
    {
        final UdDatagramEndpoint a = endpoint(context(), 4, 4);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());
        assertThat(a.resolve(b.localAddress())).isEqualTo(bAtA);
        assertThat(a.peerCount()).isEqualTo(1);
        assertThat(b.localAddress()).endsWith("/" + b.qpNumber() + "/" + QKEY + "/" + SoftVerbsProvider.DEFAULT_MTU);
        assertThat(b.mtu()).isEqualTo(SoftVerbsProvider.DEFAULT_MTU);

        final Received atB = new Received();
        final Received atA = new Received();
        // Five times the receive slots each way: every slot must be reposted after its delivery.
        for (int i = 0; i < 20; i++)
        {
            final int length = 1 + i * 13;
            final byte[] sent = fill(length, i);
            assertThat(a.send(bAtA, message, 0, length)).isTrue();
            final int expected = i + 1;
            await(() -> b.poll(atB, 10) > 0 || atB.payloads.size() >= expected, "datagram " + expected + " at b");
            assertThat(atB.payloads.get(i)).isEqualTo(sent);
            assertThat(atB.peers.get(i)).isEqualTo(aAtB);

            final byte[] reply = fill(256 - i, i + 100);
            assertThat(b.send(aAtB, message, 0, reply.length)).isTrue();
            await(() -> a.poll(atA, 10) > 0 || atA.payloads.size() >= expected, "reply " + expected + " at a");
            assertThat(atA.payloads.get(i)).isEqualTo(reply);
            assertThat(atA.peers.get(i)).isEqualTo(bAtA);
        }
        assertThat(a.datagramsSent()).isEqualTo(20);
        assertThat(b.datagramsReceived()).isEqualTo(20);
        assertThat(b.unknownPeerDatagrams()).isZero();
        assertThat(a.receiveErrors() + a.sendErrors() + b.receiveErrors() + b.sendErrors()).isZero();
        assertThat(a.recoveries() + b.recoveries()).isZero();
    }

    @Test
    void shouldRefuseSendsWhileEverySlotAwaitsItsCompletion() throws IOException
    {
        final UdDatagramEndpoint a = endpoint(context(), 4, 3);
        final UdDatagramEndpoint b = endpoint(context(), 16, 4);
        final int peer = a.resolve(b.localAddress());
        fill(64, 1);
        for (int i = 0; i < 3; i++)
        {
            assertThat(a.send(peer, message, 0, 64)).isTrue();
        }
        assertThat(a.freeSendSlots()).isZero();
        // Slots come back only when poll reaps their completions, however fast the device completes.
        assertThat(a.send(peer, message, 0, 64)).isFalse();
        assertThat(a.datagramsSent()).isEqualTo(3);

        final Received ignored = new Received();
        await(() ->
        {
            a.poll(ignored, 16);
            return a.freeSendSlots() == 3;
        }, "send completions");
        assertThat(a.send(peer, message, 0, 64)).isTrue();
        final Received atB = new Received();
        await(() -> b.poll(atB, 16) >= 0 && atB.payloads.size() == 4, "four datagrams");
        assertThat(a.sendErrors()).isZero();
    }

    @Test
    void shouldReportADatagramFromAnUnresolvedSourceAsUnknownPeer() throws IOException
    {
        final SoftVerbsContext shared = context();
        final UdDatagramEndpoint b = endpoint(shared, 4, 4);
        final UdDatagramEndpoint known = endpoint(shared, 4, 4);
        final UdDatagramEndpoint stranger = endpoint(context(), 4, 4);
        final int knownAtB = b.resolve(known.localAddress());

        fill(32, 9);
        assertThat(stranger.send(stranger.resolve(b.localAddress()), message, 0, 32)).isTrue();
        final Received atB = new Received();
        await(() -> b.poll(atB, 4) > 0, "the stranger's datagram");
        assertThat(atB.peers).containsExactly(DatagramEndpoint.UNKNOWN_PEER);
        assertThat(b.unknownPeerDatagrams()).isEqualTo(1);

        assertThat(known.send(known.resolve(b.localAddress()), message, 0, 32)).isTrue();
        await(() -> b.poll(atB, 4) > 0, "the known peer's datagram");
        assertThat(atB.peers).containsExactly(DatagramEndpoint.UNKNOWN_PEER, knownAtB);
        assertThat(b.unknownPeerDatagrams()).isEqualTo(1);
    }

    @Test
    void shouldNameTheSenderByGidAndQpNumberWhenQpNumbersRepeatAcrossHosts() throws IOException
    {
        final UdDatagramEndpoint b = endpoint(context(), 8, 8);
        final UdDatagramEndpoint a = endpoint(context(), 8, 8);
        final UdDatagramEndpoint other = endpoint(context(provider, "127.0.0.2"), 8, 8);
        final String otherPort = other.localAddress().substring(0, other.localAddress().indexOf('/'))
            .replace("127.0.0.2:", "");
        final String aPort = a.localAddress().substring(0, a.localAddress().indexOf('/')).replace("127.0.0.1:", "");

        final int aAtB = b.resolve(a.localAddress());
        // A peer on another host with a's QP number: the QP number alone no longer names a's datagrams.
        final int twinOfA = b.resolve("127.0.0.2:" + otherPort + "/" + a.qpNumber() + "/" + QKEY + "/4096");
        // A peer on a's host with the QP number of the endpoint on 127.0.0.2, which is not resolved itself.
        final int twinOfOther = b.resolve("127.0.0.1:" + aPort + "/" + other.qpNumber() + "/" + QKEY + "/4096");
        assertThat(b.peerCount()).isEqualTo(3);

        assertThat(roundTrip(a, a.resolve(b.localAddress()), b, 100, 1)).as("a, told from its twin by the GID")
            .isEqualTo(aAtB).isNotEqualTo(twinOfA);
        assertThat(roundTrip(other, other.resolve(b.localAddress()), b, 100, 2))
            .as("a stranger whose QP number only a peer on another host has").isEqualTo(DatagramEndpoint.UNKNOWN_PEER)
            .isNotEqualTo(twinOfOther);
        assertThat(b.unknownPeerDatagrams()).isEqualTo(1);

        // Same GID and QP number as a (another device on a's host): neither can be told apart, so neither is named.
        b.resolve("127.0.0.1:" + otherPort + "/" + a.qpNumber() + "/" + QKEY + "/4096");
        assertThat(roundTrip(a, a.resolve(b.localAddress()), b, 100, 3)).isEqualTo(DatagramEndpoint.UNKNOWN_PEER);
    }

    @Test
    void shouldReadTheSendersGidFromEitherLayoutOfTheGrh()
    {
        final UnsafeBuffer grh = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final long[] gid = new long[2];

        // IPv6-style (InfiniBand, RoCE v1 and v2 over IPv6): version 6, source GID at bytes 8..23.
        grh.putByte(0, (byte)0x60);
        grh.putLong(8, 0xfe80_0000_0000_0000L, ByteOrder.BIG_ENDIAN);
        grh.putLong(16, 0x0202_c9ff_fe00_0001L, ByteOrder.BIG_ENDIAN);
        assertThat(UdDatagramEndpoint.readSourceGid(grh, 0, gid)).isTrue();
        assertThat(gid).containsExactly(0xfe80_0000_0000_0000L, 0x0202_c9ff_fe00_0001L);

        // RoCE v2 over IPv4: an IPv4 header at bytes 20..39 (source 10.77.0.2), bytes 0..19 zero (rxe) ...
        grh.setMemory(0, 40, (byte)0);
        writeIpv4Header(grh, 20, 0x0a4d_0002, 0x0a4d_0001);
        assertThat(UdDatagramEndpoint.readSourceGid(grh, 0, gid)).isTrue();
        assertThat(gid).containsExactly(0L, 0x0000_ffff_0a4d_0002L);
        // ... or anything, an older datagram's IPv6 GRH included: the valid checksum decides.
        grh.putByte(0, (byte)0x60);
        grh.putLong(8, -1L);
        assertThat(UdDatagramEndpoint.readSourceGid(grh, 0, gid)).isTrue();
        assertThat(gid).containsExactly(0L, 0x0000_ffff_0a4d_0002L);

        // An IPv6 GRH whose source GID puts 0x45 at byte 20 (::ffff:69.0.0.1) is not taken for IPv4.
        grh.setMemory(0, 40, (byte)0);
        grh.putByte(0, (byte)0x60);
        grh.putLong(8, 0L);
        grh.putLong(16, 0x0000_ffff_4500_0001L, ByteOrder.BIG_ENDIAN);
        grh.putLong(24, 0x0000_0000_0000_0000L, ByteOrder.BIG_ENDIAN);
        grh.putLong(32, 0x0000_ffff_0a4d_0001L, ByteOrder.BIG_ENDIAN);
        assertThat(grh.getByte(20)).isEqualTo((byte)0x45);
        assertThat(UdDatagramEndpoint.isIpv4HeaderChecksumValid(grh, 20)).isFalse();
        assertThat(UdDatagramEndpoint.readSourceGid(grh, 0, gid)).isTrue();
        assertThat(gid).containsExactly(0L, 0x0000_ffff_4500_0001L);

        // Neither layout: the sender cannot be named.
        grh.setMemory(0, 40, (byte)0);
        assertThat(UdDatagramEndpoint.readSourceGid(grh, 0, gid)).isFalse();
    }

    @Test
    void shouldCheckAnIpv4HeaderChecksum()
    {
        // The example header of RFC 1071's usual illustration: 192.168.0.1 -> 192.168.0.199, checksum 0xb861.
        final UnsafeBuffer header = new UnsafeBuffer(new byte[20]);
        final int[] words = {0x4500, 0x0073, 0x0000, 0x4000, 0x4011, 0xb861, 0xc0a8, 0x0001, 0xc0a8, 0x00c7};
        for (int i = 0; i < words.length; i++)
        {
            header.putShort(2 * i, (short)words[i], ByteOrder.BIG_ENDIAN);
        }
        assertThat(UdDatagramEndpoint.isIpv4HeaderChecksumValid(header, 0)).isTrue();
        header.putShort(10, (short)0xb862, ByteOrder.BIG_ENDIAN);
        assertThat(UdDatagramEndpoint.isIpv4HeaderChecksumValid(header, 0)).isFalse();
    }

    /** A 20-byte IPv4 header of a RoCE v2 datagram (UDP to 4791), with its checksum. */
    private static void writeIpv4Header(final UnsafeBuffer buffer, final int offset, final int source, final int to)
    {
        buffer.putByte(offset, (byte)0x45);
        buffer.putShort(offset + 2, (short)(20 + 8 + 12 + 64), ByteOrder.BIG_ENDIAN);
        buffer.putByte(offset + 8, (byte)64);
        buffer.putByte(offset + 9, (byte)17);
        buffer.putInt(offset + 12, source, ByteOrder.BIG_ENDIAN);
        buffer.putInt(offset + 16, to, ByteOrder.BIG_ENDIAN);
        int sum = 0;
        for (int i = 0; i < 20; i += 2)
        {
            sum += buffer.getShort(offset + i, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        buffer.putShort(offset + 10, (short)~sum, ByteOrder.BIG_ENDIAN);
    }

    @Test
    void shouldRefuseOversizeEmptyAndUnknownPeerSendsAndBadAddresses() throws IOException
    {
        final UdDatagramEndpoint a = endpoint(context(), 4, 4);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        final int peer = a.resolve(b.localAddress());
        assertThat(a.maxDatagramLength()).isEqualTo(256);
        assertThatThrownBy(() -> a.send(peer, message, 0, 257)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(peer, message, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(peer + 1, message, 0, 8)).isInstanceOf(IllegalArgumentException.class);
        assertThat(a.datagramsSent()).isZero();
        assertThat(a.freeSendSlots()).isEqualTo(4);
        final String gid = b.localAddress().substring(0, b.localAddress().indexOf('/'));
        for (final String bad : new String[] {
            "", "nonsense", gid + "/x/1/4096", "/5/6/4096", gid + "/1/1/4096", gid + "/5/6", gid + "/5/6/4096/",
            gid + "/+5/6/4096", gid + "/5/-6/4096", gid + "/5/6/ 4096", gid + "/5/6/4096 ", gid + "/16777216/6/4096",
            gid + "/5/4294967296/4096", gid + "/5/6/255", gid + "/5/6/65537", gid + "/5/6/99999999999",
            "10.0.0.1:4791/5/6/4096", "127.0.0.1:0/5/6/4096", "127.0.0.1:x/5/6/4096", "127.0.0.1 :1/5/6/4096",
            "127.0.0.1:1\u00e9/5/6/4096", gid + "/5/6/4096".repeat(40)})
        {
            assertThatThrownBy(() -> a.resolve(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> a.resolve(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(a.peerCount()).isEqualTo(1);
        // A maximum-length datagram still goes through.
        final byte[] sent = fill(256, 3);
        assertThat(a.send(peer, message, 0, 256)).isTrue();
        final Received atB = new Received();
        await(() -> b.poll(atB, 4) > 0, "the full-length datagram");
        assertThat(atB.payloads.get(0)).isEqualTo(sent);
    }

    @Test
    void shouldParseAddressesFromTheRightBecauseAGidMayHoldASlash()
    {
        final String address = "fe80:0000:0000:0000:0202:c9ff:fe00:0001/3/77/4294967295/1024";
        assertThat(UdDatagramEndpoint.parse(address))
            .isEqualTo(new UdAddress("fe80:0000:0000:0000:0202:c9ff:fe00:0001/3", 77, -1));
        assertThat(UdDatagramEndpoint.parseMtu(address)).isEqualTo(1024);
        assertThat(UdDatagramEndpoint.parseMtu("127.0.0.1:5/16777215/0/65536")).isEqualTo(65536);
        assertThat(UdDatagramEndpoint.parse("127.0.0.1:5/16777215/0/256").qpNumber()).isEqualTo(0xFFFFFF);
    }

    @Test
    void shouldReleaseEveryRegistrationOnClose() throws IOException
    {
        final SoftVerbsContext context = context();
        final UdDatagramEndpoint a = new UdDatagramEndpoint(context, 256, 8, 8, QKEY);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        a.resolve(b.localAddress());
        assertThat(context.registrations()).isEqualTo(2);
        a.close();
        a.close();
        assertThat(context.registrations()).isZero();
        assertThatThrownBy(() -> a.poll(new Received(), 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldSendAHeaderGatheredWithAPayloadLeftInTheRegisteredSendRegion() throws IOException
    {
        final SoftVerbsContext context = context();
        final UdDatagramEndpoint a = endpoint(context, 8, 8);
        final UdDatagramEndpoint b = endpoint(context(), 8, 8);
        final int peer = a.resolve(b.localAddress());
        final UnsafeBuffer region = a.allocateSendRegion(4096);
        assertThat(region).isNotNull();
        assertThat(a.allocateSendRegion(4096)).as("one region per endpoint").isNull();
        assertThat(context.registrations()).isEqualTo(3);

        final byte[] payload = fill(200, 3);
        region.putBytes(1000, payload);
        final UnsafeBuffer header = new UnsafeBuffer(new byte[16]);
        header.putLong(0, 0x1122334455667788L);
        header.putLong(8, -1L);
        assertThat(a.sendFromRegion(peer, header, 0, 16, 1000, 200)).isTrue();
        assertThat(a.sendFromRegion(peer, header, 0, 16, 1000, 200)).isTrue(); // the same stored payload again
        assertThat(a.sendsPosted()).isEqualTo(2);
        final Received atB = new Received();
        await(() ->
        {
            a.poll(new Received(), 8);
            b.poll(atB, 8);
            return atB.payloads.size() == 2 && a.sendsCompleted() == 2;
        }, "both gathered datagrams and their completions");
        for (final byte[] datagram : atB.payloads)
        {
            assertThat(datagram).hasSize(216);
            final UnsafeBuffer received = new UnsafeBuffer(datagram);
            assertThat(received.getLong(0)).isEqualTo(0x1122334455667788L);
            assertThat(received.getLong(8)).isEqualTo(-1L);
            final byte[] tail = new byte[200];
            received.getBytes(16, tail);
            assertThat(tail).isEqualTo(payload);
        }
        assertThat(a.regionSends()).isEqualTo(2);
        assertThat(a.datagramsSent()).isEqualTo(2);

        assertThatThrownBy(() -> a.sendFromRegion(peer, header, 0, 16, 4000, 200))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("send region");
        assertThatThrownBy(() -> a.sendFromRegion(peer, header, 0, 16, 0, 256))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.sendFromRegion(0, header, 0, 16, 0, 10))
            .isInstanceOf(UnsupportedOperationException.class);
        a.close();
        assertThat(context.registrations()).isZero();
    }

    // ------------------------------------------------------------------------------------ MTU and error completions

    @Test
    void shouldTakeADatagramLongerThanItsOwnInAnMtuSizedSlotWithoutFailingTheReceive() throws IOException
    {
        final UdDatagramEndpoint small = endpoint(context(), 256, 4, 4, Runnable::run);
        final UdDatagramEndpoint large = endpoint(context(), 4096, 4, 4, Runnable::run);
        final int smallAtLarge = large.resolve(small.localAddress());
        final int largeAtSmall = small.resolve(large.localAddress());

        // 3,000 bytes: beyond small's datagrams, within its port's MTU, so its slot takes them.
        fill(3000, 1);
        assertThat(large.send(smallAtLarge, message, 0, 3000)).isTrue();
        final Received received = new Received();
        await(() -> small.poll(received, 4) >= 0 && small.longDatagrams() == 1, "the long datagram, dropped");
        assertThat(received.payloads).isEmpty();
        assertThat(small.receiveErrors()).isZero();
        assertThat(small.recoveries()).isZero();
        assertThat(roundTrip(large, smallAtLarge, small, 200, 2)).isEqualTo(largeAtSmall);
    }

    @Test
    void shouldRecoverFromAReceiveTheDeviceFailedAndKeepServing() throws IOException
    {
        // A forger whose port carries 8,192 bytes sends to an endpoint whose port carries 1,024: only a datagram
        // longer than the receiver's MTU can overrun its slots, so it takes a sender on another fabric's terms.
        final SoftVerbsContext receiverDevice = context(provider.withMtu(1024), "127.0.0.1");
        final SoftVerbsContext forgerDevice = context(provider.withMtu(8192), "127.0.0.1");
        final UdDatagramEndpoint receiver = endpoint(receiverDevice, 1024, 8, 4, Runnable::run);
        final UdDatagramEndpoint peer = endpoint(context(provider.withMtu(1024), "127.0.0.1"), 1024, 8, 4,
            Runnable::run);
        final int peerAtReceiver = receiver.resolve(peer.localAddress());
        final int receiverAtPeer = peer.resolve(receiver.localAddress());
        final Forger forger = new Forger(forgerDevice, receiver);
        final int number = receiver.qpNumber();

        for (int round = 1; round <= 3; round++)
        {
            forger.send(3000);
            final int expected = round;
            await(() -> receiver.poll(new Received(), 8) >= 0 && receiver.recoveries() == expected,
                "recovery " + round);
            assertThat(receiver.receiveErrors()).isGreaterThanOrEqualTo(round);
            assertThat(receiver.qpNumber()).isEqualTo(number);
            assertThat(receiver.localAddress()).contains("/" + number + "/");
            assertThat(roundTrip(peer, receiverAtPeer, receiver, 1000, round)).isEqualTo(peerAtReceiver);
            assertThat(roundTrip(receiver, peerAtReceiver, peer, 500, round)).isEqualTo(receiverAtPeer);
        }
        // the last datagram's send completion is reaped by the receiver's next poll
        await(() -> receiver.poll(new Received(), 8) >= 0 && receiver.freeSendSlots() == 4, "every send slot back");
        assertThat(receiver.sendErrors()).isZero();
        assertThat(receiver.sendsCompleted()).isEqualTo(receiver.sendsPosted());
    }

    @Test
    void shouldRecoverFromASendTheDeviceFailedAndFreeItsSlots() throws IOException
    {
        final FaultyVerbsContext faulty = new FaultyVerbsContext(context());
        final UdDatagramEndpoint a = endpoint(faulty, 256, 8, 4, Runnable::run);
        final UdDatagramEndpoint b = endpoint(context(), 256, 8, 4, Runnable::run);
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());

        // The first of three sends carries a local key the device does not know: it fails, the queue pair goes to
        // ERROR and flushes the others.
        faulty.spoilSends = 1;
        fill(64, 1);
        for (int i = 0; i < 3; i++)
        {
            assertThat(a.send(bAtA, message, 0, 64)).isTrue();
        }
        assertThat(a.freeSendSlots()).isEqualTo(1);
        await(() -> a.poll(new Received(), 8) >= 0 && a.recoveries() == 1, "the recovery");
        assertThat(a.sendErrors()).isGreaterThanOrEqualTo(1);
        assertThat(faulty.recoveries).isEqualTo(1);
        assertThat(a.freeSendSlots()).isEqualTo(4);
        assertThat(a.sendsCompleted()).isEqualTo(a.sendsPosted()).isEqualTo(3);

        assertThat(roundTrip(a, bAtA, b, 100, 2)).isEqualTo(aAtB);
        assertThat(roundTrip(b, aAtB, a, 100, 3)).isEqualTo(bAtA);
        assertThat(a.recoveries()).isEqualTo(1);
    }

    @Test
    void shouldNeverPostADatagramLongerThanThePeersMtu() throws IOException
    {
        final UdDatagramEndpoint a = endpoint(context(), 2048, 4, 4, Runnable::run);
        final UdDatagramEndpoint b = endpoint(context(provider.withMtu(1024), "127.0.0.1"), 1024, 4, 4, Runnable::run);
        assertThat(b.localAddress()).endsWith("/1024");
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());

        fill(1500, 1);
        assertThat(a.send(bAtA, message, 0, 1500)).as("accepted, and lost").isTrue();
        assertThat(a.oversizeDatagrams()).isEqualTo(1);
        assertThat(a.datagramsSent()).isZero();
        assertThat(a.sendsPosted()).isEqualTo(1);
        assertThat(a.sendsCompleted()).as("nothing was posted before it: done at once").isEqualTo(1);
        final UnsafeBuffer region = a.allocateSendRegion(2048);
        assertThat(a.sendFromRegion(bAtA, message, 0, 24, 0, 1100)).isTrue();
        assertThat(a.oversizeDatagrams()).isEqualTo(2);

        // A lost datagram completes in posting order with the sends before it.
        assertThat(a.send(bAtA, message, 0, 1024)).isTrue();
        assertThat(a.send(bAtA, message, 0, 1025)).isTrue();
        assertThat(a.sendsPosted()).isEqualTo(4);
        assertThat(a.sendsCompleted()).isEqualTo(2);
        final Received atB = new Received();
        await(() ->
        {
            a.poll(new Received(), 4);
            b.poll(atB, 4);
            return a.sendsCompleted() == 4 && atB.payloads.size() == 1;
        }, "the one datagram that fits, and both completions");
        assertThat(atB.payloads.get(0)).hasSize(1024);
        assertThat(atB.peers.get(0)).isEqualTo(aAtB);
        assertThat(b.receiveErrors() + b.longDatagrams()).isZero();
        assertThat(region).isNotNull();

        // A peer's address may name a smaller MTU than its port's: it is what the sender honours.
        final String smaller = b.localAddress().substring(0, b.localAddress().lastIndexOf('/')) + "/512";
        final int bSmallAtA = a.resolve(smaller);
        assertThat(a.send(bSmallAtA, message, 0, 513)).isTrue();
        assertThat(a.oversizeDatagrams()).isEqualTo(4);
        assertThat(roundTrip(a, bSmallAtA, b, 512, 5)).isEqualTo(aAtB);
    }

    // ------------------------------------------------------------------------------------ address handles

    @Test
    void shouldHandOutThePeerAtOnceAndBackPressureUntilItsAddressHandleIsMade() throws IOException
    {
        final FaultyVerbsContext faulty = new FaultyVerbsContext(context());
        final UdDatagramEndpoint a = endpoint(faulty, 256, 4, 4, later);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        final int aAtB = b.resolve(a.localAddress());

        final int bAtA = a.resolve(b.localAddress());
        assertThat(queued).hasSize(1);
        assertThat(faulty.addressHandlesMade).hasValue(0);
        assertThat(a.isReachable(bAtA)).isFalse();
        assertThat(a.resolve(b.localAddress())).isEqualTo(bAtA);
        assertThat(queued).as("one address handle per peer").hasSize(1);
        fill(64, 1);
        assertThat(a.send(bAtA, message, 0, 64)).as("back-pressure").isFalse();
        final UnsafeBuffer region = a.allocateSendRegion(1024);
        assertThat(a.sendFromRegion(bAtA, message, 0, 16, 0, 48)).isFalse();
        assertThat(region).isNotNull();
        assertThat(a.sendsPosted()).isZero();
        assertThat(a.freeSendSlots()).isEqualTo(4);

        runQueued();
        assertThat(faulty.addressHandlesMade).hasValue(1);
        assertThat(a.isReachable(bAtA)).isTrue();
        assertThat(roundTrip(a, bAtA, b, 64, 2)).isEqualTo(aAtB);
    }

    @Test
    void shouldMakeAddressHandlesOffTheCallingThreadAndPublishThemWhole() throws Exception
    {
        final java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newSingleThreadExecutor();
        try
        {
            final FaultyVerbsContext faulty = new FaultyVerbsContext(context());
            final UdDatagramEndpoint a = endpoint(faulty, 256, 4, 4, executor);
            final UdDatagramEndpoint b = endpoint(context(), 4, 4);
            final int aAtB = b.resolve(a.localAddress());
            final int bAtA = a.resolve(b.localAddress());
            await(() -> a.isReachable(bAtA), "the address handle");
            assertThat(faulty.addressHandleThreads).hasSize(1).doesNotContain(Thread.currentThread());
            assertThat(roundTrip(a, bAtA, b, 64, 1)).isEqualTo(aAtB);
        }
        finally
        {
            executor.shutdownNow();
        }
    }

    @Test
    void shouldLoseDatagramsToAPeerWhoseAddressHandleFailedAndTryAgainOnResolve() throws IOException
    {
        final FaultyVerbsContext faulty = new FaultyVerbsContext(context());
        final UdDatagramEndpoint a = endpoint(faulty, 256, 4, 4, later);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        final int aAtB = b.resolve(a.localAddress());

        faulty.failAddressHandles = true;
        final int bAtA = a.resolve(b.localAddress());
        runQueued();
        assertThat(a.isReachable(bAtA)).isFalse();
        assertThat(a.unreachableCause(bAtA)).hasMessageContaining("No route to host");
        fill(64, 1);
        // Not back-pressure, which would hold the path open forever: lost, so the protocol sees a silent peer.
        assertThat(a.send(bAtA, message, 0, 64)).isTrue();
        assertThat(a.send(bAtA, message, 0, 64)).isTrue();
        assertThat(a.unreachableDatagrams()).isEqualTo(2);
        assertThat(a.datagramsSent()).isZero();
        assertThat(a.sendsCompleted()).isEqualTo(a.sendsPosted()).isEqualTo(2);

        faulty.failAddressHandles = false;
        assertThat(a.resolve(b.localAddress())).isEqualTo(bAtA);
        assertThat(a.isReachable(bAtA)).isFalse();
        assertThat(a.unreachableCause(bAtA)).isNull();
        assertThat(a.send(bAtA, message, 0, 64)).as("being made again: back-pressure").isFalse();
        runQueued();
        assertThat(roundTrip(a, bAtA, b, 64, 2)).isEqualTo(aAtB);
    }

    @Test
    void shouldThrowFromResolveWhenTheAddressHandleFailsOnTheCallingThread() throws IOException
    {
        final FaultyVerbsContext faulty = new FaultyVerbsContext(context());
        final UdDatagramEndpoint a = endpoint(faulty, 256, 4, 4, Runnable::run);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        faulty.failAddressHandles = true;
        assertThatThrownBy(() -> a.resolve(b.localAddress())).isInstanceOf(UncheckedIOException.class)
            .hasMessageContaining("No route to host");
        assertThatThrownBy(() -> a.resolve(b.localAddress())).isInstanceOf(UncheckedIOException.class);
        faulty.failAddressHandles = false;
        final int bAtA = a.resolve(b.localAddress());
        assertThat(a.isReachable(bAtA)).isTrue();

        final UdDatagramEndpoint refusing = endpoint(context(), 256, 4, 4, task ->
        {
            throw new RejectedExecutionException("shut down");
        });
        assertThatThrownBy(() -> refusing.resolve(b.localAddress())).isInstanceOf(UncheckedIOException.class)
            .hasMessageContaining("refused");
    }

    @Test
    void shouldWaitOnCloseForAnAddressHandleBeingMade() throws Exception
    {
        final SoftVerbsContext device = context();
        final FaultyVerbsContext blocking = new FaultyVerbsContext(device);
        blocking.hold = new CountDownLatch(1);
        final Thread maker = new Thread(this::runQueuedOnce);
        final UdDatagramEndpoint a = endpoint(blocking, 256, 4, 4, later);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        a.resolve(b.localAddress());
        maker.start();
        assertThat(blocking.holding.await(TIMEOUT_NS, TimeUnit.NANOSECONDS)).isTrue();

        final Thread closer = new Thread(a::close);
        closer.start();
        await(() -> closer.getState() == Thread.State.TIMED_WAITING, "close waiting for the address handle");
        assertThat(device.registrations()).as("nothing released yet").isEqualTo(2);
        blocking.hold.countDown();
        closer.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS));
        maker.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS));
        assertThat(closer.isAlive()).isFalse();
        assertThat(device.registrations()).isZero();
        assertThat(blocking.addressHandlesMade).hasValue(1);
    }

    private void runQueuedOnce()
    {
        queued.poll().run();
    }

    // ------------------------------------------------------------------------------------ hot path

    @Test
    void shouldPostTheReceivesOfOnePollAsOneChain() throws IOException
    {
        final UdDatagramEndpoint a = endpoint(context(), 4, 64);
        final FaultyVerbsContext counting = new FaultyVerbsContext(context());
        final UdDatagramEndpoint b = endpoint(counting, 256, 64, 4, Runnable::run);
        assertThat(counting.singleReceivePosts).isZero();
        assertThat(counting.chainedReceives).isEqualTo(64);
        assertThat(counting.receiveChains).isEqualTo(1);

        final int peer = a.resolve(b.localAddress());
        fill(100, 1);
        for (int i = 0; i < 40; i++)
        {
            assertThat(a.send(peer, message, 0, 100)).isTrue();
        }
        final Received atB = new Received();
        final int[] pollsThatDelivered = new int[1];
        await(() ->
        {
            a.poll(new Received(), 64);
            if (b.poll(atB, 64) > 0)
            {
                pollsThatDelivered[0]++;
            }
            return atB.payloads.size() == 40;
        }, "40 datagrams");
        assertThat(counting.singleReceivePosts).isZero();
        assertThat(counting.chainedReceives - 64).as("every slot posted again").isEqualTo(40);
        assertThat(counting.receiveChains - 1).as("one chain per poll").isEqualTo(pollsThatDelivered[0]);
    }

    @Test
    void shouldNotAllocateOnSendOrPollOnceWarm() throws IOException
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        final FaultyVerbsContext faulty = new FaultyVerbsContext(context());
        final UdDatagramEndpoint a = endpoint(faulty, 256, 64, 16, later);
        final UdDatagramEndpoint b = endpoint(context(), 64, 16);
        final int peer = a.resolve(b.localAddress());
        runQueued();
        final int aAtB = b.resolve(a.localAddress());
        // Another host with a's QP number: b names a's datagrams by GID and QP number, from the GRH.
        b.resolve("127.0.0.2:7/" + a.qpNumber() + "/" + QKEY + "/4096");
        faulty.failAddressHandles = true;
        final int unreachable = a.resolve(b.localAddress().replace("/" + QKEY + "/", "/" + (QKEY + 2) + "/"));
        runQueued();
        final int pending = a.resolve(b.localAddress().replace("/" + QKEY + "/", "/" + (QKEY + 1) + "/"));
        assertThat(a.isReachable(pending)).isFalse();
        assertThat(a.unreachableCause(unreachable)).isNotNull();

        final long[] count = new long[3];
        final DatagramEndpoint.DatagramHandler counter = (p, buffer, offset, length) ->
        {
            count[0] += buffer.getByte(offset);
            count[p == aAtB ? 1 : 2]++;
        };
        fill(128, 1);
        message.putByte(0, (byte)1);
        final UnsafeBuffer region = a.allocateSendRegion(1024);
        region.putBytes(0, message, 0, 128);
        for (int round = 0; round < 2; round++) // warm up, then measure: JIT and the soft device's own buffers
        {
            final int datagrams = round == 0 ? 5_000 : 2_000;
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            exchange(a, b, peer, counter, count, datagrams, false);
            exchange(a, b, peer, counter, count, datagrams, true);
            for (int i = 0; i < datagrams; i++)
            {
                if (a.send(pending, message, 0, 128) || a.sendFromRegion(pending, message, 0, 16, 16, 112) ||
                    !a.send(unreachable, message, 0, 128))
                {
                    throw new AssertionError("a pending peer back-pressures, an unreachable one loses");
                }
            }
            final long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            if (round == 1)
            {
                assertThat(allocated).as("bytes allocated by 2,000 sends, 2,000 sends from the region, their polls, " +
                    "and 2,000 sends each to a pending and an unreachable peer").isZero();
            }
        }
        assertThat(count[1]).as("every datagram named a's").isEqualTo(14_000);
        assertThat(count[2]).isZero();
        assertThat(a.unreachableDatagrams()).isEqualTo(7_000);
    }

    /**
     * Sends {@code datagrams} one by one (copied, or a 16-byte header gathered with 112 bytes of the send region),
     * polling both ends until each has arrived; no allocation here.
     */
    private void exchange(
        final UdDatagramEndpoint a,
        final UdDatagramEndpoint b,
        final int peer,
        final DatagramEndpoint.DatagramHandler counter,
        final long[] count,
        final int datagrams,
        final boolean fromRegion)
    {
        final long deadlineNs = System.nanoTime() + EXCHANGE_TIMEOUT_NS;
        for (int i = 0; i < datagrams; i++)
        {
            while (!(fromRegion ? a.sendFromRegion(peer, message, 0, 16, 16, 112) : a.send(peer, message, 0, 128)))
            {
                a.poll(counter, 16);
            }
            final long target = count[0] + 1;
            while (count[0] < target)
            {
                b.poll(counter, 16);
                a.poll(counter, 16);
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new AssertionError("timed out at datagram " + i);
                }
                Thread.onSpinWait();
            }
        }
    }

    /** A raw UD queue pair that sends whatever length it is told to an endpoint: the device does not stop it. */
    private static final class Forger
    {
        private final QueuePair queuePair;
        private final CompletionQueue sendCq;
        private final MemoryRegion region;
        private final AddressHandle route;
        private final UdAddress target;
        private final SendWorkRequest request = new SendWorkRequest();
        private final WorkCompletion[] completion = {new WorkCompletion()};

        Forger(final SoftVerbsContext device, final UdDatagramEndpoint victim) throws IOException
        {
            final ProtectionDomain pd = device.allocateProtectionDomain();
            sendCq = device.createCompletionQueue(4);
            queuePair = device.createUdQueuePair(new QueuePairConfig(pd, sendCq, sendCq, 4, 1, 0, 0, 0, QKEY));
            region = pd.register(ByteBuffer.allocateDirect(8192).order(ByteOrder.nativeOrder()), Access.LOCAL_WRITE);
            target = UdDatagramEndpoint.parse(victim.localAddress());
            route = device.createAddressHandle(pd, target);
        }

        void send(final int length) throws IOException
        {
            queuePair.postSend(request.clear().wrId(1).opcode(Opcode.SEND).flags(SendWorkRequest.SIGNALED)
                .addSge(region.address(), length, region.lkey()).ud(route, target.qpNumber(), target.qkey()));
            await(() ->
            {
                try
                {
                    return sendCq.poll(completion) == 1;
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }, "the forged datagram sent");
        }
    }
}
