package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SwiftSettings;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sending half stepped by hand: window, SACK, NAK suppression, RTO back-off, violations, wrap. */
class ReliableSenderTest
{
    private static final int SESSION = 3;
    private static final long RTO_INITIAL = 1_000_000;
    private static final long T0 = 10_000_000;

    private final RecordingEndpoint endpoint = new RecordingEndpoint();
    private final DatagramRing ring = new DatagramRing(64, 8);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);

    private static DatagramSettings settings(final double initialWindow)
    {
        return new DatagramSettings()
            .window(64)
            .ringLength(64)
            .maxPayload(8)
            .rtoInitialNs(RTO_INITIAL)
            .rtoMinNs(100_000)
            .rtoMaxNs(8_000_000)
            .swift(new SwiftSettings().initialWindow(initialWindow).maxWindow(64).targetDelayNs(1_000_000))
            .validate();
    }

    private ReliableSender sender(final int initialSequence, final double initialWindow)
    {
        return new ReliableSender(settings(initialWindow), ring, endpoint, 0, SESSION, initialSequence, 0);
    }

    private void append(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            message.putLong(0, ring.position());
            assertTrue(ring.append(message, 0, 8) >= 0);
        }
    }

    private List<Integer> sentSequences()
    {
        final List<Integer> sequences = new ArrayList<>();
        for (final UnsafeBuffer datagram : endpoint.drain())
        {
            assertEquals(DatagramHeader.TYPE_DATA, RecordingEndpoint.type(datagram));
            sequences.add(RecordingEndpoint.sequence(datagram));
        }
        return sequences;
    }

    @Test
    void sendsWithinTheWindowAndAnAckOpensIt()
    {
        final ReliableSender sender = sender(0, 8);
        append(20);
        sender.doWork(T0);
        final List<UnsafeBuffer> first = endpoint.drain();
        assertEquals(8, first.size());
        final UnsafeBuffer datagram = first.get(5);
        assertEquals(DatagramHeader.TYPE_DATA, DatagramHeader.validate(datagram, 0, datagram.capacity(), 8, 64));
        assertEquals(5, DatagramHeader.sequence(datagram, 0));
        assertEquals(SESSION, DatagramHeader.sessionId(datagram, 0));
        assertEquals(T0, DatagramHeader.timestampNs(datagram, 0));
        assertEquals(0, DatagramHeader.flags(datagram, 0));
        assertEquals(5, datagram.getLong(DatagramHeader.DATA_HEADER_LENGTH), "payload from the ring");
        assertEquals(8, sender.inFlight());

        sender.doWork(T0 + 1);
        assertTrue(endpoint.drain().isEmpty(), "window full");
        sender.onAck(4, 0, 0, 0, T0 + 2);
        assertEquals(4, sender.ackedPosition());
        sender.doWork(T0 + 3);
        assertEquals(List.of(8, 9, 10, 11), sentSequences());
    }

    @Test
    void selectivelyAcknowledgedDatagramsLeaveTheFlightAndAreNotResent()
    {
        final ReliableSender sender = sender(0, 8);
        append(8);
        sender.doWork(T0);
        endpoint.drain();
        sender.onAck(0, 0b111, 0, 0, T0 + 1);  // 1, 2, 3 arrived
        assertEquals(5, sender.inFlight());
        assertEquals(0, sender.ackedPosition());
        sender.onNak(0, 4, T0 + RTO_INITIAL / 2 + RTO_INITIAL);
        assertEquals(List.of(0), sentSequences(), "only 0 is missing");
        sender.onAck(4, 0, 0, 0, T0 + 2 * RTO_INITIAL);
        assertEquals(4, sender.ackedPosition());
        assertEquals(4, sender.inFlight());
    }

    @Test
    void aNakRetransmitsOnceAndIsSuppressedForOneSmoothedRtt()
    {
        final ReliableSender sender = sender(0, 8);
        append(8);
        sender.doWork(T0);
        endpoint.drain();
        final long rtt = 200_000;
        sender.onAck(1, 0, T0, 0, T0 + rtt);
        assertEquals(rtt, sender.srttNs());

        final long t = T0 + 2 * rtt;
        sender.onNak(2, 2, t);
        final List<UnsafeBuffer> resent = endpoint.drain();
        assertEquals(2, resent.size());
        assertEquals(2, RecordingEndpoint.sequence(resent.get(0)));
        assertEquals(DatagramHeader.FLAG_RETRANSMIT, DatagramHeader.flags(resent.get(0), 0));
        assertEquals(t, DatagramHeader.timestampNs(resent.get(0), 0), "a fresh timestamp for the RTT sample");
        assertEquals(2, sender.retransmits());

        sender.onNak(2, 2, t + rtt / 2);
        assertTrue(endpoint.drain().isEmpty(), "a retransmission is already in flight");
        assertEquals(2, sender.nakRetransmitsSuppressed());
        sender.onNak(2, 1, t + rtt);
        assertEquals(List.of(2), sentSequences(), "one RTT later the NAK means it was lost again");
        assertEquals(3, sender.retransmits());
        assertEquals(3, sender.naksReceived());
        sender.onNak(0, 1, t + rtt);
        assertTrue(endpoint.drain().isEmpty(), "a stale NAK for acknowledged data is ignored");
        assertFalse(sender.isFailed());
    }

    @Test
    void theRetransmissionTimerResendsTheOldestAndBacksOff()
    {
        final ReliableSender sender = sender(0, 8);
        append(3);
        sender.doWork(T0);
        endpoint.drain();
        assertTrue(sender.isRtoArmed());
        sender.doWork(T0 + RTO_INITIAL - 1);
        assertTrue(endpoint.drain().isEmpty());
        sender.doWork(T0 + RTO_INITIAL);
        assertEquals(List.of(0, 1, 2), sentSequences(), "every overdue datagram, within the shrunken window");
        assertEquals(1, sender.timeouts());
        assertEquals(4, sender.window(), 1e-9, "timeout decrease 0.5");
        assertEquals(T0 + RTO_INITIAL + 2 * RTO_INITIAL, sender.rtoDeadlineNs(), "doubled");
        sender.doWork(T0 + 3 * RTO_INITIAL - 1);
        assertTrue(endpoint.drain().isEmpty());
        sender.doWork(T0 + 3 * RTO_INITIAL);
        assertEquals(List.of(0, 1), sentSequences(), "the window is down to 2: the oldest two");
        assertEquals(2, sender.consecutiveTimeouts());
        assertEquals(T0 + 3 * RTO_INITIAL + 4 * RTO_INITIAL, sender.rtoDeadlineNs());

        sender.onAck(3, 0, 0, 0, T0 + 4 * RTO_INITIAL);
        assertEquals(0, sender.consecutiveTimeouts());
        assertFalse(sender.isRtoArmed(), "nothing left in flight");
    }

    @Test
    void theTimerIsReArmedWhenTheCumulativePointMoves()
    {
        final ReliableSender sender = sender(0, 8);
        append(4);
        sender.doWork(T0);
        sender.onAck(2, 0, 0, 0, T0 + RTO_INITIAL / 2);
        assertEquals(T0 + RTO_INITIAL / 2 + RTO_INITIAL, sender.rtoDeadlineNs());
    }

    @Test
    void theRttSampleExcludesTheReceiversHoldTime()
    {
        final ReliableSender sender = sender(0, 8);
        append(2);
        sender.doWork(T0);
        sender.onAck(1, 0, T0, 100_000, T0 + 300_000);
        assertEquals(200_000, sender.srttNs());
        sender.onAck(2, 0, T0 + 400_000, 0, T0 + 300_000);
        assertEquals(200_000, sender.srttNs(), "an echo from the future is not a sample");
    }

    @Test
    void staleAcksAreIgnored()
    {
        final ReliableSender sender = sender(0, 8);
        append(8);
        sender.doWork(T0);
        sender.onAck(5, 0, 0, 0, T0 + 1);
        sender.onAck(3, 0b1, 0, 0, T0 + 2);
        assertEquals(5, sender.ackedPosition());
        assertEquals(1, sender.staleAcks());
        assertEquals(3, sender.inFlight());
    }

    @Test
    void anAckForDatagramsNeverSentFailsThePath()
    {
        final ReliableSender sender = sender(0, 8);
        append(10);
        sender.doWork(T0);
        sender.onAck(9, 0, 0, 0, T0 + 1);
        assertTrue(sender.isFailed());
        assertTrue(sender.failureReason().contains("never sent"), sender.failureReason());
        endpoint.drain();
        assertEquals(0, sender.doWork(T0 + 10 * RTO_INITIAL), "a failed path sends nothing");

        final ReliableSender bitmap = new ReliableSender(settings(8), ring, endpoint, 0, SESSION + 1, 0, 0);
        bitmap.doWork(T0);
        bitmap.onAck(0, 1L << 7, 0, 0, T0 + 1);  // sequence 8 was never sent
        assertTrue(bitmap.isFailed());

        final ReliableSender nak = new ReliableSender(settings(8), ring, endpoint, 0, SESSION + 2, 0, 0);
        nak.doWork(T0);
        nak.onNak(6, 3, T0 + 1);
        assertTrue(nak.isFailed(), "NAK for 6..8 with 0..7 sent");
    }

    @Test
    void sequenceNumbersWrapAround()
    {
        final ReliableSender sender = sender(-2, 8);
        append(6);
        sender.doWork(T0);
        assertEquals(List.of(-2, -1, 0, 1, 2, 3), sentSequences());
        sender.onAck(1, 0b1, 0, 0, T0 + 1);     // -2, -1, 0 cumulatively; 2 selectively
        assertEquals(3, sender.ackedPosition());
        assertEquals(2, sender.inFlight());
        sender.onNak(1, 1, T0 + 2 * RTO_INITIAL);
        assertEquals(List.of(1), sentSequences());
        assertFalse(sender.isFailed());
    }

    @Test
    void belowOneDatagramOfWindowItPaces()
    {
        final ReliableSender paced = sender(0, 0.25);
        append(4);
        paced.doWork(T0);
        assertEquals(1, endpoint.drain().size());
        paced.onAck(1, 0, 0, 0, T0 + RTO_INITIAL / 2);  // no echo, no sample: the window stays 0.25
        paced.doWork(T0 + RTO_INITIAL / 2);
        // Before the first sample the pacing RTT is rtoInitial: the next datagram goes 1ms / 0.25 later.
        paced.doWork(T0 + 4 * RTO_INITIAL - 1);
        assertTrue(endpoint.drain().isEmpty(), "paced: the next datagram waits rtt / cwnd");
        paced.doWork(T0 + 4 * RTO_INITIAL);
        assertEquals(List.of(1), sentSequences());
    }

    @Test
    void backPressureFromTheEndpointIsRetried()
    {
        final ReliableSender sender = sender(0, 8);
        append(2);
        endpoint.refuse = true;
        assertEquals(0, sender.doWork(T0));
        assertEquals(1, sender.sendBackPressure());
        assertEquals(0, sender.nextPosition());
        endpoint.refuse = false;
        sender.doWork(T0 + 1);
        assertEquals(List.of(0, 1), sentSequences());
    }
}
