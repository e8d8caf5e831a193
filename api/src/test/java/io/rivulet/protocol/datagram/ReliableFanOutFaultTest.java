package io.rivulet.protocol.datagram;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.SwiftSettings;
import io.rivulet.tck.TestTime;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The acceptance figure at protocol level: one publisher, 8 subscribers, 1,000,000 messages each,
 * over a seeded in-memory network that drops 0, 1, 5 or 20 % of datagrams (both directions) and also
 * reorders 5 % and duplicates 2 %. Every subscriber must receive every message exactly once and in order,
 * and the retransmissions must stay within a small factor of the DATA datagrams dropped (no storm).
 * Time is simulated (injected clock, stepped), so the run is deterministic and bounded.
 */
class ReliableFanOutFaultTest
{
    private static final int SUBSCRIBERS = 8;
    private static final int MESSAGES = 1_000_000;
    private static final int PAYLOAD = 16;
    private static final long TICK_NS = 2_000;
    private static final long MAX_JUMP_NS = 6_000;
    private static final long SIMULATED_LIMIT_NS = TimeUnit.SECONDS.toNanos(600);
    /** Wall-clock patience, scaled; the simulated-time limit above is the protocol's own and is not. */
    private static final long WALL_LIMIT_NS = TestTime.nanos(120, TimeUnit.SECONDS);

    static DatagramSettings simulationSettings()
    {
        return new DatagramSettings()
            .window(1024)
            .ringLength(4096)
            .maxPayload(PAYLOAD)
            .ackEvery(16)
            .ackIntervalNs(20_000)
            .nakDelayNs(15_000)
            .nakRetryNs(60_000)
            .nakRetryMaxNs(1_000_000)
            .rtoInitialNs(1_000_000)
            .rtoMinNs(60_000)
            .rtoMaxNs(10_000_000)
            .swift(new SwiftSettings()
                .targetDelayNs(50_000)
                .initialWindow(8)
                .maxWindow(256)
                .minWindow(0.01));
    }

    @ParameterizedTest(name = "loss {0}")
    @ValueSource(doubles = {0.0, 0.01, 0.05, 0.20})
    void everySubscriberReceivesEveryMessageExactlyOnceInOrder(final double loss)
    {
        final DatagramSettings settings = simulationSettings();
        final LossyDatagramNetwork network =
            new LossyDatagramNetwork(0x5EED_0000L + (long)(loss * 100), settings.maxDatagramLength(), 8192)
                .faults(loss, 0.02, 0.05);
        final LossyDatagramNetwork.Endpoint publisherEndpoint = network.newEndpoint();
        final DatagramPublisher publisher = new DatagramPublisher(settings, publisherEndpoint);
        final DatagramSubscriber[] subscribers = new DatagramSubscriber[SUBSCRIBERS];
        final OrderCheck[] checks = new OrderCheck[SUBSCRIBERS];
        for (int i = 0; i < SUBSCRIBERS; i++)
        {
            final LossyDatagramNetwork.Endpoint endpoint = network.newEndpoint();
            checks[i] = new OrderCheck();
            subscribers[i] = new DatagramSubscriber(settings, endpoint, checks[i]);
            // Start sessions near the 32-bit wrap so every run crosses it.
            final int initialSequence = -100_000 * (i + 1);
            subscribers[i].addPublisher(endpoint.resolve(publisherEndpoint.localAddress()), 100 + i, initialSequence);
            publisher.addSubscriber(publisherEndpoint.resolve(endpoint.localAddress()), 100 + i, initialSequence);
        }

        final UnsafeBuffer message = new UnsafeBuffer(new byte[PAYLOAD]);
        final long wallStartNs = System.nanoTime();
        final long cpuStartNs = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        long offered = 0;
        long steps = 0;
        boolean done = false;
        while (!done)
        {
            while (offered < MESSAGES)
            {
                message.putLong(0, offered);
                message.putLong(8, ~offered);
                if (publisher.offer(message, 0, PAYLOAD) < 0)
                {
                    break;
                }
                offered++;
            }
            int work = publisher.doWork(network.nowNs);
            for (final DatagramSubscriber subscriber : subscribers)
            {
                work += subscriber.doWork(network.nowNs);
            }
            done = offered == MESSAGES && publisher.ring().releasedPosition() == MESSAGES;
            // Idle steps jump towards the next arrival (at most MAX_JUMP_NS, so protocol timers stay accurate).
            final long step = work > 0 ? TICK_NS :
                Math.max(TICK_NS, Math.min(MAX_JUMP_NS, network.nextReleaseNs() - network.nowNs));
            network.nowNs += step;
            if ((++steps & 0xFFFF) == 0)
            {
                if (System.nanoTime() - wallStartNs >= WALL_LIMIT_NS)
                {
                    throw new AssertionError("wall-clock limit, at " + offered);
                }
            }
            if (network.nowNs >= SIMULATED_LIMIT_NS)
            {
                throw new AssertionError("simulated-time limit, at " + offered);
            }
        }
        final long wallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wallStartNs);
        final long cpuMs = TimeUnit.NANOSECONDS.toMillis(
            ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpuStartNs);

