package io.rivulet.transport.rdma;

import io.rivulet.Rivulet;
import io.rivulet.protocol.datagram.DatagramSettings;
import io.rivulet.protocol.datagram.SwiftSettings;
import io.rivulet.transport.rdma.soft.SoftFaults;
import io.rivulet.transport.rdma.soft.SoftVerbsProvider;

import java.util.concurrent.TimeUnit;

/**
 * What the topic suites need to run their topic data over the soft provider's UD queue pairs: a context with
 * {@code topicDatagrams}, datagram timers for real time on a loaded 2-core machine, and a provider whose UD
 * datagrams are lost, duplicated and reordered (seeded), so that the suites also exercise recovery.
 */
final class UdTopics
{
    /** Seeded faults on every device's UD egress; reliable connections are not touched. */
    static final SoftFaults FAULTS = SoftFaults.seeded(20261130L).drop(0.01).duplicate(0.01).reorder(0.02);

    private UdTopics()
    {
    }

    /** @return the soft provider on the shared in-process fabric, with {@link #FAULTS} on UD. */
    static SoftVerbsProvider provider()
    {
        return RdmaTestSupport.provider().withFaults(FAULTS);
    }

    /**
     * Timers for the soft provider on a loaded machine: its round trips include parked idle strategies and
     * descheduled threads (milliseconds), so the hardware defaults (a 200µs target, 250µs minimum RTO) would
     * take every stall for congestion or loss.
     */
    static DatagramSettings settings()
    {
        return new DatagramSettings()
            .ackIntervalNs(TimeUnit.MICROSECONDS.toNanos(200))
            .nakDelayNs(TimeUnit.MILLISECONDS.toNanos(2))
            .nakRetryNs(TimeUnit.MILLISECONDS.toNanos(10))
            .nakRetryMaxNs(TimeUnit.MILLISECONDS.toNanos(80))
            .rtoInitialNs(TimeUnit.MILLISECONDS.toNanos(50))
            .rtoMinNs(TimeUnit.MILLISECONDS.toNanos(20))
            .rtoMaxNs(TimeUnit.MILLISECONDS.toNanos(400))
            .swift(new SwiftSettings()
                .targetDelayNs(TimeUnit.MILLISECONDS.toNanos(20))
                .initialWindow(16)
                .maxWindow(256)
                .minWindow(1));
    }

    /** @return the context with topic data as datagrams. */
    static Rivulet.Context over(final Rivulet.Context context)
    {
        return context.topicDatagrams(true).datagramSettings(settings());
    }
}
