package io.rivulet.protocol;

import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The bytes a node holds on behalf of its peers, bounded per connection and per node: fragments of messages not
 * yet complete (reassembly), requests whose streams are still open, and frames waiting for room in an outbound
 * ring (parked). Every limit on its own is per stream or per connection; this bounds their sum, so that no set of
 * peers can grow the heap until the engine dies.
 *
 * <p>A connection asks before it grows what it holds for its peer ({@link ConnectionMemory#reserve}). Over its own
 * limit the request is refused and the connection closes with an error. Over the node's limit the connection holding
 * the most is closed first (most likely the peer that caused it), so that a well-behaved connection asking for a
 * little is not the one punished; only when it holds the most itself is it refused.
 *
 * <p>Threading: reservations and eviction on the conductor; parked bytes are added from any thread (a producer
 * parks its frames), so the totals are atomic.
 */
public final class MemoryBudget
{
    private final long nodeLimit;
    private final long connectionLimit;
    private final AtomicLong used = new AtomicLong();
    /** The connections holding bytes, conductor only. */
    private final ArrayList<ConnectionMemory> connections = new ArrayList<>();

    /**
     * @param nodeLimit       bytes all connections of the node may hold together.
     * @param connectionLimit bytes one connection may hold.
     */
    public MemoryBudget(final long nodeLimit, final long connectionLimit)
    {
        if (nodeLimit <= 0 || connectionLimit <= 0)
        {
            throw new IllegalArgumentException("memory limits must be positive: node " + nodeLimit + ", connection " +
                connectionLimit);
        }
        this.nodeLimit = nodeLimit;
        this.connectionLimit = connectionLimit;
    }

    /** @return a budget that never refuses (protocol tests that are not about memory). */
    public static MemoryBudget unlimited()
    {
        return new MemoryBudget(Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);
    }

    /** @return bytes the node's connections hold now. */
    public long used()
    {
        return used.get();
    }

    /** @return the node's limit. */
    public long nodeLimit()
    {
        return nodeLimit;
    }

    /** @return one connection's limit. */
    public long connectionLimit()
    {
        return connectionLimit;
    }

    /**
     * Conductor: a connection's account.
     *
     * @param parked       the connection's parked bytes (which its {@link Outbound} also adds to {@link #add}).
     * @param onOverBudget closes the connection with the reason, when it must give its bytes back.
     */
    ConnectionMemory open(final LongSupplier parked, final ConnectionMemory.OverBudget onOverBudget)
    {
        final ConnectionMemory memory = new ConnectionMemory(this, parked, onOverBudget);
        connections.add(memory);
        return memory;
    }

    void closed(final ConnectionMemory memory)
    {
        connections.remove(memory);
    }

    /** Any thread: bytes taken (positive) or given back (negative). */
    long add(final long delta)
    {
        return used.addAndGet(delta);
    }

    /**
     * Conductor: the node is over its limit while {@code asking} wants more. Closes the connection holding the most,
     * if that is not the one asking, which gives its reserved bytes back at once.
     *
     * @return true when another connection was closed.
     */
    boolean evictLargestOther(final ConnectionMemory asking)
    {
        ConnectionMemory largest = null;
        for (int i = 0; i < connections.size(); i++)
        {
            final ConnectionMemory candidate = connections.get(i);
            if (!candidate.isEvicted() && (largest == null || candidate.held() > largest.held()))
            {
                largest = candidate;
            }
        }
        if (largest == null || largest == asking || largest.held() <= asking.held())
        {
            return false;
        }
        largest.evict("the node's memory budget of " + nodeLimit + " bytes (rivulet.maxNodeMemory) is exhausted and " +
            "this connection held the most of it (" + largest.held() + " bytes)");
        return true;
    }
}
