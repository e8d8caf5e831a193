package io.rivulet.protocol;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * Brings resting connections back to the sender. The sender visits only the connections that have something to
 * send; a connection whose ring is empty and whose link is flushed rests ({@link Outbound#rest()}) until a producer
 * commits a frame, a claim is settled, a frame is offered to its link, or its send mode changes
 * ({@link Outbound#scheduleSend()}), which queues it here once. Before, the sender read every connection's ring on
 * every duty cycle: with 400 idle connections (the soak's SETUP-less sockets and keepalive-only clients) that pass
 * was about half of an engine busy two thirds of the time.
 *
 * <p>The queue is bounded and never allocates; should it ever be full, the sender is told to visit every
 * connection once ({@link #takeOverflow()}), so no connection is forgotten.
 *
 * <p>Threading: offered from any thread, polled by the sender's.
 */
public final class SendReadiness
{
    /** Room for this many resting connections coming back between two sender passes. */
    public static final int DEFAULT_CAPACITY = 4096;

    private final ManyToOneConcurrentArrayQueue<ConnectionOutput> ready;
    private volatile boolean overflowed;

    /** @param capacity connections the queue holds at once before the sender must visit them all. */
    public SendReadiness(final int capacity)
    {
        ready = new ManyToOneConcurrentArrayQueue<>(capacity);
    }

    /** Any thread: the connection has output and rests; queued, or the sender told to visit all. */
    void offer(final ConnectionOutput connection)
    {
        if (!ready.offer(connection))
        {
            overflowed = true;
        }
    }

    /** @return the next connection that came back, or null (sender). */
    public ConnectionOutput poll()
    {
        return ready.poll();
    }

    /** @return whether the queue overflowed since the last call: the sender must visit every connection (sender). */
    public boolean takeOverflow()
    {
        if (!overflowed)
        {
            return false;
        }
        overflowed = false;
        return true;
    }
}
