package io.rivulet.transport.rdma.ud;

import io.rivulet.protocol.datagram.DatagramHeader;
import io.rivulet.protocol.datagram.DatagramMessageHandler;
import io.rivulet.protocol.datagram.DatagramPublisher;
import io.rivulet.spi.DatagramSettings;
import io.rivulet.protocol.datagram.DatagramSubscriber;
import io.rivulet.protocol.datagram.ReliableSender;
import io.rivulet.spi.SwiftSettings;
import io.rivulet.transport.rdma.soft.SoftFabric;
import io.rivulet.transport.rdma.soft.SoftFaults;
import io.rivulet.transport.rdma.soft.SoftVerbsContext;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * System test of Swift over a soft bottleneck link, with real UD traffic on soft UD queue pairs in real time.
 * A publisher node whose device egress is a slow link with a bounded queue fans out to 2 and then 4
 * subscriber nodes, offering as fast as its ring accepts; a third run holds every path at a large fixed
 * window (congestion control off). Over a settled phase after a warm-up each run measures, at the
 * bottleneck, the mean and maximum queueing delay and the tail drops, and per path the window range.
 * Every figure is logged; only stable behaviour is asserted: every message arrives once and in order;
 * with Swift the queueing delay stays within a small multiple of the target at both loads and does not
 * grow with the load, the queue does not overflow, the windows settle inside their bounds below the cap;
 * with a fixed window the same link queues far above the target and tail-drops, so the test fails if
 * Swift does nothing. No throughput figure is asserted. All agents run on the test thread with a back-off
 * idle strategy; every run is bounded by a message count and a deadline.
 */
class UdBottleneckSystemTest
{
    private static final int PAYLOAD = 1024;
    /** Bytes a DATA datagram occupies on the soft link: the soft UD header (48), the DATA header and the payload. */
    private static final int ON_LINK = 48 + DatagramHeader.DATA_HEADER_LENGTH + PAYLOAD;
    /**
     * 4 MB/s: 274 us per datagram, about 3,650 datagrams a second, little work for the soft provider even on
     * two loaded cores, so the link and not the CPU sets the pace (the fixed-window run, which never waits
     * for its window, keeps the link about 98 % busy).
     */
    private static final long LINK_BYTES_PER_SECOND = 4_000_000;
    /** 512 datagrams: a full queue holds 140 ms, fourteen times the target; a full queue cannot pass for a held one. */
    private static final int LINK_QUEUE_DATAGRAMS = 512;
    /**
     * 10 ms. Swift's delay is the whole RTT less the receiver's hold time, so it includes the soft NIC threads'
     * wake-ups (back-off parks of up to 50 us, then sleeps until woken), the test thread's back-off (parks of up
     * to 200 us) and, on a loaded 2-core machine, scheduling gaps of several milliseconds: with a busy loop on
     * one core a 5 ms target saw RTTs of 5 to 7 ms with only 1 ms of queue, backed off and left the link 70 %
     * idle. A target inside that jitter makes Swift chase scheduling noise; 10 ms (about 36 datagrams of queue)
     * sits above it and far below the 140 ms a full queue holds.
     */
    private static final long TARGET_DELAY_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The contrast run's window per path: 4 paths x 256 is twice the queue, so without control it overflows. */
    private static final int FIXED_WINDOW = 256;
    private static final long WARM_UP_NS = TimeUnit.MILLISECONDS.toNanos(1_500);
    private static final long MEASURE_NS = TimeUnit.MILLISECONDS.toNanos(2_000);
    private static final long RUN_DEADLINE_NS = TimeUnit.SECONDS.toNanos(15);
    private static final long MAX_MESSAGES = 100_000;

