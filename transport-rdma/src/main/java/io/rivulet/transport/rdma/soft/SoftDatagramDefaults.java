package io.rivulet.transport.rdma.soft;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.MulticastSettings;

import java.util.concurrent.TimeUnit;

/**
 * Reliable-datagram timers for the soft provider. Its "NIC" is a thread and its wire a queue or a loopback
 * socket, so a round trip includes thread wake-ups and, on a busy machine, scheduling gaps of milliseconds; the
 * protocol's hardware defaults (a 200µs target delay, a 250µs minimum RTO, a window floor of 0.01) would read
 * every such gap as congestion or loss and pace a path down to a few datagrams a second. Each value below is
 * used only where its {@code rivulet.ud.*} (or {@code rivulet.multicast.*}) property is not set.
 */
public final class SoftDatagramDefaults
{
    private SoftDatagramDefaults()
    {
    }

    /**
     * @param defaults the protocol's defaults.
     * @return the same object with the soft provider's timers where no property overrides them, validated.
     */
    public static DatagramSettings adjust(final DatagramSettings defaults)
    {
        if (unset("ackInterval"))
        {
            defaults.ackIntervalNs(TimeUnit.MICROSECONDS.toNanos(200));
        }
        if (unset("nakDelay"))
        {
            defaults.nakDelayNs(TimeUnit.MILLISECONDS.toNanos(2));
        }
        if (unset("nakRetry"))
        {
            defaults.nakRetryNs(TimeUnit.MILLISECONDS.toNanos(10));
        }
        if (unset("nakRetryMax"))
        {
            defaults.nakRetryMaxNs(Math.max(defaults.nakRetryNs(), TimeUnit.MILLISECONDS.toNanos(80)));
        }
        if (unset("rtoMin"))
        {
            defaults.rtoMinNs(TimeUnit.MILLISECONDS.toNanos(20));
        }
        if (unset("rtoMax"))
        {
            defaults.rtoMaxNs(Math.max(defaults.rtoMinNs(), TimeUnit.MILLISECONDS.toNanos(400)));
        }
        if (unset("rtoInitial"))
        {
            defaults.rtoInitialNs(Math.min(defaults.rtoMaxNs(), Math.max(defaults.rtoMinNs(),
                TimeUnit.MILLISECONDS.toNanos(50))));
        }
        if (unset("targetDelay"))
        {
            defaults.swift().targetDelayNs(TimeUnit.MILLISECONDS.toNanos(20));
        }
        if (unset("minWindow"))
        {
            defaults.swift().minWindow(Math.min(1, defaults.swift().maxWindow()));
        }
        if (unset("initialWindow"))
        {
            defaults.swift().initialWindow(Math.max(defaults.swift().minWindow(),
                Math.min(16, defaults.swift().maxWindow())));
        }
        return defaults.validate();
    }

    /**
     * The multicast protocol's timers for the soft provider, for the same reason: NAKs, repairs and status messages
     * wait for thread wake-ups. Each value is used only where its {@code rivulet.multicast.*} property is not set.
     *
     * @param defaults the multicast protocol's defaults.
     * @return the same object with the soft provider's timers where no property overrides them, validated.
     */
    public static MulticastSettings adjust(final MulticastSettings defaults)
    {
        if (unsetMulticast("nakDelay"))
        {
            defaults.nakDelayNs(TimeUnit.MILLISECONDS.toNanos(2));
        }
        if (unsetMulticast("nakBackoff"))
        {
            defaults.nakBackoffNs(TimeUnit.MILLISECONDS.toNanos(4));
        }
        if (unsetMulticast("repairLinger"))
        {
            defaults.repairLingerNs(TimeUnit.MILLISECONDS.toNanos(5));
        }
        if (unsetMulticast("nakRetry"))
        {
            defaults.nakRetryNs(Math.max(defaults.repairLingerNs() + 1, TimeUnit.MILLISECONDS.toNanos(10)));
        }
        if (unsetMulticast("nakRetryMax"))
        {
            defaults.nakRetryMaxNs(Math.max(defaults.nakRetryNs(), TimeUnit.MILLISECONDS.toNanos(80)));
        }
        if (unsetMulticast("statusInterval"))
        {
            defaults.statusIntervalNs(TimeUnit.MILLISECONDS.toNanos(10));
        }
        if (unsetMulticast("heartbeatInterval"))
        {
            defaults.heartbeatIntervalNs(TimeUnit.MILLISECONDS.toNanos(5));
        }
        if (unsetMulticast("targetDelay"))
        {
            defaults.targetDelayNs(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return defaults.validate();
    }

    private static boolean unset(final String name)
    {
        return System.getProperty("rivulet.ud." + name) == null;
    }

    private static boolean unsetMulticast(final String name)
    {
        return System.getProperty("rivulet.multicast." + name) == null;
    }
}
