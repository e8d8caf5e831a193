package io.rivulet.protocol;

import java.util.function.LongSupplier;

/**
 * One connection's account in the node's {@link MemoryBudget}: the bytes it reserved for its peer (reassembly, open
 * requests) plus the frames parked behind its full outbound ring, against its own limit and the node's.
 *
 * <p>Conductor only; the parked bytes it reads are kept by the connection's {@link Outbound}, from any thread.
 */
final class ConnectionMemory
{
    /** How the connection is closed when it must give its bytes back. */
    @FunctionalInterface
    interface OverBudget
    {
        void close(String reason);
    }

    private final MemoryBudget node;
    private final OverBudget onOverBudget;
    private final LongSupplier parked;
    private long reserved;
    private boolean evicted;
    private boolean closed;

    ConnectionMemory(final MemoryBudget node, final LongSupplier parked, final OverBudget onOverBudget)
    {
        this.node = node;
        this.parked = parked;
        this.onOverBudget = onOverBudget;
    }

    /** @return bytes this connection holds now. */
    long held()
    {
        return reserved + parked.getAsLong();
    }

    boolean isEvicted()
    {
        return evicted;
    }

    /**
     * Takes bytes before allocating them. Over the node's limit, the connection holding the most is closed first
     * when that is another one.
     *
     * @return null when reserved, else why not (the caller closes the connection with it).
     */
    String reserve(final long bytes)
    {
        if (closed)
        {
            return "the connection is closing";
        }
        final long wouldHold = held() + bytes;
        if (wouldHold > node.connectionLimit())
        {
            return "this connection would hold " + wouldHold + " bytes for its peer, over its budget of " +
                node.connectionLimit() + " (rivulet.maxConnectionMemory)";
        }
        if (node.used() + bytes > node.nodeLimit() &&
            !(node.evictLargestOther(this) && node.used() + bytes <= node.nodeLimit()))
        {
            return "the node's memory budget of " + node.nodeLimit() + " bytes (rivulet.maxNodeMemory) is exhausted: " +
                node.used() + " bytes held, " + held() + " by this connection";
        }
        reserved += bytes;
        node.add(bytes);
        return null;
    }

    /** Gives reserved bytes back. */
    void release(final long bytes)
    {
        reserved -= bytes;
        node.add(-bytes);
    }

    /**
     * Each duty cycle: parked frames are added without asking (a reply cannot be refused halfway), so here a
     * connection whose peer reads too slowly for what it asked for is closed once over its own limit. (Over the node's
     * limit, parked bytes make {@code fireAndForget} fail fast and the next reservation close the largest holder.)
     *
     * @return true when it was closed.
     */
    boolean check()
    {
        if (closed || evicted)
        {
            return false;
        }
        final long held = held();
        if (held <= node.connectionLimit())
        {
            return false;
        }
        evict("this connection holds " + held + " bytes for its peer, over its budget of " + node.connectionLimit() +
            " (rivulet.maxConnectionMemory): the peer does not read what it asked for");
        return true;
    }

    /** The node chose this connection to give its bytes back. */
    void evict(final String reason)
    {
        evicted = true;
        onOverBudget.close(reason);
    }

    /** The connection ended: it leaves the node's list; its streams and ring give back what it held. */
    void close()
    {
        if (!closed)
        {
            closed = true;
            node.closed(this);
        }
    }
}
