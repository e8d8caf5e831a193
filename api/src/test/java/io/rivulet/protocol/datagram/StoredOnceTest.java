package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramEndpoint;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SwiftSettings;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A publisher over an endpoint with a send region: each message is stored once, in the region, and every path's
 * datagram gathers its own header with that payload. The "device" here reads the payload only when a send
 * completes, as a NIC does after the post returned, so a slot reused too early would show up as wrong bytes.
 */
class StoredOnceTest
{
    private static final int PAYLOAD = 32;

    @Test
    void shouldReleaseASlotOnlyWhenEverySendThatReadsItHasCompleted()
    {
        final UnsafeBuffer memory = new UnsafeBuffer(new byte[DatagramRing.bytesFor(4, PAYLOAD)]);
        final DatagramRing ring = new DatagramRing(4, PAYLOAD, memory);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[PAYLOAD]);
        for (int i = 0; i < 4; i++)
        {
            assertThat(ring.append(message, 0, PAYLOAD)).isEqualTo(i);
        }
        ring.posted(0, 1);
        ring.posted(1, 2);
        ring.posted(1, 5); // a retransmission of 1 (send 5), still in flight
        ring.posted(2, 3);

        ring.release(4, 2); // all acknowledged, sends 1..2 done: slot 1 waits for send 5
        assertThat(ring.releasedPosition()).isEqualTo(1);
        ring.release(4, 4);
        assertThat(ring.releasedPosition()).isEqualTo(1);
        ring.release(3, 5); // slot 3 was never sent, but only 0..2 are acknowledged
        assertThat(ring.releasedPosition()).isEqualTo(3);
        ring.release(4, 5);
        assertThat(ring.releasedPosition()).isEqualTo(4);
        assertThatThrownBy(() -> ring.release(4)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldSendEveryPathFromTheOneStoredCopyAndNeverOverwriteAPayloadTheDeviceHasNotRead()
    {
        final DatagramSettings settings = new DatagramSettings().window(64).ringLength(64).maxPayload(PAYLOAD)
            .ackEvery(8).swift(new SwiftSettings().initialWindow(64).maxWindow(64));
        final HeldSendsEndpoint endpoint = new HeldSendsEndpoint();
        final DatagramPublisher publisher = new DatagramPublisher(settings, endpoint);
        assertThat(publisher.ring().isSentInPlace()).isTrue();
        publisher.addSubscriber(0, 11, 0);
        publisher.addSubscriber(1, 22, 0);

        final UnsafeBuffer message = new UnsafeBuffer(new byte[PAYLOAD]);
        long next = 0;
        long nowNs = 1_000;
        for (int round = 0; round < 5; round++)
        {
            while (true)
            {
                message.putLong(0, next);
                message.putLong(PAYLOAD - 8, ~next);
                if (publisher.offer(message, 0, PAYLOAD) < 0)
                {
                    break;
                }
                next++;
            }
            publisher.doWork(nowNs += 1_000);
            final long sentUpTo = next;
            // Both subscribers acknowledge everything before the device has read any of it.
            endpoint.ack(11, (int)sentUpTo, nowNs);
            endpoint.ack(22, (int)sentUpTo, nowNs);
            publisher.doWork(nowNs += 1_000);
            assertThat(publisher.ring().remaining()).as("acknowledged but not yet read by the device").isZero();
            assertThat(publisher.offer(message, 0, PAYLOAD)).isEqualTo(DatagramRing.BACK_PRESSURED);

            endpoint.completeAll(); // the device reads every payload now
            publisher.doWork(nowNs += 1_000);
            assertThat(publisher.ring().remaining()).isEqualTo(64);
        }

        assertThat(endpoint.delivered).hasSize(2 * 5 * 64);
        final long[] expected = new long[2];
        for (final UnsafeBuffer datagram : endpoint.delivered)
        {
            final int path = DatagramHeader.sessionId(datagram, 0) == 11 ? 0 : 1;
            assertThat(DatagramHeader.sequence(datagram, 0)).isEqualTo((int)expected[path]);
            assertThat(DatagramHeader.payloadLength(datagram, 0)).isEqualTo(PAYLOAD);
            assertThat(datagram.getLong(DatagramHeader.DATA_HEADER_LENGTH)).isEqualTo(expected[path]);
            assertThat(datagram.getLong(DatagramHeader.DATA_HEADER_LENGTH + PAYLOAD - 8)).isEqualTo(~expected[path]);
            expected[path]++;
        }
        assertThat(endpoint.copiedSends).isZero();
    }

    /** A posted send: its header was copied, its payload is read from the region on completion. */
    private record Held(byte[] header, int regionOffset, int payloadLength)
    {
    }

    /** An endpoint whose device reads a send's payload only when the test completes it; peers 0 and 1. */
    private static final class HeldSendsEndpoint implements DatagramEndpoint
    {
        final List<UnsafeBuffer> delivered = new ArrayList<>();
        private final ArrayDeque<Held> held = new ArrayDeque<>();
        private final ArrayDeque<UnsafeBuffer> inbound = new ArrayDeque<>();
        private UnsafeBuffer region;
        private long posted;
        private long completed;
        long copiedSends;

        @Override
        public UnsafeBuffer allocateSendRegion(final int length)
        {
            region = new UnsafeBuffer(new byte[length]);
            return region;
        }

        @Override
        public boolean sendFromRegion(
            final int peer, final DirectBuffer header, final int headerOffset, final int headerLength,
            final int regionOffset, final int payloadLength)
        {
            final byte[] headerCopy = new byte[headerLength];
            header.getBytes(headerOffset, headerCopy);
            held.add(new Held(headerCopy, regionOffset, payloadLength)); // the payload stays where it is
            posted++;
            return true;
        }

        @Override
        public long sendsPosted()
        {
            return posted;
        }

        @Override
        public long sendsCompleted()
        {
            return completed;
        }

        void completeAll()
        {
            Held send;
            while ((send = held.poll()) != null)
            {
                final int headerLength = send.header().length;
                final UnsafeBuffer datagram = new UnsafeBuffer(new byte[headerLength + send.payloadLength()]);
                datagram.putBytes(0, send.header());
                datagram.putBytes(headerLength, region, send.regionOffset(), send.payloadLength());
                delivered.add(datagram);
                completed++;
            }
        }

        void ack(final int sessionId, final int cumulative, final long echoNs)
        {
            final UnsafeBuffer ack = new UnsafeBuffer(new byte[DatagramHeader.ACK_LENGTH]);
            DatagramHeader.writeAck(ack, 0, sessionId, cumulative, 0, echoNs, 0);
            inbound.add(ack);
        }

        @Override
        public int maxDatagramLength()
        {
            return DatagramHeader.DATA_HEADER_LENGTH + PAYLOAD;
        }

        @Override
        public String localAddress()
        {
            return "held";
        }

        @Override
        public int resolve(final String address)
        {
            return Integer.parseInt(address);
        }

        @Override
        public boolean send(final int peer, final DirectBuffer buffer, final int offset, final int length)
        {
            copiedSends++;
            return true;
        }

        @Override
        public int poll(final DatagramHandler handler, final int limit)
        {
            int count = 0;
            UnsafeBuffer datagram;
            while (count < limit && (datagram = inbound.poll()) != null)
            {
                handler.onDatagram(DatagramEndpoint.UNKNOWN_PEER, datagram, 0, datagram.capacity());
                count++;
            }
            return count;
        }

        @Override
        public void close()
        {
        }
    }
}