    @Test
    void swiftHoldsQueueingDelayNearTargetWhereAFixedWindowFillsTheQueue() throws IOException
    {
        final Run low = run("swift, 2 paths", 2, swiftSettings());
        final Run high = run("swift, 4 paths", 4, swiftSettings());
        final Run fixed = run("fixed window " + FIXED_WINDOW + ", 4 paths", 4, fixedWindowSettings());

        for (final Run run : new Run[]{low, high, fixed})
        {
            run.assertEveryMessageDeliveredOnceInOrder();
        }
        for (final Run run : new Run[]{low, high})
        {
            assertThat(run.meanQueueDelayNs()).as("%s: settled mean queueing delay", run.name)
                .isLessThan(3.0 * TARGET_DELAY_NS);
            assertThat(run.drops).as("%s: tail drops after settling", run.name)
                .isLessThanOrEqualTo(run.datagrams / 100);
            assertThat(run.decreases).as("%s: the delay above the target held the windows back", run.name)
                .isPositive();
            for (int i = 0; i < run.paths; i++)
            {
                assertThat(run.minWindow[i]).as("%s path %d: window floor", run.name, i)
                    .isGreaterThanOrEqualTo(run.settings.swift().minWindow());
                assertThat(run.maxWindow[i]).as("%s path %d: window set by delay, not pinned at its cap", run.name, i)
                    .isLessThan(run.settings.swift().maxWindow());
                assertThat(run.pathDelivered[i]).as("%s path %d: at least half a fair share of the link", run.name, i)
                    .isGreaterThanOrEqualTo(run.delivered / (2L * run.paths));
            }
        }
        assertThat(high.meanQueueDelayNs()).as("twice the offered load, not twice the delay")
            .isLessThan(low.meanQueueDelayNs() + 2.0 * TARGET_DELAY_NS);

        // The contrast: the same link and load without control. Its queue fills (the longest wait is a full
        // queue's), it tail-drops, and its mean delay is far above anything the Swift runs were allowed.
        final double fullQueueNs = (LINK_QUEUE_DATAGRAMS - 1) * (ON_LINK * 1e9 / LINK_BYTES_PER_SECOND);
        assertThat(fixed.maxQueueDelayNs).as("without control the queue runs to its limit")
            .isGreaterThan((long)(0.9 * fullQueueNs));
        assertThat(fixed.meanQueueDelayNs()).as("without control the mean delay is far above the target")
            .isGreaterThan(5.0 * TARGET_DELAY_NS);
        assertThat(fixed.drops).as("without control the full queue tail-drops").isPositive();
    }

    private static DatagramSettings baseSettings()
    {
        return new DatagramSettings()
            .window(256)
            .ringLength(256)
            .maxPayload(PAYLOAD)
            .ackEvery(8)
            .ackIntervalNs(TimeUnit.MICROSECONDS.toNanos(200))
            .nakDelayNs(TimeUnit.MILLISECONDS.toNanos(2))
            .nakRetryNs(TimeUnit.MILLISECONDS.toNanos(10))
            .nakRetryMaxNs(TimeUnit.MILLISECONDS.toNanos(80))
            .rtoInitialNs(TimeUnit.MILLISECONDS.toNanos(50))
            .rtoMinNs(TimeUnit.MILLISECONDS.toNanos(20))
            .rtoMaxNs(TimeUnit.MILLISECONDS.toNanos(400));
    }

    private static DatagramSettings swiftSettings()
    {
        return baseSettings()
            .swift(new SwiftSettings()
                .targetDelayNs(TARGET_DELAY_NS)
                .initialWindow(8)
                .minWindow(0.25)
                .maxWindow(256))
            .validate();
    }

    private static DatagramSettings fixedWindowSettings()
    {
        return baseSettings()
            .swift(new SwiftSettings()
                .targetDelayNs(TARGET_DELAY_NS)
                .initialWindow(FIXED_WINDOW)
                .minWindow(FIXED_WINDOW)
                .maxWindow(FIXED_WINDOW))
            .validate();
    }

    private static Run run(final String name, final int paths, final DatagramSettings settings) throws IOException
    {
        final Run run = new Run(name, paths, settings);
        final SoftVerbsProvider provider = new SoftVerbsProvider(new SoftFabric());
        final List<SoftVerbsContext> contexts = new ArrayList<>();
        final List<UdDatagramEndpoint> endpoints = new ArrayList<>();
        try
        {
            final SoftVerbsContext publisherContext = provider.open(InetAddress.getLoopbackAddress());
            contexts.add(publisherContext);
            publisherContext.faults(SoftFaults.NONE.bottleneck(LINK_BYTES_PER_SECOND, LINK_QUEUE_DATAGRAMS));
            final UdDatagramEndpoint publisherEndpoint = endpoint(publisherContext, endpoints, settings, 512);
            final DatagramPublisher publisher = new DatagramPublisher(settings, publisherEndpoint);
            final DatagramSubscriber[] subscribers = new DatagramSubscriber[paths];
            for (int i = 0; i < paths; i++)
            {
                final SoftVerbsContext context = provider.open(InetAddress.getLoopbackAddress());
                contexts.add(context);
                final UdDatagramEndpoint endpoint = endpoint(context, endpoints, settings, 64);
                subscribers[i] = new DatagramSubscriber(settings, endpoint, run.checks[i]);
                subscribers[i].addPublisher(endpoint.resolve(publisherEndpoint.localAddress()), 200 + i, 0);
                publisher.addSubscriber(publisherEndpoint.resolve(endpoint.localAddress()), 200 + i, 0);
            }
            run.drive(publisher, subscribers, publisherContext);
        }
        finally
        {
            endpoints.forEach(UdDatagramEndpoint::close);
            contexts.forEach(SoftVerbsContext::close);
        }
        System.out.println(run.summary());
        return run;
    }

