package io.rivulet.spi;

/**
 * A requester's path for one-sided operations to one peer (on RDMA: a reliable-connected queue pair of its own,
 * apart from the messaging link, so that an access error, which moves the queue pair to ERROR, never breaks the
 * link). Conductor thread only; nothing blocks.
 */
public interface OneSidedPath extends AutoCloseable
{
    /**
     * Posts an operation if the path is connected and has room.
     *
     * @param operation to post; its callbacks run from {@link #poll()}.
     * @return false when the path is not connected yet or full: post it again later.
     */
    boolean post(OneSidedOperation operation);

    /**
     * Reaps completions and calls the operations' callbacks.
     *
     * @return completions handled.
     */
    int poll();

    /**
     * @return true once the path failed (an access error, a lost peer): operations still in flight have been
     * handed back through {@link OneSidedOperation#onFlushed()} or failed; close it and open a new one.
     */
    boolean isBroken();

    /** @return operations posted and not completed. */
    int inFlight();

    /** Closes the queue pair and frees its memory; operations in flight are handed back as flushed. */
    @Override
    void close();
}
