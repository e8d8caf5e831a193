package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SwiftSettings;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The receiving half stepped by hand: reordering, duplicates, SACK bitmap edges, NAK timing, wrap. */
class ReliableReceiverTest
{
    private static final int SESSION = 7;
    private static final long ACK_INTERVAL = 100_000;
    private static final long NAK_DELAY = 50_000;
    private static final long NAK_RETRY = 1_000_000;
    private static final long NAK_RETRY_MAX = 4_000_000;

    private final RecordingEndpoint endpoint = new RecordingEndpoint();
    private final List<Long> delivered = new ArrayList<>();
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);

    private ReliableReceiver receiver(final int initialSequence)
    {
        return receiver(initialSequence, 64);
    }

    private ReliableReceiver receiver(final int initialSequence, final int window)
    {
        final DatagramSettings settings = new DatagramSettings()
            .window(window)
            .ringLength(window)
            .maxPayload(8)
            .ackEvery(4)
            .ackIntervalNs(ACK_INTERVAL)
            .nakDelayNs(NAK_DELAY)
            .nakRetryNs(NAK_RETRY)
            .nakRetryMaxNs(NAK_RETRY_MAX)
            .swift(new SwiftSettings().maxWindow(64))
            .validate();
        return new ReliableReceiver(settings, endpoint, 0, SESSION, initialSequence,
            (session, buffer, offset, length) -> delivered.add(buffer.getLong(offset)));
    }

    private void data(final ReliableReceiver receiver, final int sequence, final long value, final long nowNs)
    {
        payload.putLong(0, value);
        receiver.onData(sequence, nowNs - 1_000, payload, 0, 8, nowNs);
    }

    private static List<UnsafeBuffer> ofType(final List<UnsafeBuffer> datagrams, final int type)
    {
        final List<UnsafeBuffer> matching = new ArrayList<>();
        for (final UnsafeBuffer datagram : datagrams)
        {
            if (RecordingEndpoint.type(datagram) == type)
            {
                matching.add(datagram);
            }
        }
        return matching;
    }

    @Test
    void deliversInOrderWhateverTheArrivalOrder()
    {
        final ReliableReceiver receiver = receiver(0);
        data(receiver, 2, 2, 10);
        data(receiver, 1, 1, 11);
        assertTrue(delivered.isEmpty(), "0 is missing");
        assertEquals(2, receiver.heldOutOfOrder());
        data(receiver, 0, 0, 12);
        data(receiver, 3, 3, 13);
        assertEquals(List.of(0L, 1L, 2L, 3L), delivered);
        assertEquals(4, receiver.expectedSequence());
        assertEquals(0, receiver.heldOutOfOrder());
    }

    @Test
    void suppressesDuplicatesHeldAndAlreadyDelivered()
    {
        final ReliableReceiver receiver = receiver(0);
        data(receiver, 0, 0, 1);
        data(receiver, 0, 99, 2);
        data(receiver, 2, 2, 3);
        data(receiver, 2, 99, 4);
        data(receiver, 1, 1, 5);
        data(receiver, 1, 99, 6);
        assertEquals(List.of(0L, 1L, 2L), delivered);
        assertEquals(3, receiver.duplicates());
        assertEquals(3, receiver.delivered());
    }

    @Test
    void dropsDatagramsBeyondTheWindow()
    {
        final ReliableReceiver receiver = receiver(0);
        data(receiver, 64, 64, 1);
        data(receiver, 1000, 1000, 1);
        assertEquals(2, receiver.outOfWindow());
        data(receiver, 63, 63, 1);
        assertEquals(1, receiver.heldOutOfOrder(), "the last slot of the window is accepted");
    }

    @Test
    void ackCarriesCumulativePointBitmapEchoAndHoldTime()
    {
        final ReliableReceiver receiver = receiver(0);
        final long now = 5_000_000;
        payload.putLong(0, 0);
        receiver.onData(1, 4_000_000, payload, 0, 8, now);      // bit 0
        receiver.onData(63, 4_100_000, payload, 0, 8, now);     // bit 62, last slot of a 64 window
        receiver.onData(62, 4_200_000, payload, 0, 8, now + 10); // bit 61, latest arrival
        receiver.doWork(now + 30);
        final List<UnsafeBuffer> acks = ofType(endpoint.drain(), DatagramHeader.TYPE_ACK);
        assertEquals(1, acks.size(), "the first news is acknowledged at once");
        final UnsafeBuffer ack = acks.get(0);
        assertEquals(DatagramHeader.ACK_LENGTH, ack.capacity());
        assertEquals(SESSION, DatagramHeader.sessionId(ack, 0));
        assertEquals(0, DatagramHeader.sequence(ack, 0), "cumulative: 0 is still missing");
        assertEquals(1L | 1L << 61 | 1L << 62, DatagramHeader.bitmap(ack, 0));
        assertEquals(4_200_000, DatagramHeader.echoTimestampNs(ack, 0));
        assertEquals(20, DatagramHeader.ackDelayNs(ack, 0));
    }

    @Test
    void bitmapCoversExactly64SequencesAfterTheCumulativePoint()
    {
        final ReliableReceiver receiver = receiver(0, 128);
        data(receiver, 0, 0, 1);
        data(receiver, 2, 2, 1);   // cumulative 1; bit 0
        data(receiver, 65, 65, 1); // bit 63, the last
        data(receiver, 66, 66, 1); // beyond the bitmap
        receiver.doWork(2);
        final UnsafeBuffer ack = ofType(endpoint.drain(), DatagramHeader.TYPE_ACK).get(0);
        assertEquals(1, DatagramHeader.sequence(ack, 0));
        assertEquals(1L | 1L << 63, DatagramHeader.bitmap(ack, 0));
    }

    @Test
    void acksAtABoundedRate()
    {
        final ReliableReceiver receiver = receiver(0);
        long now = 1_000_000;
        data(receiver, 0, 0, now);
        receiver.doWork(now);
        assertEquals(1, ofType(endpoint.drain(), DatagramHeader.TYPE_ACK).size());
        data(receiver, 1, 1, now + 1);
        receiver.doWork(now + 1);
        assertEquals(0, endpoint.drain().size(), "one new datagram waits for the interval");
        receiver.doWork(now + ACK_INTERVAL - 1);
        assertEquals(0, endpoint.drain().size());
        receiver.doWork(now + ACK_INTERVAL);
        assertEquals(1, ofType(endpoint.drain(), DatagramHeader.TYPE_ACK).size(), "interval elapsed");
        now += ACK_INTERVAL + 10;
        for (int i = 2; i < 6; i++)
        {
            data(receiver, i, i, now);
        }
        receiver.doWork(now);
        assertEquals(1, ofType(endpoint.drain(), DatagramHeader.TYPE_ACK).size(), "ackEvery 4 reached: at once");
        receiver.doWork(now + 10 * ACK_INTERVAL);
        assertEquals(0, endpoint.drain().size(), "nothing new, no ACK");
        data(receiver, 3, 3, now + 11 * ACK_INTERVAL);
        receiver.doWork(now + 11 * ACK_INTERVAL);
        assertEquals(1, ofType(endpoint.drain(), DatagramHeader.TYPE_ACK).size(), "a duplicate re-ACKs (ours may be lost)");
    }

    @Test
    void naksAGapOnlyAfterTheReorderDelayAndCoalescesARun()
    {
        final ReliableReceiver receiver = receiver(0);
        final long now = 1_000_000;
        data(receiver, 0, 0, now);
        data(receiver, 4, 4, now);
        data(receiver, 6, 6, now);
        receiver.doWork(now + NAK_DELAY - 1);
        assertEquals(0, ofType(endpoint.drain(), DatagramHeader.TYPE_NAK).size(), "reordering may still fill the gap");
        data(receiver, 2, 2, now + 10);
        receiver.doWork(now + NAK_DELAY);
        final List<UnsafeBuffer> naks = ofType(endpoint.drain(), DatagramHeader.TYPE_NAK);
        assertEquals(3, naks.size(), "1, 3 and 5: three runs");
        assertEquals(1, DatagramHeader.sequence(naks.get(0), 0));
        assertEquals(1, DatagramHeader.nakCount(naks.get(0), 0));
        assertEquals(3, DatagramHeader.sequence(naks.get(1), 0));
        assertEquals(5, DatagramHeader.sequence(naks.get(2), 0));

        final ReliableReceiver run = receiver(0);
        endpoint.drain();
        data(run, 10, 10, now);
        run.doWork(now + NAK_DELAY);
        final List<UnsafeBuffer> one = ofType(endpoint.drain(), DatagramHeader.TYPE_NAK);
        assertEquals(1, one.size());
        assertEquals(0, DatagramHeader.sequence(one.get(0), 0));
        assertEquals(10, DatagramHeader.nakCount(one.get(0), 0), "0..9 in one NAK");
        assertEquals(1, run.naksSent());
        assertEquals(10, run.nakedDatagrams());
    }

    @Test
    void repeatsANakWithExponentialBackOffAndStopsWhenTheGapFills()
    {
        final ReliableReceiver receiver = receiver(0);
        final long start = 1_000_000;
        data(receiver, 1, 1, start);
        final long[] expectedNakTimes = {
            start + NAK_DELAY,
            start + NAK_DELAY + NAK_RETRY,
            start + NAK_DELAY + 3 * NAK_RETRY,
            start + NAK_DELAY + 7 * NAK_RETRY,
            start + NAK_DELAY + 11 * NAK_RETRY, // capped at 4 x NAK_RETRY
        };
        long now = start;
        final List<Long> nakTimes = new ArrayList<>();
        while (now <= start + NAK_DELAY + 11 * NAK_RETRY)
        {
            receiver.doWork(now);
            if (!ofType(endpoint.drain(), DatagramHeader.TYPE_NAK).isEmpty())
            {
                nakTimes.add(now);
            }
            now += 10_000;
        }
        assertEquals(expectedNakTimes.length, nakTimes.size(), () -> "NAK times " + nakTimes);
        for (int i = 0; i < expectedNakTimes.length; i++)
        {
            assertEquals(expectedNakTimes[i], nakTimes.get(i));
        }
        data(receiver, 0, 0, now);
        endpoint.drain();
        receiver.doWork(now + 100 * NAK_RETRY);
        assertEquals(0, ofType(endpoint.drain(), DatagramHeader.TYPE_NAK).size(), "gap filled: no more NAKs");
        assertEquals(List.of(0L, 1L), delivered);
    }

    @Test
    void sequenceNumbersWrapAround()
    {
        final int start = Integer.MAX_VALUE - 1; // also crosses the signed boundary
        final ReliableReceiver receiver = receiver(start);
        for (int i = 4; i >= 0; i--)
        {
            data(receiver, start + i, i, 10 + i);
        }
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), delivered);
        final ReliableReceiver unsigned = receiver(-2);
        delivered.clear();
        data(unsigned, 1, 3, 1);
        data(unsigned, 0, 2, 1);
        data(unsigned, -1, 1, 1);
        data(unsigned, -2, 0, 1);
        data(unsigned, -2, 99, 1);
        assertEquals(List.of(0L, 1L, 2L, 3L), delivered);
        assertEquals(2, unsigned.expectedSequence());
        assertEquals(1, unsigned.duplicates());
    }

    @Test
    void acksAndNaksRefusedByTheEndpointAreSentLater()
    {
        final ReliableReceiver receiver = receiver(0);
        endpoint.refuse = true;
        data(receiver, 0, 0, 1);
        receiver.doWork(1);
        assertEquals(1, receiver.sendBackPressure());
        endpoint.refuse = false;
        receiver.doWork(2);
        assertEquals(1, ofType(endpoint.drain(), DatagramHeader.TYPE_ACK).size());
        assertEquals(1, receiver.acksSent());
    }
}
