package io.rivulet.transport.rdma.disni;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.transport.rdma.HardwareRdma;
import io.rivulet.transport.rdma.jni.NativeLibraryTestSupport;
import io.rivulet.transport.rdma.ud.UdDatagramEndpoint;
import io.rivulet.transport.rdma.verbs.VerbsContext;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The UD datagram endpoint the topics' datagram channels run on, over DiSNI contexts on a real device (the UD queue
 * pair, address handles and posting through the JNI extension, completions through DiSNI's poll): datagrams up to the
 * MTU both ways, copied or gathered from a header and the send region as a topic publisher sends them, every one
 * delivered intact and named by its sender, with never more in flight than the receiver has receives posted (so the
 * device has no reason to drop one). Needs libdisni, librivulet-verbs and an RDMA device
 * (see {@link DisniHardwareTest}); skipped with the reason otherwise.
 */
@Tag("rdma-hardware")
class DisniUdEndpointHardwareTest
{
    private static final int RECEIVE_SLOTS = 64;
    private static final int SEND_SLOTS = 16;
    private static final int QKEY = 0x5249_5654;
    private static final long TIMEOUT_NS = HardwareRdma.timeoutNs(60);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private VerbsContext contextA;
    private VerbsContext contextB;

    @BeforeEach
    void open() throws IOException
    {
        final DisniVerbsProvider provider = new DisniVerbsProvider();
        final var availability = provider.availability();
        assumeTrue(availability.available(), () -> "disni unavailable: " + availability.reason());
        NativeLibraryTestSupport.requireLibrary();
        final InetAddress address = HardwareRdma.address();
        assumeTrue(null != address, "no IPv4 address of an RDMA interface found: pass -D" + HardwareRdma.ADDRESS_PROP +
            "=<ip>");
        contextA = provider.open(address);
        resources.add(contextA);
        contextB = provider.open(address);
        resources.add(contextB);
    }

    @AfterEach
    void close() throws Exception
    {
        Collections.reverse(resources);
        for (final AutoCloseable resource : resources)
        {
            resource.close();
        }
    }

    @Test
    void shouldDeliverMtuSizedDatagramsBothWaysIntactAndNamedBySender() throws IOException
    {
        exchangeBothWays(false);
    }

    /** As the topic publisher sends: a header copied per datagram, gathered with a payload from the send region. */
    @Test
    void shouldDeliverDatagramsGatheredFromTheSendRegion() throws IOException
    {
        exchangeBothWays(true);
    }

    private void exchangeBothWays(final boolean fromRegion) throws IOException
    {
        final int mtu = contextA.udMtu();
        assertThat(mtu).isBetween(256, 4096);
        final UdDatagramEndpoint a = endpoint(contextA, mtu);
        final UdDatagramEndpoint b = endpoint(contextB, mtu);
        final int bAtA = a.resolve(b.localAddress());
        final int aAtB = b.resolve(a.localAddress());

        final Receiver atB = new Receiver(aAtB);
        final Receiver atA = new Receiver(bAtA);
        final int count = 3_000;
        stream(a, bAtA, b, atB, count, mtu, fromRegion);
        stream(b, aAtB, a, atA, count, mtu, fromRegion);

        assertThat(atB.problems).isEmpty();
        assertThat(atA.problems).isEmpty();
        assertThat(atB.received).isEqualTo(count);
        assertThat(atA.received).isEqualTo(count);
        for (final UdDatagramEndpoint endpoint : new UdDatagramEndpoint[] {a, b})
        {
            assertThat(endpoint.sendErrors()).as("send errors at %s", endpoint).isZero();
            assertThat(endpoint.receiveErrors()).as("receive errors at %s", endpoint).isZero();
            assertThat(endpoint.unknownPeerDatagrams()).isZero();
            assertThat(endpoint.emptyDatagrams()).isZero();
            assertThat(endpoint.sendsCompleted()).isEqualTo(endpoint.sendsPosted());
            assertThat(endpoint.regionSends()).isEqualTo(fromRegion ? count : 0);
        }
    }

