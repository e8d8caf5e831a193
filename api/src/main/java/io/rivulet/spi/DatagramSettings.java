package io.rivulet.spi;

import org.agrona.BitUtil;

import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Parameters of the reliable-datagram protocol ({@code rivulet.ud.*} system properties give the
 * defaults), with the {@link SwiftSettings} of its congestion control. Fluent and mutable until handed to
 * a publisher or subscriber; {@link #validate()} names a bad value.
 */
public final class DatagramSettings
{
    /** Bytes of the reliable-datagram header in front of each data payload: what a datagram adds to it. */
    public static final int DATA_HEADER_LENGTH = 24;

    /** Every {@code rivulet.ud.*} property these settings and {@link SwiftSettings} read. */
    public static final Set<String> PROPERTIES = Set.of(
        "rivulet.ud.window", "rivulet.ud.ringLength", "rivulet.ud.maxPayload", "rivulet.ud.ackEvery",
        "rivulet.ud.ackInterval", "rivulet.ud.nakDelay", "rivulet.ud.nakRetry", "rivulet.ud.nakRetryMax",
        "rivulet.ud.rtoInitial", "rivulet.ud.rtoMin", "rivulet.ud.rtoMax", "rivulet.ud.targetDelay",
        "rivulet.ud.flowScalingRange", "rivulet.ud.additiveIncrement", "rivulet.ud.beta", "rivulet.ud.maxDecrease",
        "rivulet.ud.nakDecrease", "rivulet.ud.timeoutDecrease", "rivulet.ud.retransmitLimit", "rivulet.ud.minWindow",
        "rivulet.ud.maxWindow", "rivulet.ud.initialWindow");

    private int window = size("rivulet.ud.window", 256);
    private int ringLength = size("rivulet.ud.ringLength", 512);
    private int maxPayload = size("rivulet.ud.maxPayload", 4096 - DATA_HEADER_LENGTH);
    private int ackEvery = size("rivulet.ud.ackEvery", 16);
    private long ackIntervalNs = duration("rivulet.ud.ackInterval", TimeUnit.MICROSECONDS.toNanos(100));
    private long nakDelayNs = duration("rivulet.ud.nakDelay", TimeUnit.MICROSECONDS.toNanos(50));
    private long nakRetryNs = duration("rivulet.ud.nakRetry", TimeUnit.MILLISECONDS.toNanos(1));
    private long nakRetryMaxNs = duration("rivulet.ud.nakRetryMax", TimeUnit.MILLISECONDS.toNanos(16));
    private long rtoInitialNs = duration("rivulet.ud.rtoInitial", TimeUnit.MILLISECONDS.toNanos(5));
    private long rtoMinNs = duration("rivulet.ud.rtoMin", TimeUnit.MICROSECONDS.toNanos(250));
    private long rtoMaxNs = duration("rivulet.ud.rtoMax", TimeUnit.MILLISECONDS.toNanos(100));
    private SwiftSettings swift = new SwiftSettings();

    /**
     * Most datagrams a path has in flight (sent, not cumulatively acknowledged), which is also the
     * receiver's reorder window; a power of two within [64, 65536] ({@code rivulet.ud.window}, 256).
     */
    public DatagramSettings window(final int window)
    {
        this.window = window;
        return this;
    }

    public int window()
    {
        return window;
    }

    /**
     * Messages the publisher's ring keeps until every path acknowledges them; a power of two, at least
     * {@link #window()} ({@code rivulet.ud.ringLength}, 512).
     */
    public DatagramSettings ringLength(final int ringLength)
    {
        this.ringLength = ringLength;
        return this;
    }

    public int ringLength()
    {
        return ringLength;
    }

    /**
     * Longest message, one per datagram ({@code rivulet.ud.maxPayload}, 4072 bytes: with the 24-byte header a
     * datagram fills the common 4096-byte RDMA path MTU).
     */
    public DatagramSettings maxPayload(final int maxPayload)
    {
        this.maxPayload = maxPayload;
        return this;
    }

    public int maxPayload()
    {
        return maxPayload;
    }

    /** The receiver ACKs at once after this many new datagrams ({@code rivulet.ud.ackEvery}, 16). */
    public DatagramSettings ackEvery(final int ackEvery)
    {
        this.ackEvery = ackEvery;
        return this;
    }

    public int ackEvery()
    {
        return ackEvery;
    }

    /** Otherwise it ACKs news at most this often ({@code rivulet.ud.ackInterval}, 100µs). */
    public DatagramSettings ackIntervalNs(final long ackIntervalNs)
    {
        this.ackIntervalNs = ackIntervalNs;
        return this;
    }

    public long ackIntervalNs()
    {
        return ackIntervalNs;
    }

    /** How long a gap may wait for reordered datagrams before its first NAK ({@code rivulet.ud.nakDelay}, 50µs). */
    public DatagramSettings nakDelayNs(final long nakDelayNs)
    {
        this.nakDelayNs = nakDelayNs;
        return this;
    }

    public long nakDelayNs()
    {
        return nakDelayNs;
    }

    /** Wait before a gap is NAKed again, doubled each time ({@code rivulet.ud.nakRetry}, 1ms). */
    public DatagramSettings nakRetryNs(final long nakRetryNs)
    {
        this.nakRetryNs = nakRetryNs;
        return this;
    }

    public long nakRetryNs()
    {
        return nakRetryNs;
    }

    /** Cap of the NAK back-off ({@code rivulet.ud.nakRetryMax}, 16ms). */
    public DatagramSettings nakRetryMaxNs(final long nakRetryMaxNs)
    {
        this.nakRetryMaxNs = nakRetryMaxNs;
        return this;
    }

    public long nakRetryMaxNs()
    {
        return nakRetryMaxNs;
    }

    /** Retransmission timeout before the first RTT sample ({@code rivulet.ud.rtoInitial}, 5ms). */
    public DatagramSettings rtoInitialNs(final long rtoInitialNs)
    {
        this.rtoInitialNs = rtoInitialNs;
        return this;
    }

    public long rtoInitialNs()
    {
        return rtoInitialNs;
    }

    /** Floor of the retransmission timeout ({@code rivulet.ud.rtoMin}, 250µs). */
    public DatagramSettings rtoMinNs(final long rtoMinNs)
    {
        this.rtoMinNs = rtoMinNs;
        return this;
    }

    public long rtoMinNs()
    {
        return rtoMinNs;
    }

    /** Cap of the retransmission timeout, back-off included ({@code rivulet.ud.rtoMax}, 100ms). */
    public DatagramSettings rtoMaxNs(final long rtoMaxNs)
    {
        this.rtoMaxNs = rtoMaxNs;
        return this;
    }

    public long rtoMaxNs()
    {
        return rtoMaxNs;
    }

    /** Congestion control parameters. */
    public DatagramSettings swift(final SwiftSettings swift)
    {
        this.swift = swift;
        return this;
    }

    public SwiftSettings swift()
    {
        return swift;
    }

    /** @return the longest datagram this protocol sends: a DATA header and {@link #maxPayload()}. */
    public int maxDatagramLength()
    {
        return DATA_HEADER_LENGTH + maxPayload;
    }

    /**
     * @return this, when every value is in range.
     * @throws IllegalArgumentException naming the first bad value.
     */
    public DatagramSettings validate()
    {
        SwiftSettings.require(BitUtil.isPowerOfTwo(window) && window >= 64 && window <= 65536,
            "rivulet.ud.window must be a power of two within [64, 65536]: " + window);
        SwiftSettings.require(BitUtil.isPowerOfTwo(ringLength) && ringLength >= window && ringLength <= 1 << 24,
            "rivulet.ud.ringLength must be a power of two within [window, 2^24]: " + ringLength);
        SwiftSettings.require(maxPayload >= 1 && maxPayload <= 65536 - DATA_HEADER_LENGTH,
            "rivulet.ud.maxPayload must be within [1, 65512]: " + maxPayload);
        SwiftSettings.require((long)ringLength * slotLength(maxPayload) <= Integer.MAX_VALUE,
            "rivulet.ud.ringLength x maxPayload must fit in 2 GiB");
        SwiftSettings.require(ackEvery >= 1 && ackEvery <= window / 2,
            "rivulet.ud.ackEvery must be within [1, window / 2]: " + ackEvery);
        SwiftSettings.require(ackIntervalNs > 0, "rivulet.ud.ackInterval must be positive");
        SwiftSettings.require(nakDelayNs >= 0, "rivulet.ud.nakDelay must not be negative");
        SwiftSettings.require(nakRetryNs > 0, "rivulet.ud.nakRetry must be positive");
        SwiftSettings.require(nakRetryMaxNs >= nakRetryNs, "rivulet.ud.nakRetryMax must be at least nakRetry");
        SwiftSettings.require(rtoMinNs > 0, "rivulet.ud.rtoMin must be positive");
        SwiftSettings.require(rtoMaxNs >= rtoMinNs, "rivulet.ud.rtoMax must be at least rtoMin");
        SwiftSettings.require(rtoInitialNs >= rtoMinNs && rtoInitialNs <= rtoMaxNs,
            "rivulet.ud.rtoInitial must be within [rtoMin, rtoMax]");
        SwiftSettings.require(swift != null, "swift settings must be set");
        swift.validate();
        SwiftSettings.require(swift.maxWindow() <= window,
            "rivulet.ud.maxWindow " + swift.maxWindow() + " must not exceed rivulet.ud.window " + window);
        return this;
    }

    public static int slotLength(final int maxPayload)
    {
        return BitUtil.align(DATA_HEADER_LENGTH + maxPayload, 8);
    }

    static int size(final String property, final int defaultValue)
    {
        return PropertyValues.size(property, defaultValue);
    }

    static long duration(final String property, final long defaultNs)
    {
        return PropertyValues.durationNs(property, defaultNs);
    }

    static double decimal(final String property, final double defaultValue)
    {
        return PropertyValues.decimal(property, defaultValue);
    }

    @Override
    public String toString()
    {
        return "DatagramSettings{window=" + window + ", ringLength=" + ringLength + ", maxPayload=" + maxPayload +
            ", ackEvery=" + ackEvery + ", ackIntervalNs=" + ackIntervalNs + ", nakDelayNs=" + nakDelayNs +
            ", nakRetryNs=" + nakRetryNs + ", nakRetryMaxNs=" + nakRetryMaxNs + ", rtoInitialNs=" + rtoInitialNs +
            ", rtoMinNs=" + rtoMinNs + ", rtoMaxNs=" + rtoMaxNs + ", swift=" + swift + "}";
    }
}
