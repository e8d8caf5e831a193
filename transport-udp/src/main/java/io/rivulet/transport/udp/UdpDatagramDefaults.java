package io.rivulet.transport.udp;

import io.rivulet.spi.DatagramSettings;
import io.rivulet.spi.MulticastSettings;

import java.util.concurrent.TimeUnit;

/**
 * Timers of the reliable-datagram protocols for kernel UDP sockets driven by engines that park for up to a millisecond
 * when idle (the default back-off idle strategy). The protocols' defaults are for RDMA hardware, whose round trips
 * take microseconds. Over UDP a round trip holds the receiving engine's park before it reads the datagram and the
 * sending engine's park before it reads the acknowledgement (up to 2 ms together on an idle machine, loopback or a
 * LAN alike, where the wire adds only tens of microseconds), and on a loaded 2-core machine scheduling gaps of several
 * milliseconds. Read against a 200µs target delay, a 250µs minimum RTO and a window floor of 0.01, every park looks
 * like congestion or loss and a path paces itself down to a few datagrams a second, as the soft RDMA provider's paths
 * did before they got their own timers. So: the target delay five times the two parks, timeouts above the scheduling
 * gaps, gaps NAKed after about one engine cycle (a UDP path rarely reorders), and a window floor of one datagram.
 *
 * <p>Each value is used only where its property ({@code rivulet.ud.*}, {@code rivulet.multicast.*}) is not set; sizes
 * (window, ring, payload) are not timing and stay.
 *
 * <p>Thread-safe: stateless.
 */
final class UdpDatagramDefaults
{
    private UdpDatagramDefaults()
    {
    }

    /**
     * @param defaults the per-path protocol's defaults; changed in place.
     * @return the same object with UDP's timers where no property overrides them, validated.
     */
    static DatagramSettings adjust(final DatagramSettings defaults)
    {
        if (unset("rivulet.ud.ackInterval"))
        {
            defaults.ackIntervalNs(TimeUnit.MICROSECONDS.toNanos(200));
        }
        if (unset("rivulet.ud.nakDelay"))
        {
            // About one engine cycle: a socket's datagrams arrive in order, so a gap is a loss, not a reordering.
            defaults.nakDelayNs(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (unset("rivulet.ud.nakRetry"))
        {
            defaults.nakRetryNs(TimeUnit.MILLISECONDS.toNanos(10));
        }
        if (unset("rivulet.ud.nakRetryMax"))
        {
            defaults.nakRetryMaxNs(Math.max(defaults.nakRetryNs(), TimeUnit.MILLISECONDS.toNanos(80)));
        }
        if (unset("rivulet.ud.rtoMin"))
        {
            // Above the scheduling gaps of a loaded machine: a spurious timeout also halves the window.
            defaults.rtoMinNs(TimeUnit.MILLISECONDS.toNanos(20));
        }
        if (unset("rivulet.ud.rtoMax"))
        {
            defaults.rtoMaxNs(Math.max(defaults.rtoMinNs(), TimeUnit.MILLISECONDS.toNanos(400)));
        }
        if (unset("rivulet.ud.rtoInitial"))
        {
            defaults.rtoInitialNs(Math.min(defaults.rtoMaxNs(), Math.max(defaults.rtoMinNs(),
                TimeUnit.MILLISECONDS.toNanos(50))));
        }
        if (unset("rivulet.ud.targetDelay"))
        {
            defaults.swift().targetDelayNs(TimeUnit.MILLISECONDS.toNanos(10));
        }
        if (unset("rivulet.ud.minWindow"))
        {
            defaults.swift().minWindow(Math.min(1, defaults.swift().maxWindow()));
        }
        if (unset("rivulet.ud.initialWindow"))
        {
            defaults.swift().initialWindow(Math.max(defaults.swift().minWindow(),
                Math.min(16, defaults.swift().maxWindow())));
        }
        return defaults.validate();
    }

    /**
     * The multicast protocol's timers, on the same grounds, plus what a group adds: a NAK's random back-off must
     * outlast one NAK and its repair (two engine parks and a little more), or every receiver that saw a loss NAKs it
     * before the first repair arrives; a repair's linger covers the same round trip, so the NAKs it crosses are
     * suppressed; idle heartbeats and status messages every few milliseconds instead of every one, since each wakes
     * every parked engine of the group (the heartbeat bounds how late a receiver sees a lost last datagram).
     *
     * @param defaults the multicast protocol's defaults; not changed.
     * @return a copy with UDP's timers where no property overrides them, validated.
     */
    static MulticastSettings adjust(final MulticastSettings defaults)
    {
        final MulticastSettings settings = defaults.copy();
        if (unset("rivulet.multicast.targetDelay"))
        {
            settings.targetDelayNs(TimeUnit.MILLISECONDS.toNanos(10));
        }
        if (unset("rivulet.multicast.nakDelay"))
        {
            settings.nakDelayNs(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (unset("rivulet.multicast.nakBackoff"))
        {
            settings.nakBackoffNs(TimeUnit.MILLISECONDS.toNanos(5));
        }
        if (unset("rivulet.multicast.repairLinger"))
        {
            // Below a NAK retry the user set: a repeated NAK must not fall inside the linger.
            final long lingerNs = TimeUnit.MILLISECONDS.toNanos(5);
            settings.repairLingerNs(unset("rivulet.multicast.nakRetry") ? lingerNs :
                Math.min(lingerNs, settings.nakRetryNs() / 2));
        }
        if (unset("rivulet.multicast.nakRetry"))
        {
            // Longer than the linger, or a repeated NAK is suppressed as a duplicate.
            settings.nakRetryNs(Math.max(settings.repairLingerNs() + TimeUnit.MILLISECONDS.toNanos(5),
                TimeUnit.MILLISECONDS.toNanos(20)));
        }
        if (unset("rivulet.multicast.nakRetryMax"))
        {
            settings.nakRetryMaxNs(Math.max(settings.nakRetryNs(), TimeUnit.MILLISECONDS.toNanos(160)));
        }
        if (unset("rivulet.multicast.heartbeatInterval"))
        {
            settings.heartbeatIntervalNs(Math.min(TimeUnit.MILLISECONDS.toNanos(5), settings.timeoutNs() / 2));
        }
        if (unset("rivulet.multicast.statusInterval"))
        {
            settings.statusIntervalNs(Math.min(TimeUnit.MILLISECONDS.toNanos(10), settings.timeoutNs() / 2));
        }
        return settings.validate();
    }

    private static boolean unset(final String property)
    {
        return System.getProperty(property) == null;
    }
}
