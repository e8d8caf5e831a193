package io.rivulet.transport.rdma.soft;

import java.util.concurrent.TimeUnit;

/**
 * Seeded fault injection for UD datagrams leaving a soft device: drop, duplicate, reorder and delay,
 * each with its own probability. Every datagram draws four numbers from a
 * {@link java.util.SplittableRandom} seeded with {@link #seed()}, in send order, so the same seed and
 * the same sequence of sends give the same faults.
 *
 * <ul>
 *   <li>drop: the datagram is not sent (counted).</li>
 *   <li>duplicate: the datagram is sent twice.</li>
 *   <li>reorder: the datagram is held and sent just after the next datagram that is not held, or after
 *       {@link #reorderTimeoutNs()} if no other datagram follows.</li>
 *   <li>delay: the datagram is held for {@link #delayNs()}.</li>
 * </ul>
 * At most 64 datagrams are held at once; past that a datagram that should be held is sent at once.
 *
 * <p>A <b>bottleneck</b> ({@link #bottleneck(long, int)}) then models the device's egress link: datagrams
 * leave at most at a rate in bytes per second (each occupies the link for {@code length / rate}), wait
 * in a FIFO queue of bounded length while the link is busy (the queueing delay a congestion controller
 * sees), and are tail-dropped when the queue is full. It applies to every UD datagram the device sends,
 * whichever fabric carries it (in-process or UDP across processes).
 * RC queue pairs are not affected: RC stays reliable and in order.
 *
 * <p>Immutable and thread-safe: every fluent method returns a copy.
 */
public final class SoftFaults
{
    /** No faults. */
    public static final SoftFaults NONE = new SoftFaults(0, 0, 0, 0, 0, 0, TimeUnit.MILLISECONDS.toNanos(1), 0, 0);

    /** Most datagrams a bottleneck queue may be configured to hold. */
    public static final int MAX_BOTTLENECK_QUEUE = 65536;

    private final long seed;
    private final double drop;
    private final double duplicate;
    private final double reorder;
    private final double delay;
    private final long delayNs;
    private final long reorderTimeoutNs;
    private final long bottleneckBytesPerSecond;
    private final int bottleneckQueueDatagrams;

    private SoftFaults(
        final long seed,
        final double drop,
        final double duplicate,
        final double reorder,
        final double delay,
        final long delayNs,
        final long reorderTimeoutNs,
        final long bottleneckBytesPerSecond,
        final int bottleneckQueueDatagrams)
    {
        this.seed = seed;
        this.drop = drop;
        this.duplicate = duplicate;
        this.reorder = reorder;
        this.delay = delay;
        this.delayNs = delayNs;
        this.reorderTimeoutNs = reorderTimeoutNs;
        this.bottleneckBytesPerSecond = bottleneckBytesPerSecond;
        this.bottleneckQueueDatagrams = bottleneckQueueDatagrams;
    }

    /**
     * @param seed of the random sequence.
     * @return no faults yet, with this seed; add them with the fluent methods.
     */
    public static SoftFaults seeded(final long seed)
    {
        return new SoftFaults(seed, 0, 0, 0, 0, 0, NONE.reorderTimeoutNs, 0, 0);
    }

    public long seed()
    {
        return seed;
    }

    public double drop()
    {
        return drop;
    }

    /** @return a copy that drops a datagram with this probability. */
    public SoftFaults drop(final double probability)
    {
        return new SoftFaults(seed, check(probability, "drop"), duplicate, reorder, delay, delayNs, reorderTimeoutNs,
            bottleneckBytesPerSecond, bottleneckQueueDatagrams);
    }

    public double duplicate()
    {
        return duplicate;
    }

    /** @return a copy that sends a datagram twice with this probability. */
    public SoftFaults duplicate(final double probability)
    {
        return new SoftFaults(seed, drop, check(probability, "duplicate"), reorder, delay, delayNs, reorderTimeoutNs,
            bottleneckBytesPerSecond, bottleneckQueueDatagrams);
    }

    public double reorder()
    {
        return reorder;
    }