    private static UdDatagramEndpoint endpoint(
        final SoftVerbsContext context,
        final List<UdDatagramEndpoint> endpoints,
        final DatagramSettings settings,
        final int sendSlots) throws IOException
    {
        final UdDatagramEndpoint endpoint = new UdDatagramEndpoint(
            context, settings.maxDatagramLength(), 1024, sendSlots, UdDatagramEndpointTest.QKEY);
        endpoints.add(endpoint);
        return endpoint;
    }

    /** One run's figures: what the bottleneck and the paths did over the settled phase, and what was delivered. */
    private static final class Run
    {
        final String name;
        final int paths;
        final DatagramSettings settings;
        final OrderCheck[] checks;
        final double[] minWindow;
        final double[] maxWindow;
        final double[] endWindow;
        final long[] srttNs;
        final long[] pathDelivered;
        long offered;
        long datagrams;
        long queueDelayNs;
        long maxQueueDelayNs;
        long drops;
        long allDrops;
        long delivered;
        long retransmits;
        long timeouts;
        long decreases;
        long measuredNs;
        long elapsedNs;

        Run(final String name, final int paths, final DatagramSettings settings)
        {
            this.name = name;
            this.paths = paths;
            this.settings = settings;
            checks = new OrderCheck[paths];
            for (int i = 0; i < paths; i++)
            {
                checks[i] = new OrderCheck();
            }
            minWindow = new double[paths];
            maxWindow = new double[paths];
            endWindow = new double[paths];
            srttNs = new long[paths];
            pathDelivered = new long[paths];
            Arrays.fill(minWindow, Double.MAX_VALUE);
        }

        /**
         * Warm-up, settled phase, then drain: offer greedily until the measuring ends, then stop offering
         * and run until every path has acknowledged everything offered.
         */
        void drive(
            final DatagramPublisher publisher, final DatagramSubscriber[] subscribers, final SoftVerbsContext link)
        {
            final UnsafeBuffer message = new UnsafeBuffer(new byte[PAYLOAD]);
            final BackoffIdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 200_000);
            final long startNs = System.nanoTime();
            final long measureFromNs = startNs + WARM_UP_NS;
            final long measureToNs = measureFromNs + MEASURE_NS;
            long datagramsAtStart = 0;
            long delayAtStart = 0;
            long dropsAtStart = 0;
            long deliveredAtStart = 0;
            long retransmitsAtStart = 0;
            long timeoutsAtStart = 0;
            long decreasesAtStart = 0;
            long measureStartedNs = 0;
            int phase = 0; // 0 warm-up, 1 measuring, 2 draining
            while (true)
            {
                while (phase < 2 && offered < MAX_MESSAGES)
                {
                    message.putLong(0, offered);
                    message.putLong(PAYLOAD - 8, ~offered);
                    if (publisher.offer(message, 0, PAYLOAD) < 0)
                    {
                        break;
                    }
                    offered++;
                }
                final long nowNs = System.nanoTime();
                int work = publisher.doWork(nowNs);
                for (final DatagramSubscriber subscriber : subscribers)
                {
                    work += subscriber.doWork(nowNs);
                }
                if (phase == 0 && nowNs - measureFromNs >= 0)
                {
                    phase = 1;
                    measureStartedNs = nowNs;
                    link.resetBottleneckMaxQueueDelayNs();
                    datagramsAtStart = link.bottleneckDatagrams();
                    delayAtStart = link.bottleneckQueueDelayNs();
                    dropsAtStart = link.bottleneckDrops();
                    deliveredAtStart = delivered();
                    retransmitsAtStart = sum(publisher, Counter.RETRANSMITS);
                    timeoutsAtStart = sum(publisher, Counter.TIMEOUTS);
                    decreasesAtStart = sum(publisher, Counter.DECREASES);
                    for (int i = 0; i < paths; i++)
                    {
                        pathDelivered[i] = -checks[i].next;
                    }
                }
                else if (phase == 1)
                {
                    for (int i = 0; i < paths; i++)
                    {
                        final double window = publisher.subscriber(i).window();
                        minWindow[i] = Math.min(minWindow[i], window);
                        maxWindow[i] = Math.max(maxWindow[i], window);
                    }
                    if (nowNs - measureToNs >= 0)
                    {
                        phase = 2;
                        measuredNs = nowNs - measureStartedNs;
                        maxQueueDelayNs = link.bottleneckMaxQueueDelayNs();
                        datagrams = link.bottleneckDatagrams() - datagramsAtStart;
                        queueDelayNs = link.bottleneckQueueDelayNs() - delayAtStart;
                        drops = link.bottleneckDrops() - dropsAtStart;
                        delivered = delivered() - deliveredAtStart;
                        retransmits = sum(publisher, Counter.RETRANSMITS) - retransmitsAtStart;
                        timeouts = sum(publisher, Counter.TIMEOUTS) - timeoutsAtStart;
                        decreases = sum(publisher, Counter.DECREASES) - decreasesAtStart;
                        for (int i = 0; i < paths; i++)
                        {
                            pathDelivered[i] += checks[i].next;
                            endWindow[i] = publisher.subscriber(i).window();
                            srttNs[i] = publisher.subscriber(i).srttNs();
                        }
                    }
                }
                else if (phase == 2 && publisher.ring().releasedPosition() == offered)
                {
                    break;
                }
                if (nowNs - startNs > RUN_DEADLINE_NS)
                {
                    throw new AssertionError(name + ": deadline in phase " + phase + ", offered " + offered +
                        ", released " + publisher.ring().releasedPosition() + ", paths " + paths(publisher));
                }
                idle.idle(work);
            }
            elapsedNs = System.nanoTime() - startNs;
            allDrops = link.bottleneckDrops();
            for (int i = 0; i < paths; i++)
            {
                final ReliableSender sender = publisher.subscriber(i);
                assertThat(sender.isFailed()).as(sender::failureReason).isFalse();
            }
            assertThat(publisher.malformedDatagrams()).isZero();
            for (final DatagramSubscriber subscriber : subscribers)
            {
                assertThat(subscriber.malformedDatagrams()).isZero();
            }
        }

