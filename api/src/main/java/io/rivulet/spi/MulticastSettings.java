package io.rivulet.spi;

import io.rivulet.ConfigurationException;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Parameters of the reliable multicast protocol ({@code io.rivulet.protocol.datagram.multicast}); the
 * {@code rivulet.multicast.*} system properties give the defaults, which suit RDMA hardware's microsecond round
 * trips (a transport whose timing is coarser tunes them: {@link MulticastTransport#defaultMulticastSettings}).
 * Fluent and mutable until handed to a node; {@link #validate()} names a bad value.
 *
 * <p>The protocol, in short: a publisher sends its log's bytes to the group once; receivers NAK gaps after
 * {@link #nakDelayNs} plus a random back-off of up to {@link #nakBackoffNs} (so that one receiver's NAK, answered by
 * a repair to the group, spares the others theirs); receivers report what they consumed every
 * {@link #statusIntervalNs} (or a quarter window), and the publisher sends no further than the
 * {@link #flowControl} policy's receivers allow, within a congestion window that follows the slowest receiver's
 * delay ({@link #targetDelayNs}).
 */
public final class MulticastSettings
{
    /** How the publisher's sending limit follows its receivers, after Aeron's flow control strategies. */
    public enum FlowControl
    {
        /** The slowest receiver: no receiver is sent more than its window (Aeron's min). */
        MIN,
        /** The fastest receiver: slower ones recover by repair and fall to the topic's slow-consumer policy. */
        MAX,
        /**
         * The slowest of the receivers carrying {@link #flowControlTag()}, and nothing at all until
         * {@link #requiredGroupSize()} of them report (Aeron's tagged flow control with a required group); with no
         * tagged receiver and no required size, the fastest.
         */
        TAGGED
    }

    /** Every {@code rivulet.multicast.*} property these settings read. */
    public static final Set<String> PROPERTIES = Set.of(
        "rivulet.multicast.receiverWindow", "rivulet.multicast.statusInterval", "rivulet.multicast.heartbeatInterval",
        "rivulet.multicast.timeout", "rivulet.multicast.nakDelay", "rivulet.multicast.nakBackoff",
        "rivulet.multicast.nakGroupSize", "rivulet.multicast.nakRetry", "rivulet.multicast.nakRetryMax",
        "rivulet.multicast.repairLinger", "rivulet.multicast.flowControl", "rivulet.multicast.receiverTag",
        "rivulet.multicast.congestionControl", "rivulet.multicast.targetDelay", "rivulet.multicast.initialWindow",
        "rivulet.multicast.minWindow", "rivulet.multicast.maxImage");

    private int receiverWindow = PropertyValues.size("rivulet.multicast.receiverWindow", 256 * 1024);
    private long statusIntervalNs = duration("rivulet.multicast.statusInterval", TimeUnit.MILLISECONDS.toNanos(5));
    private long heartbeatIntervalNs = duration("rivulet.multicast.heartbeatInterval", TimeUnit.MILLISECONDS.toNanos(1));
    private long timeoutNs = duration("rivulet.multicast.timeout", TimeUnit.SECONDS.toNanos(5));
    private long nakDelayNs = duration("rivulet.multicast.nakDelay", TimeUnit.MICROSECONDS.toNanos(50));
    private long nakBackoffNs = duration("rivulet.multicast.nakBackoff", TimeUnit.MICROSECONDS.toNanos(250));
    private int nakGroupSize = PropertyValues.size("rivulet.multicast.nakGroupSize", 16);
    private long nakRetryNs = duration("rivulet.multicast.nakRetry", TimeUnit.MILLISECONDS.toNanos(2));
    private long nakRetryMaxNs = duration("rivulet.multicast.nakRetryMax", TimeUnit.MILLISECONDS.toNanos(16));
    private long repairLingerNs = duration("rivulet.multicast.repairLinger", TimeUnit.MILLISECONDS.toNanos(1));
    private FlowControl flowControl = FlowControl.MIN;
    private long flowControlTag;
    private int requiredGroupSize;
    private long receiverTag = longValue("rivulet.multicast.receiverTag", 0);
    private boolean congestionControl = PropertyValues.flag("rivulet.multicast.congestionControl", true);
    private long targetDelayNs = duration("rivulet.multicast.targetDelay", TimeUnit.MICROSECONDS.toNanos(200));
    private int initialWindow = PropertyValues.size("rivulet.multicast.initialWindow", 32);
    private int minWindow = PropertyValues.size("rivulet.multicast.minWindow", 4);
    private int maxImage = PropertyValues.size("rivulet.multicast.maxImage", 64 * 1024 * 1024);

    /** Reads the defaults from the {@code rivulet.multicast.*} properties. */
    public MulticastSettings()
    {
        final String raw = System.getProperty("rivulet.multicast.flowControl");
        if (raw != null)
        {
            flowControl(raw, "rivulet.multicast.flowControl");
        }
    }

    /**
     * Bytes a receiver takes beyond what it has consumed: the most the publisher sends ahead of it
     * ({@code rivulet.multicast.receiverWindow}, 256k; at most half the topic's log, whichever is smaller).
     */
    public MulticastSettings receiverWindow(final int receiverWindow)
    {
        this.receiverWindow = receiverWindow;
        return this;
    }

    public int receiverWindow()
    {
        return receiverWindow;
    }

    /**
     * Longest wait between a receiver's status messages, which also report its delay and prove it alive
     * ({@code rivulet.multicast.statusInterval}, 5ms); it sends one sooner whenever it consumed a quarter window.
     */
    public MulticastSettings statusIntervalNs(final long statusIntervalNs)
    {
        this.statusIntervalNs = statusIntervalNs;
        return this;
    }

    public long statusIntervalNs()
    {
        return statusIntervalNs;
    }

    /**
     * How often an idle publisher tells the group where its stream stands, so that a receiver sees a lost last
     * datagram ({@code rivulet.multicast.heartbeatInterval}, 1ms).
     */
    public MulticastSettings heartbeatIntervalNs(final long heartbeatIntervalNs)
    {
        this.heartbeatIntervalNs = heartbeatIntervalNs;
        return this;
    }

    public long heartbeatIntervalNs()
    {
        return heartbeatIntervalNs;
    }

    /**
     * Silence after which multicast counts as broken, either way: a publisher stops waiting for a receiver without
     * status messages, and a receiver that hears nothing from the group goes back to its connection
     * ({@code rivulet.multicast.timeout}, 5s).
     */
    public MulticastSettings timeoutNs(final long timeoutNs)
    {
        this.timeoutNs = timeoutNs;
        return this;
    }

    public long timeoutNs()
    {
        return timeoutNs;
    }

    /** How long a gap may wait for reordered datagrams before a receiver NAKs it ({@code rivulet.multicast.nakDelay}, 50µs). */
    public MulticastSettings nakDelayNs(final long nakDelayNs)
    {
        this.nakDelayNs = nakDelayNs;
        return this;
    }

    public long nakDelayNs()
    {
        return nakDelayNs;
    }

    /**
     * Longest random back-off added to a first NAK, drawn as RFC 5401 suggests for {@link #nakGroupSize} receivers,
     * so that a loss every receiver saw is NAKed by about one of them: several round trips, or the others' NAKs cross
     * the repair ({@code rivulet.multicast.nakBackoff}, 250µs).
     */
    public MulticastSettings nakBackoffNs(final long nakBackoffNs)
    {
        this.nakBackoffNs = nakBackoffNs;
        return this;
    }

    public long nakBackoffNs()
    {
        return nakBackoffNs;
    }

    /** The group size the NAK back-off is drawn for ({@code rivulet.multicast.nakGroupSize}, 16). */
    public MulticastSettings nakGroupSize(final int nakGroupSize)
    {
        this.nakGroupSize = nakGroupSize;
        return this;
    }

    public int nakGroupSize()
    {
        return nakGroupSize;
    }

    /**
     * Longest wait before a receiver NAKs a gap again, doubled each time: a receiver waits twice the round trip it
     * measured from its NAKs to their repairs, at most this; longer than {@link #repairLingerNs}, so that a repeated NAK
     * is not taken for a duplicate ({@code rivulet.multicast.nakRetry}, 2ms).
     */
    public MulticastSettings nakRetryNs(final long nakRetryNs)
    {
        this.nakRetryNs = nakRetryNs;
        return this;
    }

    public long nakRetryNs()
    {
        return nakRetryNs;
    }

    /** Cap of the NAK retries' doubling ({@code rivulet.multicast.nakRetryMax}, 16ms). */
    public MulticastSettings nakRetryMaxNs(final long nakRetryMaxNs)
    {
        this.nakRetryMaxNs = nakRetryMaxNs;
        return this;
    }

    public long nakRetryMaxNs()
    {
        return nakRetryMaxNs;
    }

    /**
     * Longest time a publisher ignores further NAKs for bytes it just repaired to the group: one repair in flight per
     * loss, as Aeron's linger; it lingers one round trip of its slowest receiver when it has measured one
     * ({@code rivulet.multicast.repairLinger}, 1ms).
     */
    public MulticastSettings repairLingerNs(final long repairLingerNs)
    {
        this.repairLingerNs = repairLingerNs;
        return this;
    }

    public long repairLingerNs()
    {
        return repairLingerNs;
    }

    /** The flow control policy ({@code rivulet.multicast.flowControl}: {@code min}, {@code max} or {@code tagged:TAG[/SIZE]}). */
    public MulticastSettings flowControl(final FlowControl flowControl, final long tag, final int requiredGroupSize)
    {
        this.flowControl = flowControl;
        this.flowControlTag = tag;
        this.requiredGroupSize = requiredGroupSize;
        return this;
    }

    /**
     * @param policy {@code min}, {@code max}, {@code tagged:TAG} or {@code tagged:TAG/SIZE}.
     * @throws ConfigurationException naming what is wrong.
     */
    public MulticastSettings flowControl(final String policy)
    {
        return flowControl(policy, "flowControl");
    }

    private MulticastSettings flowControl(final String policy, final String name)
    {
        final String text = policy.trim().toLowerCase(Locale.ROOT);
        if (text.equals("min") || text.equals("max"))
        {
            return flowControl(text.equals("min") ? FlowControl.MIN : FlowControl.MAX, 0, 0);
        }
        if (text.startsWith("tagged:"))
        {
            final String rest = text.substring("tagged:".length());
            final int slash = rest.indexOf('/');
            try
            {
                final long tag = Long.parseLong(slash < 0 ? rest : rest.substring(0, slash));
                final int size = slash < 0 ? 0 : Integer.parseInt(rest.substring(slash + 1));
                if (size >= 0)
                {
                    return flowControl(FlowControl.TAGGED, tag, size);
                }
            }
            catch (final NumberFormatException ex)
            {
                // named below
            }
        }
        throw PropertyValues.invalid(name, policy,
            "a flow control policy is min, max, tagged:TAG or tagged:TAG/SIZE (a number tag, a group size >= 0)");
    }

    public FlowControl flowControl()
    {
        return flowControl;
    }

    /** @return the tag of the receivers {@link FlowControl#TAGGED} follows. */
    public long flowControlTag()
    {
        return flowControlTag;
    }

    /** @return how many tagged receivers must report before {@link FlowControl#TAGGED} sends at all (0: none). */
    public int requiredGroupSize()
    {
        return requiredGroupSize;
    }

    /** This node's tag as a receiver, which a publisher's tagged flow control follows ({@code rivulet.multicast.receiverTag}, 0: none). */
    public MulticastSettings receiverTag(final long receiverTag)
    {
        this.receiverTag = receiverTag;
        return this;
    }

    public long receiverTag()
    {
        return receiverTag;
    }

    /** Whether the publisher's congestion window follows its receivers' delay ({@code rivulet.multicast.congestionControl}, true). */
    public MulticastSettings congestionControl(final boolean congestionControl)
    {
        this.congestionControl = congestionControl;
        return this;
    }

    public boolean congestionControl()
    {
        return congestionControl;
    }

    /**
     * The delay the congestion window aims for on its slowest receiver: below it the window grows by a datagram per
     * window acknowledged, above it shrinks in proportion, at most once per round trip (Swift's rule); loss alone
     * never shrinks it ({@code rivulet.multicast.targetDelay}, 200µs).
     */
    public MulticastSettings targetDelayNs(final long targetDelayNs)
    {
        this.targetDelayNs = targetDelayNs;
        return this;
    }

    public long targetDelayNs()
    {
        return targetDelayNs;
    }

    /** The congestion window at start, in datagrams ({@code rivulet.multicast.initialWindow}, 32). */
    public MulticastSettings initialWindow(final int initialWindow)
    {
        this.initialWindow = initialWindow;
        return this;
    }

    public int initialWindow()
    {
        return initialWindow;
    }

    /** The smallest congestion window, in datagrams ({@code rivulet.multicast.minWindow}, 4). */
    public MulticastSettings minWindow(final int minWindow)
    {
        this.minWindow = minWindow;
        return this;
    }

    public int minWindow()
    {
        return minWindow;
    }

    /**
     * The largest publication log a receiver mirrors (it keeps a copy of the log's size per topic it receives by
     * multicast); a publisher announcing more is refused ({@code rivulet.multicast.maxImage}, 64m).
     */
    public MulticastSettings maxImage(final int maxImage)
    {
        this.maxImage = maxImage;
        return this;
    }

    public int maxImage()
    {
        return maxImage;
    }

    /**
     * @return this, when every value is in range.
     * @throws ConfigurationException naming the first bad value.
     */
    public MulticastSettings validate()
    {
        require(receiverWindow >= 4096, "rivulet.multicast.receiverWindow must be at least 4k: " + receiverWindow);
        require(statusIntervalNs > 0, "rivulet.multicast.statusInterval must be positive");
        require(heartbeatIntervalNs > 0, "rivulet.multicast.heartbeatInterval must be positive");
        require(timeoutNs > Math.max(statusIntervalNs, heartbeatIntervalNs),
            "rivulet.multicast.timeout must be longer than the status and heartbeat intervals");
        require(nakDelayNs >= 0, "rivulet.multicast.nakDelay must not be negative");
        require(nakBackoffNs >= 0, "rivulet.multicast.nakBackoff must not be negative");
        require(nakGroupSize >= 1, "rivulet.multicast.nakGroupSize must be at least 1");
        require(repairLingerNs >= 0, "rivulet.multicast.repairLinger must not be negative");
        require(nakRetryNs > repairLingerNs, "rivulet.multicast.nakRetry must be longer than repairLinger (" +
            PropertyValues.describeDuration(repairLingerNs) + "), or repeated NAKs are suppressed");
        require(nakRetryMaxNs >= nakRetryNs, "rivulet.multicast.nakRetryMax must be at least nakRetry");
        require(flowControl != null, "rivulet.multicast.flowControl must be set");
        require(requiredGroupSize >= 0, "the required group size must not be negative");
        require(targetDelayNs > 0, "rivulet.multicast.targetDelay must be positive");
        require(minWindow >= 1, "rivulet.multicast.minWindow must be at least 1");
        require(initialWindow >= minWindow, "rivulet.multicast.initialWindow must be at least minWindow");
        require(maxImage >= 4096, "rivulet.multicast.maxImage must be at least 4k");
        return this;
    }

    /** @return a copy, for a transport to tune without changing the caller's. */
    public MulticastSettings copy()
    {
        final MulticastSettings copy = new MulticastSettings();
        copy.receiverWindow = receiverWindow;
        copy.statusIntervalNs = statusIntervalNs;
        copy.heartbeatIntervalNs = heartbeatIntervalNs;
        copy.timeoutNs = timeoutNs;
        copy.nakDelayNs = nakDelayNs;
        copy.nakBackoffNs = nakBackoffNs;
        copy.nakGroupSize = nakGroupSize;
        copy.nakRetryNs = nakRetryNs;
        copy.nakRetryMaxNs = nakRetryMaxNs;
        copy.repairLingerNs = repairLingerNs;
        copy.flowControl = flowControl;
        copy.flowControlTag = flowControlTag;
        copy.requiredGroupSize = requiredGroupSize;
        copy.receiverTag = receiverTag;
        copy.congestionControl = congestionControl;
        copy.targetDelayNs = targetDelayNs;
        copy.initialWindow = initialWindow;
        copy.minWindow = minWindow;
        copy.maxImage = maxImage;
        return copy;
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new ConfigurationException(message);
        }
    }

    private static long duration(final String property, final long defaultNs)
    {
        return PropertyValues.durationNs(property, defaultNs);
    }

    private static long longValue(final String property, final long defaultValue)
    {
        final String raw = System.getProperty(property);
        if (raw == null)
        {
            return defaultValue;
        }
        try
        {
            return Long.parseLong(raw.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw PropertyValues.invalid(property, raw, "a whole number is expected");
        }
    }

    @Override
    public String toString()
    {
        return "MulticastSettings{receiverWindow=" + receiverWindow + ", statusIntervalNs=" + statusIntervalNs +
            ", heartbeatIntervalNs=" + heartbeatIntervalNs + ", timeoutNs=" + timeoutNs + ", nakDelayNs=" + nakDelayNs +
            ", nakBackoffNs=" + nakBackoffNs + ", nakGroupSize=" + nakGroupSize + ", nakRetryNs=" + nakRetryNs +
            ", nakRetryMaxNs=" + nakRetryMaxNs + ", repairLingerNs=" + repairLingerNs + ", flowControl=" + flowControl +
            (flowControl == FlowControl.TAGGED ? ":" + flowControlTag + "/" + requiredGroupSize : "") +
            ", receiverTag=" + receiverTag + ", congestionControl=" + congestionControl + ", targetDelayNs=" +
            targetDelayNs + ", initialWindow=" + initialWindow + ", minWindow=" + minWindow + ", maxImage=" + maxImage + "}";
    }
}
