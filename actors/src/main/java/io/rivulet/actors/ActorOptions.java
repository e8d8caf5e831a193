package io.rivulet.actors;

import java.util.Objects;

/**
 * How one actor is run: its bounded mailbox with an overflow policy, and its supervisor strategy.
 *
 * <pre>{@code
 * actors.spawn("pricing", behavior, ActorOptions.defaults()
 *     .mailbox(4096, OverflowPolicy.REJECT)
 *     .supervision(SupervisorStrategy.restart().withBackoff(Duration.ofMillis(10), Duration.ofSeconds(1))));
 * }</pre>
 *
 * <p>Immutable and thread-safe: every setter returns a new instance.
 */
public final class ActorOptions
{
    /** Default mailbox capacity. */
    public static final int DEFAULT_MAILBOX_CAPACITY = 1024;
    /** Largest mailbox capacity. */
    public static final int MAX_MAILBOX_CAPACITY = 1 << 24;

    private static final ActorOptions DEFAULTS =
        new ActorOptions(DEFAULT_MAILBOX_CAPACITY, OverflowPolicy.BACK_PRESSURE, SupervisorStrategy.restart());

    private final int mailboxCapacity;
    private final OverflowPolicy overflowPolicy;
    private final SupervisorStrategy supervision;

    private ActorOptions(final int mailboxCapacity, final OverflowPolicy overflowPolicy, final SupervisorStrategy supervision)
    {
        this.mailboxCapacity = mailboxCapacity;
        this.overflowPolicy = overflowPolicy;
        this.supervision = supervision;
    }

    /**
     * @return a mailbox of {@value #DEFAULT_MAILBOX_CAPACITY} messages with {@link OverflowPolicy#BACK_PRESSURE},
     *         and {@link SupervisorStrategy#restart()}.
     */
    public static ActorOptions defaults()
    {
        return DEFAULTS;
    }

    /**
     * @param capacity most messages waiting in the mailbox; rounded up to a power of two (the mailbox is an
     *                 Agrona array queue), at most {@value #MAX_MAILBOX_CAPACITY}.
     * @param policy   what a full mailbox does.
     * @return options with this mailbox.
     */
    public ActorOptions mailbox(final int capacity, final OverflowPolicy policy)
    {
        if (capacity < 1 || capacity > MAX_MAILBOX_CAPACITY)
        {
            throw new IllegalArgumentException("mailbox capacity must be within [1, " + MAX_MAILBOX_CAPACITY + "]: " +
                capacity);
        }
        return new ActorOptions(capacity, Objects.requireNonNull(policy, "policy"), supervision);
    }

    /**
     * @param strategy what a failure of the behaviour does.
     * @return options with this strategy.
     */
    public ActorOptions supervision(final SupervisorStrategy strategy)
    {
        return new ActorOptions(mailboxCapacity, overflowPolicy, Objects.requireNonNull(strategy, "strategy"));
    }

    /** @return the requested mailbox capacity (the mailbox rounds it up to a power of two). */
    public int mailboxCapacity()
    {
        return mailboxCapacity;
    }

    public OverflowPolicy overflowPolicy()
    {
        return overflowPolicy;
    }

    public SupervisorStrategy supervision()
    {
        return supervision;
    }

    @Override
    public String toString()
    {
        return "ActorOptions{mailbox=" + mailboxCapacity + " " + overflowPolicy + ", supervision=" + supervision + "}";
    }
}
