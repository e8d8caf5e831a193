package io.rivulet.counters;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A per-connection counter whose increments also go to a node-wide total, so that code which takes one
 * {@link AtomicCounter} (the outbound ring, a stream's flow control) feeds both without knowing. Only the
 * increment forms the engine uses are rolled up. Once closed it counts in the total only: its slot is reused at once
 * by the next connection, and a producer thread may still be inside the closed connection's ring or flow control.
 */
final class RollUpCounter extends AtomicCounter
{
    private final AtomicCounter total;

    private final AtomicCounter own;
    /** Set by {@link #close()} before the slot is freed; the producer threads that increment read it. */
    private volatile boolean closed;

    private RollUpCounter(final AtomicCounter own, final AtomicCounter total, final AtomicBuffer values)
    {
        super(values, own.id());
        this.own = own;
        this.total = total;
    }

    /**
     * @param own    the connection's counter (freed by {@link #close()}).
     * @param total  the node-wide total.
     * @param values the values buffer {@code own} lives in.
     * @return a counter that writes {@code own}'s slot and also bumps {@code total}.
     */
    static AtomicCounter of(final AtomicCounter own, final AtomicCounter total, final AtomicBuffer values)
    {
        return new RollUpCounter(own, total, values);
    }

    @Override
    public long increment()
    {
        total.increment();
        return closed ? 0 : super.increment();
    }

    @Override
    public long incrementRelease()
    {
        total.incrementRelease();
        return closed ? 0 : super.incrementRelease();
    }

    /** Frees the connection's own slot; the total stays. */
    @Override
    public void close()
    {
        closed = true;
        own.close();
    }

    @Override
    public boolean isClosed()
    {
        return own.isClosed();
    }
}
