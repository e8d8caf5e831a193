package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SwiftSettings;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fan-out bookkeeping over a fault-free network: the ring, per-path state, and hostile datagrams. */
class DatagramPublisherTest
{
    private final DatagramSettings settings = ReliableFanOutFaultTest.simulationSettings().window(64).ringLength(64)
        .ackEvery(4).swift(new SwiftSettings().maxWindow(64).targetDelayNs(50_000)).validate();
    private final LossyDatagramNetwork network = new LossyDatagramNetwork(1, settings.maxDatagramLength(), 1024);
    private final LossyDatagramNetwork.Endpoint publisherEndpoint = network.newEndpoint();
    private final DatagramPublisher publisher = new DatagramPublisher(settings, publisherEndpoint);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[16]);

    private void step(final DatagramSubscriber... subscribers)
    {
        publisher.doWork(network.nowNs);
        for (final DatagramSubscriber subscriber : subscribers)
        {
            subscriber.doWork(network.nowNs);
        }
        network.nowNs += 1_000;
    }

    @Test
    void theRingIsFreedOnlyWhenEveryPathAcknowledgedAndTheSlowestBackPressures()
    {
        final List<Long> fast = new ArrayList<>();
        final LossyDatagramNetwork.Endpoint fastEndpoint = network.newEndpoint();
        final LossyDatagramNetwork.Endpoint silentEndpoint = network.newEndpoint();
        final DatagramSubscriber fastSubscriber =
            new DatagramSubscriber(settings, fastEndpoint, (session, buffer, offset, length) -> fast.add(buffer.getLong(offset)));
        fastSubscriber.addPublisher(0, 1, 0);
        publisher.addSubscriber(fastEndpoint.index, 1, 0);
        final ReliableSender silent = publisher.addSubscriber(silentEndpoint.index, 2, 0);

        long offered = 0;
        while (offered < 100)
        {
            message.putLong(0, offered);
            if (publisher.offer(message, 0, 8) < 0)
            {
                break;
            }
            offered++;
        }
        assertEquals(64, offered, "the ring holds 64 messages");
        for (int i = 0; i < 200; i++)
        {
            step(fastSubscriber);
        }
        assertEquals(64, fast.size(), "the fast path got everything");
        assertEquals(0, publisher.ring().releasedPosition(), "the silent path holds the ring");
        assertEquals(DatagramRing.BACK_PRESSURED, publisher.offer(message, 0, 8));
        assertTrue(silent.datagramsSent() > 0 && silent.ackedPosition() == 0);

        assertTrue(publisher.removeSubscriber(2));
        assertEquals(64, publisher.ring().releasedPosition(), "removing the silent path frees the ring");
        assertTrue(publisher.offer(message, 0, 8) >= 0);
        assertThrows(IllegalArgumentException.class, () -> publisher.offer(message, 0, settings.maxPayload() + 1));
        assertThrows(IllegalArgumentException.class, () -> publisher.addSubscriber(fastEndpoint.index, 1, 0));
    }

    @Test
    void hostileDatagramsAreCountedAndDroppedAndOnlyTheLyingPathFails()
    {
        final List<Long> received = new ArrayList<>();
        final LossyDatagramNetwork.Endpoint subscriberEndpoint = network.newEndpoint();
        final LossyDatagramNetwork.Endpoint attacker = network.newEndpoint();
        final DatagramSubscriber subscriber = new DatagramSubscriber(settings, subscriberEndpoint,
            (session, buffer, offset, length) -> received.add(buffer.getLong(offset)));
        subscriber.addPublisher(0, 1, 0);
        publisher.addSubscriber(subscriberEndpoint.index, 1, 0);
        final ReliableSender victim = publisher.addSubscriber(attacker.index, 9, 0);

        final SplittableRandom random = new SplittableRandom(3);
        final UnsafeBuffer junk = new UnsafeBuffer(new byte[64]);
        for (int i = 0; i < 1000; i++)
        {
            final byte[] bytes = new byte[1 + random.nextInt(settings.maxDatagramLength())];
            random.nextBytes(bytes);
            junk.putBytes(0, bytes);
            attacker.send(0, junk, 0, bytes.length);
            attacker.send(subscriberEndpoint.index, junk, 0, bytes.length);
        }
        DatagramHeader.writeAck(junk, 0, 12345, 0, 0, 0, 0);
        attacker.send(0, junk, 0, DatagramHeader.ACK_LENGTH);                     // unknown session
        DatagramHeader.writeData(junk, 0, 0, 1, 0, 0, 1);
        attacker.send(0, junk, 0, DatagramHeader.DATA_HEADER_LENGTH);             // DATA to a publisher
        DatagramHeader.writeNak(junk, 0, 1, 0, 1);
        attacker.send(subscriberEndpoint.index, junk, 0, DatagramHeader.NAK_LENGTH); // NAK to a subscriber
        DatagramHeader.writeAck(junk, 0, 1, 1_000_000, 0, 0, 0);
        attacker.send(0, junk, 0, DatagramHeader.ACK_LENGTH);                     // spoofs the honest path's ACK
        DatagramHeader.writeData(junk, 0, 0, 1, 0, 8, 1);
        junk.putLong(DatagramHeader.DATA_HEADER_LENGTH, 666);
        attacker.send(subscriberEndpoint.index, junk, 0, DatagramHeader.DATA_HEADER_LENGTH + 8); // spoofs DATA

        for (long i = 0; i < 50; i++)
        {
            message.putLong(0, i);
            publisher.offer(message, 0, 8);
        }
        for (int i = 0; i < 50; i++)
        {
            step(subscriber);
        }
        DatagramHeader.writeAck(junk, 0, 9, 1_000_000, 0, 0, 0);             // acknowledges what was never sent
        attacker.send(0, junk, 0, DatagramHeader.ACK_LENGTH);
        for (int i = 0; i < 100; i++)
        {
            step(subscriber);
        }

        assertTrue(publisher.malformedDatagrams() > 900, "malformed at the publisher: " + publisher.malformedDatagrams());
        assertTrue(subscriber.malformedDatagrams() > 900);
        assertEquals(2, publisher.unknownSessions(), "unknown session, and the spoofed ACK from the wrong peer");
        assertEquals(1, subscriber.unknownSessions(), "the spoofed DATA from the wrong peer");
        assertEquals(1, publisher.unexpectedDatagrams());
        assertTrue(subscriber.unexpectedDatagrams() >= 1);
        assertTrue(victim.isFailed(), "the path that lied fails");
        assertFalse(publisher.subscriber(0).isFailed());
        assertEquals(50, received.size(), "the honest path keeps going");
        for (int i = 0; i < 50; i++)
        {
            assertEquals(i, received.get(i));
        }
        assertEquals(50, publisher.ring().releasedPosition(), "a failed path does not hold the ring");
    }
}