        void assertEveryMessageDeliveredOnceInOrder()
        {
            assertThat(offered).as("%s: messages offered", name).isPositive();
            for (int i = 0; i < paths; i++)
            {
                final OrderCheck check = checks[i];
                assertThat(check.errors).as("%s path %d: order errors, first: %s", name, i, check.firstError).isZero();
                assertThat(check.next).as("%s path %d: messages delivered", name, i).isEqualTo(offered);
            }
        }

        double meanQueueDelayNs()
        {
            return datagrams == 0 ? 0 : (double)queueDelayNs / datagrams;
        }

        String summary()
        {
            final double seconds = measuredNs / 1e9;
            final double linkUse = datagrams * (double)ON_LINK / seconds / LINK_BYTES_PER_SECOND;
            final double goodput = delivered * (double)ON_LINK / seconds / LINK_BYTES_PER_SECOND;
            final StringBuilder windows = new StringBuilder();
            for (int i = 0; i < paths; i++)
            {
                final double share = delivered == 0 ? 0 : (double)pathDelivered[i] / delivered;
                windows.append(String.format(" p%d %.2f..%.2f end %.2f srtt %.1f ms share %.2f;", i, minWindow[i],
                    maxWindow[i], endWindow[i], srttNs[i] / 1e6, share));
            }
            return String.format(
                "ud bottleneck [%s] %,d B/s, queue %d, target %.1f ms: settled %.1f s: queue delay mean %.2f ms " +
                "max %.2f ms, datagrams %,d, tail drops %d (whole run %d), link use %.2f, goodput %.2f of link, " +
                "retransmits %d, timeouts %d, window decreases %d; windows%s offered %,d in %,d ms",
                name, LINK_BYTES_PER_SECOND, LINK_QUEUE_DATAGRAMS, TARGET_DELAY_NS / 1e6, seconds,
                meanQueueDelayNs() / 1e6, maxQueueDelayNs / 1e6, datagrams, drops, allDrops, linkUse, goodput,
                retransmits, timeouts, decreases, windows, offered, TimeUnit.NANOSECONDS.toMillis(elapsedNs));
        }

        private long delivered()
        {
            long sum = 0;
            for (final OrderCheck check : checks)
            {
                sum += check.next;
            }
            return sum;
        }

        private static long sum(final DatagramPublisher publisher, final Counter counter)
        {
            long sum = 0;
            for (int i = 0; i < publisher.subscriberCount(); i++)
            {
                final ReliableSender sender = publisher.subscriber(i);
                switch (counter)
                {
                    case RETRANSMITS -> sum += sender.retransmits();
                    case TIMEOUTS -> sum += sender.timeouts();
                    default -> sum += sender.congestion().decreases();
                }
            }
            return sum;
        }

        private static String paths(final DatagramPublisher publisher)
        {
            final StringBuilder text = new StringBuilder();
            for (int i = 0; i < publisher.subscriberCount(); i++)
            {
                text.append(publisher.subscriber(i)).append(' ');
            }
            return text.toString();
        }
    }

    private enum Counter
    {
        RETRANSMITS, TIMEOUTS, DECREASES
    }

    /** Checks that messages arrive once each and in order: the first and last 8 bytes carry the sequence. */
    private static final class OrderCheck implements DatagramMessageHandler
    {
        long next;
        long errors;
        String firstError;

        @Override
        public void onMessage(final int sessionId, final DirectBuffer buffer, final int offset, final int length)
        {
            final long value = buffer.getLong(offset);
            if (length != PAYLOAD || value != next || buffer.getLong(offset + PAYLOAD - 8) != ~next)
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
