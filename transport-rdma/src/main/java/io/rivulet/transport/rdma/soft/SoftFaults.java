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
 * RC queue pairs are not affected: RC stays reliable and in order.
 *
 * <p>Immutable and thread-safe: every fluent method returns a copy.
 */
public final class SoftFaults
{
    /** No faults. */
    public static final SoftFaults NONE = new SoftFaults(0, 0, 0, 0, 0, 0, TimeUnit.MILLISECONDS.toNanos(1));

    private final long seed;
    private final double drop;
    private final double duplicate;
    private final double reorder;
    private final double delay;
    private final long delayNs;
    private final long reorderTimeoutNs;

    private SoftFaults(
        final long seed,
        final double drop,
        final double duplicate,
        final double reorder,
        final double delay,
        final long delayNs,
        final long reorderTimeoutNs)
    {
        this.seed = seed;
        this.drop = drop;
        this.duplicate = duplicate;
        this.reorder = reorder;
        this.delay = delay;
        this.delayNs = delayNs;
        this.reorderTimeoutNs = reorderTimeoutNs;
    }

    /**
     * @param seed of the random sequence.
     * @return no faults yet, with this seed; add them with the fluent methods.
     */
    public static SoftFaults seeded(final long seed)
    {
        return new SoftFaults(seed, 0, 0, 0, 0, 0, NONE.reorderTimeoutNs);
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
        return new SoftFaults(seed, check(probability, "drop"), duplicate, reorder, delay, delayNs, reorderTimeoutNs);
    }

    public double duplicate()
    {
        return duplicate;
    }

    /** @return a copy that sends a datagram twice with this probability. */
    public SoftFaults duplicate(final double probability)
    {
        return new SoftFaults(seed, drop, check(probability, "duplicate"), reorder, delay, delayNs, reorderTimeoutNs);
    }

    public double reorder()
    {
        return reorder;
    }

    /** @return a copy that holds a datagram back behind the next one with this probability. */
    public SoftFaults reorder(final double probability)
    {
        return new SoftFaults(seed, drop, duplicate, check(probability, "reorder"), delay, delayNs, reorderTimeoutNs);
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
        return new SoftFaults(seed, drop, duplicate, reorder, delay, delayNs, timeoutNs);
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
        return new SoftFaults(seed, drop, duplicate, reorder, check(probability, "delay"), delayNs, reorderTimeoutNs);
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
            ", delay=" + delay + ", delayNs=" + delayNs + ", reorderTimeoutNs=" + reorderTimeoutNs + "}";
    }
}