    /**
     * Sends {@code count} datagrams of 1 to {@code mtu} bytes (from the region: a 16-byte header and the rest from
     * the send region), never more in flight than half the receives posted.
     */
    private void stream(
        final UdDatagramEndpoint from,
        final int peer,
        final UdDatagramEndpoint to,
        final Receiver receiver,
        final int count,
        final int mtu,
        final boolean fromRegion)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[mtu]);
        final int regionLength = 16 * mtu;
        final UnsafeBuffer region = fromRegion ? from.allocateSendRegion(regionLength) : null;
        if (fromRegion)
        {
            assertThat(region).as("the send region").isNotNull();
            for (int i = 0; i < regionLength; i++)
            {
                region.putByte(i, (byte)(i * 7 + 3));
            }
        }
        final DatagramEndpoint.DatagramHandler ignore = (p, buffer, offset, length) -> { };
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        final long before = receiver.received;
        int sent = 0;
        while (receiver.received - before < count)
        {
            if (sent < count && sent - (receiver.received - before) < RECEIVE_SLOTS / 2)
            {
                final int length = fromRegion ?
                    (sent % 7 == 0 ? mtu : 17 + (sent * 131) % (mtu - 16)) :
                    (sent % 7 == 0 ? mtu : 1 + (sent * 131) % mtu);
                final int headerLength = fromRegion ? 16 : length;
                for (int i = 0; i < headerLength; i++)
                {
                    message.putByte(i, (byte)(sent + i));
                }
                if (headerLength >= Integer.BYTES)
                {
                    message.putInt(0, sent);
                }
                final byte[] expected = new byte[length];
                message.getBytes(0, expected, 0, headerLength);
                final int regionOffset = (sent * 61) % (regionLength - mtu);
                if (fromRegion)
                {
                    region.getBytes(regionOffset, expected, headerLength, length - headerLength);
                }
                final boolean posted = fromRegion ?
                    from.sendFromRegion(peer, message, 0, headerLength, regionOffset, length - headerLength) :
                    from.send(peer, message, 0, length);
                if (posted)
                {
                    receiver.expect(sent, expected);
                    sent++;
                }
            }
            from.poll(ignore, 16);
            to.poll(receiver, 16);
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("timed out: " + sent + " sent, " + (receiver.received - before) + " received, " + from + " " +
                    "send errors " + from.sendErrors() + ", " + to + " receive errors " + to.receiveErrors());
            }
        }
    }

    private UdDatagramEndpoint endpoint(final VerbsContext context, final int mtu) throws IOException
    {
        final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(context, mtu, RECEIVE_SLOTS, SEND_SLOTS, QKEY);
        resources.add(endpoint);
        return endpoint;
    }

    /** Checks each datagram against what was sent, in order (one sender, one path). */
    private static final class Receiver implements DatagramEndpoint.DatagramHandler
    {
        private final int expectedPeer;
        private final byte[][] expected = new byte[1 << 16][];
        final List<String> problems = new ArrayList<>();
        long received;
        private int nextExpected;
        private int sentSoFar;

        Receiver(final int expectedPeer)
        {
            this.expectedPeer = expectedPeer;
        }

        void expect(final int sequence, final byte[] bytes)
        {
            expected[sequence & (expected.length - 1)] = bytes;
            sentSoFar = sequence + 1;
        }

        @Override
        public void onDatagram(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            final int sequence = nextExpected++;
            received++;
            if (peer != expectedPeer)
            {
                problems.add("datagram " + sequence + " from peer " + peer + ", expected " + expectedPeer);
            }
            final byte[] bytes = sequence < sentSoFar ? expected[sequence & (expected.length - 1)] : null;
            if (null == bytes || length != bytes.length)
            {
                problems.add("datagram " + sequence + " of " + length + " bytes, expected " +
                    (null == bytes ? "none" : bytes.length));
                return;
            }
            for (int i = 0; i < length; i++)
            {
                if (buffer.getByte(offset + i) != bytes[i])
                {
                    problems.add("datagram " + sequence + " differs at byte " + i);
                    return;
                }
            }
        }
    }
}
