package io.rivulet.protocol.datagram.multicast;

import io.rivulet.protocol.datagram.LossyDatagramNetwork;
import io.rivulet.spi.MulticastSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * Network bytes are hostile: malformed datagrams, datagrams forged by another host on the group, NAKs and status
 * messages that lie, and a stream whose records break the format are dropped, counted or reported, never thrown, and
 * the honest receivers keep getting every record.
 */
class MulticastHostileInputTest
{
    @Test
    void shouldValidateRandomBytesWithoutThrowingAndAcceptOnlyWellFormedHeaders()
    {
        final SplittableRandom random = new SplittableRandom(3);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        int accepted = 0;
        for (int i = 0; i < 200_000; i++)
        {
            final int length = random.nextInt(1, 80);
            for (int j = 0; j < length; j++)
            {
                buffer.putByte(j, (byte)random.nextInt(256));
            }
            if (random.nextBoolean())
            {
                buffer.putByte(MulticastHeader.VERSION_OFFSET, (byte)MulticastHeader.VERSION);
                buffer.putByte(MulticastHeader.TYPE_OFFSET, (byte)random.nextInt(1, 5));
            }
            final int type = MulticastHeader.validate(buffer, 0, length, 1400);
            if (type >= 0)
            {
                accepted++;
                switch (type)
                {
                    case MulticastHeader.TYPE_DATA:
                        assertThat(length).isEqualTo(MulticastHeader.DATA_HEADER_LENGTH + MulticastHeader.dataLength(buffer, 0));
                        break;
                    case MulticastHeader.TYPE_NAK:
                        assertThat(length).isEqualTo(MulticastHeader.NAK_LENGTH);
                        assertThat(MulticastHeader.nakLength(buffer, 0)).isPositive();
                        break;
                    case MulticastHeader.TYPE_STATUS:
                        assertThat(MulticastHeader.received(buffer, 0)).isGreaterThanOrEqualTo(MulticastHeader.position(buffer, 0));
                        break;
                    default:
                        assertThat(length).isEqualTo(MulticastHeader.LOST_LENGTH);
                }
                assertThat(MulticastHeader.position(buffer, 0)).isNotNegative();
            }
        }
        assertThat(accepted).isPositive();
    }

    @Test
    void shouldDropMalformedAndForgedDatagramsAndKeepDelivering()
    {
        final LossyDatagramNetwork network = new LossyDatagramNetwork(5, 1500, 4096);
        final MulticastHarness harness = new MulticastHarness(network, new MulticastSettings(), 1 << 20);
        final MulticastHarness.Node honest = harness.addReceiver();
        final LossyDatagramNetwork.Endpoint forger = network.newEndpoint();
        final int group = forger.joinGroup(MulticastHarness.GROUP, false);
        final int toReceiver = forger.resolve(honest.networkEndpoint.localAddress());
        final int toPublisher = forger.resolve(harness.publisherEndpoint.localAddress());
        harness.publishAndDrain(1_000, 1_000_000);
        forger.poll((peer, buffer, offset, length) -> { }, 1); // completes its join

        final UnsafeBuffer datagram = new UnsafeBuffer(new byte[1500]);
        final long position = harness.sender.position();
        // DATA of the right session from the wrong host, to the group and straight to the receiver.
        MulticastHeader.writeData(datagram, 0, 0, harness.sender.sessionId(), position, 16, 1);
        assertThat(forger.send(group, datagram, 0, MulticastHeader.DATA_HEADER_LENGTH + 16)).isTrue();
        assertThat(forger.send(toReceiver, datagram, 0, MulticastHeader.DATA_HEADER_LENGTH + 16)).isTrue();
        // LOST for the honest receiver, forged.
        final int lost = MulticastHeader.writeLost(datagram, 0, harness.sender.sessionId(), honest.state.id(), position + 1000);
        forger.send(toReceiver, datagram, 0, lost);
        // Garbage of every length, to both planes.
        for (int length = 1; length < 64; length++)
        {
            datagram.setMemory(0, length, (byte)0x7F);
            forger.send(toReceiver, datagram, 0, length);
            forger.send(toPublisher, datagram, 0, length);
        }
        // A NAK and a status in the honest receiver's name, from the forger's address.
        final int nak = MulticastHeader.writeNak(datagram, 0, harness.sender.sessionId(), honest.state.id(), 0, 100);
        forger.send(toPublisher, datagram, 0, nak);
        final int status = MulticastHeader.writeStatus(datagram, 0, harness.sender.sessionId(), honest.state.id(),
            Long.MAX_VALUE / 2, Long.MAX_VALUE / 2, 1 << 30, 0, 0);
        forger.send(toPublisher, datagram, 0, status);

        harness.publishAndDrain(1_000, 1_000_000);
        assertThat(honest.delivered).isEqualTo(2_000);
        assertThat(honest.image.lostBytes()).isZero();
        assertThat(honest.plane.foreignDatagrams()).isGreaterThanOrEqualTo(3);
        assertThat(honest.plane.malformedDatagrams()).isGreaterThanOrEqualTo(60);
        assertThat(harness.senders.malformedDatagrams()).isGreaterThanOrEqualTo(60);
        assertThat(harness.sender.unknownReceivers()).isEqualTo(2);
        assertThat(honest.state.consumed()).isLessThanOrEqualTo(harness.sender.position());
    }

