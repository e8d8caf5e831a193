package io.rivulet.transport.rdma.ud;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The UD endpoint on the soft provider (in-process fabric): delivery, peers, back-pressure, limits, close. */
class UdDatagramEndpointTest
{
    static final int QKEY = 0x5D5D;
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    private final SoftVerbsProvider provider = new SoftVerbsProvider(new SoftFabric());
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[512]);

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
        final SoftVerbsContext context = provider.open(InetAddress.getLoopbackAddress());
        resources.add(context);
        return context;
    }

    private UdDatagramEndpoint endpoint(final SoftVerbsContext context, final int receiveSlots, final int sendSlots)
        throws IOException
    {
        final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(context, 256, receiveSlots, sendSlots, QKEY);
        resources.add(endpoint);
        return endpoint;
    }

    static void await(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
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

    @Test
    void shouldDeliverBothWaysWithThePeerHandleAndKeepReceivesPosted() throws IOException
    {
        final UdDatagramEndpoint a = endpoint(context(), 4, 4);
        final UdDatagramEndpoint b = endpoint(context(), 4, 4);
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());
        assertThat(a.resolve(b.localAddress())).isEqualTo(bAtA);
        assertThat(a.peerCount()).isEqualTo(1);
        assertThat(b.localAddress()).endsWith("/" + b.qpNumber() + "/" + QKEY);

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
        for (final String bad : new String[] {"", "nonsense", "127.0.0.1:1/x/1", "/5/6", "127.0.0.1:1/1/1"})
        {
            assertThatThrownBy(() -> a.resolve(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(a.peerCount()).isEqualTo(1);
        // A maximum-length datagram still goes through.
        final byte[] sent = fill(256, 3);
        assertThat(a.send(peer, message, 0, 256)).isTrue();
        final Received atB = new Received();
        await(() -> b.poll(atB, 4) > 0, "the full-length datagram");
        assertThat(atB.payloads.get(0)).isEqualTo(sent);
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

    @Test
    void shouldNotAllocateOnSendOrPollOnceWarm() throws IOException
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        threads.setThreadAllocatedMemoryEnabled(true);
        final UdDatagramEndpoint a = endpoint(context(), 64, 16);
        final UdDatagramEndpoint b = endpoint(context(), 64, 16);
        final int peer = a.resolve(b.localAddress());
        b.resolve(a.localAddress());
        final long[] count = new long[1];
        final DatagramEndpoint.DatagramHandler counter = (p, buffer, offset, length) -> count[0] += buffer.getByte(offset);
        fill(128, 1);
        message.putByte(0, (byte)1);
        final UnsafeBuffer region = a.allocateSendRegion(1024);
        region.putBytes(0, message, 0, 128);
        exchange(a, b, peer, counter, count, 5_000, false); // warm up: JIT and the soft device's own buffers
        exchange(a, b, peer, counter, count, 5_000, true);
        final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        exchange(a, b, peer, counter, count, 2_000, false);
        exchange(a, b, peer, counter, count, 2_000, true);
        final long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertThat(allocated).as("bytes allocated by 2,000 sends, 2,000 sends from the region and their polls").isZero();
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
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
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
}