    /** @return a copy that holds a datagram back behind the next one with this probability. */
    public SoftFaults reorder(final double probability)
    {
        return new SoftFaults(seed, drop, duplicate, check(probability, "reorder"), delay, delayNs, reorderTimeoutNs,
            bottleneckBytesPerSecond, bottleneckQueueDatagrams);
    }

    public long reorderTimeoutNs()
    {
        return reorderTimeoutNs;
    }

    /** @return a copy that releases a reordered datagram after this long when nothing else is sent. */
    public SoftFaults reorderTimeoutNs(final long timeoutNs)
    {
        if (timeoutNs < 0)
        {
            throw new IllegalArgumentException("reorderTimeoutNs must not be negative: " + timeoutNs);
        }
        return new SoftFaults(seed, drop, duplicate, reorder, delay, delayNs, timeoutNs,
            bottleneckBytesPerSecond, bottleneckQueueDatagrams);
    }

    public double delay()
    {
        return delay;
    }

    public long delayNs()
    {
        return delayNs;
    }

    /** @return a copy that holds a datagram for {@code delayNs} with this probability. */
    public SoftFaults delay(final double probability, final long delayNs)
    {
        if (delayNs < 0)
        {
            throw new IllegalArgumentException("delayNs must not be negative: " + delayNs);
        }
        return new SoftFaults(seed, drop, duplicate, reorder, check(probability, "delay"), delayNs, reorderTimeoutNs,
            bottleneckBytesPerSecond, bottleneckQueueDatagrams);
    }

    /** @return the bottleneck's rate in bytes per second, 0 when there is none. */
    public long bottleneckBytesPerSecond()
    {
        return bottleneckBytesPerSecond;
    }

    /** @return how many datagrams the bottleneck queue holds before it drops the newest. */
    public int bottleneckQueueDatagrams()
    {
        return bottleneckQueueDatagrams;
    }

    /**
     * @param bytesPerSecond rate of the device's egress link, datagram headers included; 0 removes the bottleneck.
     * @param queueDatagrams datagrams that may wait for the link, the one being sent included; a full queue
     *                       drops the datagram that arrives (tail drop). 1 to {@link #MAX_BOTTLENECK_QUEUE}.
     * @return a copy whose UD traffic leaves through this bottleneck (after the random faults).
     */
    public SoftFaults bottleneck(final long bytesPerSecond, final int queueDatagrams)
    {
        if (bytesPerSecond < 0)
        {
            throw new IllegalArgumentException("bottleneck rate must not be negative: " + bytesPerSecond);
        }
        if (bytesPerSecond > 0 && (queueDatagrams < 1 || queueDatagrams > MAX_BOTTLENECK_QUEUE))
        {
            throw new IllegalArgumentException(
                "bottleneck queue must be within [1, " + MAX_BOTTLENECK_QUEUE + "] datagrams: " + queueDatagrams);
        }
        return new SoftFaults(seed, drop, duplicate, reorder, delay, delayNs, reorderTimeoutNs, bytesPerSecond,
            bytesPerSecond == 0 ? 0 : queueDatagrams);
    }

    /** @return true when there is a bottleneck. */
    public boolean hasBottleneck()
    {
        return bottleneckBytesPerSecond > 0;
    }

    /** @return true when any probability is above zero. */
    public boolean isActive()
    {
        return drop > 0 || duplicate > 0 || reorder > 0 || delay > 0;
    }

    private static double check(final double probability, final String name)
    {
        if (!(probability >= 0 && probability <= 1))
        {
            throw new IllegalArgumentException(name + " probability must be within [0, 1]: " + probability);
        }
        return probability;
    }

    @Override
    public String toString()
    {
        return "SoftFaults{seed=" + seed + ", drop=" + drop + ", duplicate=" + duplicate + ", reorder=" + reorder +
            ", delay=" + delay + ", delayNs=" + delayNs + ", reorderTimeoutNs=" + reorderTimeoutNs +
            (hasBottleneck() ? ", bottleneck=" + bottleneckBytesPerSecond + " B/s, queue " + bottleneckQueueDatagrams : "") +
            "}";
    }
}