    @Test
    void shouldClampAReceiversLiesAboutWhatItConsumed()
    {
        final LossyDatagramNetwork network = new LossyDatagramNetwork(5, 1500, 4096);
        final MulticastHarness harness = new MulticastHarness(network, new MulticastSettings(), 1 << 20);
        final MulticastHarness.Node liar = harness.addReceiver();
        harness.publishAndDrain(1_000, 1_000_000);
        final UnsafeBuffer datagram = new UnsafeBuffer(new byte[64]);
        final int publisher = liar.networkEndpoint.resolve(harness.publisherEndpoint.localAddress());
        final long position = harness.sender.position();

        // A status claiming far more than was sent, then one claiming less than before; a NAK for unsent bytes.
        int length = MulticastHeader.writeStatus(datagram, 0, harness.sender.sessionId(), liar.state.id(),
            position + (1 << 20), position + (1 << 20), 4096, 0, 0);
        liar.networkEndpoint.send(publisher, datagram, 0, length);
        harness.run(20);
        assertThat(liar.state.consumed()).isEqualTo(position);
        length = MulticastHeader.writeStatus(datagram, 0, harness.sender.sessionId(), liar.state.id(), 0, 0, 4096, 0, 0);
        liar.networkEndpoint.send(publisher, datagram, 0, length);
        length = MulticastHeader.writeNak(datagram, 0, harness.sender.sessionId(), liar.state.id(), position + 10, 100);
        liar.networkEndpoint.send(publisher, datagram, 0, length);
        harness.run(20);

        assertThat(liar.state.consumed()).isEqualTo(position); // never backwards either
        assertThat(harness.sender.naksRefused()).isEqualTo(1);
        assertThat(harness.sender.repairDatagrams()).isZero();
    }

    @Test
    void shouldReportAStreamThatBreaksTheRecordFormatInsteadOfThrowing()
    {
        final LossyDatagramNetwork network = new LossyDatagramNetwork(5, 1500, 4096);
        final MulticastHarness harness = new MulticastHarness(network, new MulticastSettings(), 1 << 20);
        final MulticastHarness.Node receiver = harness.addReceiver();
        harness.publishAndDrain(100, 1_000_000);
        harness.log.writeBroken(MulticastHarness.MAX_FRAME_LENGTH + 1, 64);

        assertThatCode(() -> harness.run(2_000)).doesNotThrowAnyException();
        assertThat(receiver.corrupt).contains("breaks the record format").contains("record of 4097 bytes");
        assertThat(receiver.image.isFailed()).isTrue();
        assertThat(receiver.delivered).isEqualTo(100);
    }
}