        long retransmits = 0;
        long timeouts = 0;
        long naksReceived = 0;
        long duplicates = 0;
        double windows = 0;
        long srtt = 0;
        for (int i = 0; i < SUBSCRIBERS; i++)
        {
            final ReliableSender sender = publisher.subscriber(i);
            final ReliableReceiver receiver = subscribers[i].publisher(0);
            assertFalse(sender.isFailed(), sender::failureReason);
            assertEquals(0, checks[i].errors, () -> "order errors, first: " + checks[0].firstError);
            assertEquals(MESSAGES, checks[i].next, "messages delivered");
            assertEquals(MESSAGES, receiver.delivered());
            assertEquals(0, receiver.outOfWindow());
            assertEquals(0, subscribers[i].malformedDatagrams());
            retransmits += sender.retransmits();
            timeouts += sender.timeouts();
            naksReceived += sender.naksReceived();
            duplicates += receiver.duplicates();
            windows += sender.window();
            srtt += sender.srttNs();
        }
        assertEquals(0, publisher.malformedDatagrams());
        assertEquals(0, network.inboxDrops, "the test network's inboxes overflowed");
        if (loss == 0)
        {
            assertEquals(0, network.dataDrops);
        }
        else
        {
            assertTrue(network.dataDrops > 0, "faults were injected");
        }
        System.out.printf(
            "ud fan-out loss %.0f%%: %d subscribers x %,d messages in %,d ms wall (%,d ms CPU), %,d us simulated; data sent %,d, " +
            "data dropped %,d, control dropped %,d, reordered %,d, duplicated %,d; retransmits %,d (%.2f per data drop), " +
            "timeouts %d, NAKs received %,d, duplicates seen %,d; mean cwnd %.1f, mean srtt %,d ns%n",
            loss * 100, SUBSCRIBERS, MESSAGES, wallMs, cpuMs, network.nowNs / 1000, network.dataSent, network.dataDrops,
            network.controlDrops, network.reordered, network.duplicated, retransmits,
            network.dataDrops == 0 ? 0.0 : (double)retransmits / network.dataDrops, timeouts, naksReceived, duplicates,
            windows / SUBSCRIBERS, srtt / SUBSCRIBERS);
        // No storm: a lost DATA datagram costs about one retransmission; a lost NAK or a lost retransmission costs
        // another. 2x the drops plus a little for tail losses found by the timer.
        assertTrue(retransmits <= 2 * network.dataDrops + 64L * SUBSCRIBERS,
            "retransmits " + retransmits + " vs data drops " + network.dataDrops);
    }

    private static final class OrderCheck implements DatagramMessageHandler
    {
        long next;
        long errors;
        String firstError;

        @Override
        public void onMessage(final int sessionId, final org.agrona.DirectBuffer buffer, final int offset, final int length)
        {
            final long value = buffer.getLong(offset);
            if (length != PAYLOAD || value != next || buffer.getLong(offset + 8) != ~next)
            {
                if (errors++ == 0)
                {
                    firstError = "session " + sessionId + " expected " + next + " got " + value + " length " + length;
                }
            }
            next++;
        }
    }
}
